#!/usr/bin/env python3
"""Checks of a run under SIO_MEMORY_CAP (lit-tests/runtime/memcap-finalize.test).

  check_memcap.py PLAIN_OUT PLAIN_DIR TINY_OUT RUN_OUT RUN_DIR TRACE STATS CAP_BYTES FILES

PLAIN_*: the untraced run; TINY_OUT: the traced program with a handful of
files (the runtime's fixed footprint: code, libraries, buffers); RUN_*: the
traced run under the cap, TRACE its trace, STATS what `sio-trace stats`
says of it. Checks:
- the program's output (but its peak) and the files it wrote are those of
  the untraced run;
- each rank's peak RSS is at most max(untraced, tiny traced) + CAP_BYTES
  (+ 512 KiB of run-to-run noise):
  what grows with the run (tables, finalize, merge, writing) stays under
  the cap;
- the trace accounts for every call: recorded calls + dropped_events =
  the calls made (2 ranks x (mkdir + FILES x open/write/close)); a drop
  marks it incomplete with a note naming the cap; no drop: complete.
Prints one line per rank with the numbers; exit 1 on the first failure."""
import hashlib
import json
import os
import re
import sys


# RSS of the same run varies by ~200 KiB from run to run (MPI's shared
# memory, page-granular heap growth); the old finalize went tens of MiB over.
SLACK_KIB = 512


def fail(msg):
    print("check_memcap: " + msg, file=sys.stderr)
    sys.exit(1)


def peaks(path):
    out = {}
    lines = []
    for line in open(path):
        m = re.fullmatch(r"rank (\d+) files (\d+) peak_kib (\d+)\n", line)
        if not m:
            fail(f"{path}: unexpected output line {line!r}")
        out[int(m.group(1))] = int(m.group(3))
        lines.append(f"rank {m.group(1)} files {m.group(2)}")
    return out, sorted(lines)


def tree(root):
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            files[os.path.relpath(p, root)] = hashlib.sha1(open(p, "rb").read()).hexdigest()
    return files


def main():
    plain_out, plain_dir, tiny_out, run_out, run_dir, trace, stats, cap, nfiles = sys.argv[1:]
    cap, nfiles = int(cap), int(nfiles)
    plain, plain_lines = peaks(plain_out)
    tiny, _ = peaks(tiny_out)
    run, run_lines = peaks(run_out)
    if run_lines != plain_lines:
        fail(f"output differs from the untraced run: {run_lines} vs {plain_lines}")
    if tree(run_dir) != tree(plain_dir):
        fail("the files written differ from the untraced run's")
    for r in sorted(plain):
        base = max(plain[r], tiny[r])
        budget = base + cap // 1024 + SLACK_KIB
        print(f"rank {r}: peak {run[r]} KiB, untraced {plain[r]} KiB, tiny traced {tiny[r]} KiB, "
              f"budget {budget} KiB")
        if run[r] > budget:
            fail(f"rank {r}: peak RSS {run[r]} KiB is above {base} KiB + the cap ({cap // 1024} KiB)")
    t = json.load(open(trace))
    made = len(plain) * (1 + 3 * nfiles)
    dropped = t["dropped_events"]
    m = re.search(r"^calls: (\d+) ", open(stats).read(), re.M)
    if not m:
        fail(f"{stats}: no 'calls:' line")
    got = int(m.group(1))
    print(f"calls: {made} made, {got} recorded, {dropped} dropped; complete: {t['complete']}")
    if got + dropped != made:
        fail(f"recorded {got} + dropped {dropped} != {made} calls made")
    if dropped:
        if t["complete"]:
            fail("events were dropped but the trace says it is complete")
        if not any("memory cap SIO_MEMORY_CAP=" in n for n in t["notes"]):
            fail(f"events were dropped but no note names the cap: {t['notes']}")
    elif not t["complete"]:
        fail(f"nothing was dropped but the trace is incomplete: {t['notes']}")


main()
