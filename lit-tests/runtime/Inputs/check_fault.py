#!/usr/bin/env python3
"""Checks a run with SIO_TEST_FINALIZE_FAULT (lit-tests/runtime/finalize-faults.test).

  check_fault.py OUT TRACE STATS MADE NOTE

OUT: the program's output (every rank printed its line after MPI_Finalize,
so no rank was ended or left hanging by the fault); TRACE/STATS: the trace
and `sio-trace stats` of it; MADE: the calls the ranks made; NOTE: text one
of the trace's notes must contain. The trace is marked incomplete and
accounts for every call: recorded + dropped_events = MADE."""
import json
import re
import sys


def fail(msg):
    print("check_fault: " + msg, file=sys.stderr)
    sys.exit(1)


out, trace, stats, made, note = sys.argv[1:]
lines = [l for l in open(out) if l.startswith("rank ")]
if len(lines) != 4:
    fail(f"{len(lines)} ranks finished, expected 4: {lines}")
t = json.load(open(trace))
if t["complete"]:
    fail("a rank lost its events but the trace says it is complete")
if not any(note in n for n in t["notes"]):
    fail(f"no note contains {note!r}: {t['notes']}")
m = re.search(r"^calls: (\d+) ", open(stats).read(), re.M)
if not m:
    fail(f"{stats}: no 'calls:' line")
recorded, dropped = int(m.group(1)), t["dropped_events"]
print(f"recorded {recorded} + dropped {dropped} of {made}")
if recorded + dropped != int(made):
    fail(f"recorded {recorded} + dropped {dropped} != {made} calls made")
