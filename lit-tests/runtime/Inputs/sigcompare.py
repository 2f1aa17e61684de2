#!/usr/bin/env python3
"""Runs a program untraced and traced, each time in a fresh directory,
optionally sending it a signal at a random moment after it printed "ready",
under CPU load, and checks that every traced run ends exactly as the
untraced ones: exit status, stdout, stderr and the bytes of every file it
left (traces aside: *.sio.json; their temporaries count). A run still going after --timeout
seconds is a hang.

  sigcompare.py [--runs N] [--ref-runs M] [--signal TERM|none] [--load K]
                [--timeout S] [--max-delay-ms D] [--expect-status S]
                [--mask-numbers] --dir DIR --untraced CMD --traced CMD

CMD is one string (shlex); --traced may start with VAR=value assignments.
--complete-trace NAME: each traced run must leave the trace NAME, marked
complete, and no partial trace. --sort-lines compares stdout and stderr as sorted lines (ranks print in
any order). --mask-numbers replaces digit runs in stdout and stderr before comparing (launchers
print pids). --expect-sio-line RE: each traced run's stderr has a line matching RE (a
message of the runtime's), which is left out of the comparison."""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=20)
ap.add_argument("--ref-runs", type=int, default=2)
ap.add_argument("--signal", default="none")
ap.add_argument("--load", type=int, default=2)
ap.add_argument("--timeout", type=float, default=10)
ap.add_argument("--max-delay-ms", type=float, default=30)
ap.add_argument("--expect-status", type=int)
ap.add_argument("--mask-numbers", action="store_true")
ap.add_argument("--sort-lines", action="store_true")
ap.add_argument("--complete-trace", help="each traced run leaves this trace, complete, and no partial one")
ap.add_argument("--expect-sio-line", help="a line every traced run's stderr has (regex)")
ap.add_argument("--dir", required=True)
ap.add_argument("--untraced", required=True)
ap.add_argument("--traced", required=True)
args = ap.parse_args()


def split(cmd):
    words = shlex.split(cmd)
    env = dict(os.environ)
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return words, env


def files(d):
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            if n.endswith(".sio.json"):
                continue  # traces; their temporaries count
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


rng = random.Random(int(os.environ.get("SIGCOMPARE_SEED", "11")))
sig = None if args.signal == "none" else getattr(signal, "SIG" + args.signal)


def run(cmd, d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    words, env = split(cmd)
    env.setdefault("LIBC_FATAL_STDERR_", "1")
    p = subprocess.Popen(words, cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, bufsize=0)
    start = time.monotonic()
    out = b""
    if sig is not None:
        line = b""
        while not line.endswith(b"\n"):  # unbuffered: communicate() reads the rest
            c = p.stdout.read(1)
            if not c:
                break
            line += c
        out += line
        if line.strip() == b"ready":
            time.sleep(rng.uniform(0, args.max_delay_ms / 1000.0))
            try:
                p.send_signal(sig)
            except ProcessLookupError:
                pass
    try:
        rest, err = p.communicate(timeout=max(0.1, args.timeout - (time.monotonic() - start)))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    if args.sort_lines:  # ranks print in any order
        out = b"".join(sorted((out + rest).splitlines(True)))
        rest = b""
        err = b"".join(sorted(err.splitlines(True)))
    if args.mask_numbers:
        out = re.sub(rb"[0-9]+", b"N", out + rest)
        rest = b""
        err = re.sub(rb"[0-9]+", b"N", err)
    return (p.returncode, out + rest, err, files(d))


def describe(r):
    if r is None:
        return "a hang (killed after %g s)" % args.timeout
    status, out, err, fs = r
    return "status %d, stdout %r, stderr %r, files %s" % (status, out, err, sorted(fs))


load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
try:
    ref = None
    for i in range(args.ref_runs):
        r = run(args.untraced, os.path.join(args.dir, "untraced"))
        if r is None:
            sys.exit("untraced run %d: %s" % (i, describe(r)))
        if ref is not None and r != ref:
            sys.exit("untraced runs differ:\n  %s\n  %s" % (describe(ref), describe(r)))
        ref = r
    if args.expect_status is not None and ref[0] != args.expect_status:
        sys.exit("untraced: %s, expected status %d" % (describe(ref), args.expect_status))
    t0 = time.monotonic()
    for i in range(args.runs):
        r = run(args.traced, os.path.join(args.dir, "traced"))
        if r is not None and args.expect_sio_line:
            lines = r[2].splitlines(True)
            kept = [l for l in lines if not re.search(args.expect_sio_line.encode(), l)]
            if len(kept) == len(lines):
                sys.exit("traced run %d of %d: no stderr line matches %r (stderr %r)"
                         % (i + 1, args.runs, args.expect_sio_line, r[2]))
            r = (r[0], r[1], b"".join(kept), r[3])
        if r != ref:
            what = "a hang" if r is None else ", ".join(
                name for name, a, b in zip(("status", "stdout", "stderr", "files"), r, ref) if a != b)
            for name, a, b in zip(("status", "stdout", "stderr"), r or (), ref):
                if a != b:
                    print("  %s: traced %r, untraced %r" % (name, a, b), file=sys.stderr)
            if r is not None and r[3] != ref[3]:
                for n in sorted(set(r[3]) | set(ref[3])):
                    if r[3].get(n) != ref[3].get(n):
                        print("  file %s: traced %r, untraced %r" % (n, r[3].get(n), ref[3].get(n)),
                              file=sys.stderr)
            sys.exit("traced run %d of %d differs from untraced (%s)" % (i + 1, args.runs, what))
        if args.complete_trace:
            d = os.path.join(args.dir, "traced")
            partial = [n for n in os.listdir(d) if n.endswith(".partial.sio.json")]
            try:
                with open(os.path.join(d, args.complete_trace)) as f:
                    complete = json.load(f).get("complete")
            except (OSError, ValueError) as e:
                sys.exit("traced run %d: no trace %s: %s" % (i + 1, args.complete_trace, e))
            if partial or complete is not True:
                sys.exit("traced run %d: complete %r, partial traces %s" % (i + 1, complete, partial))
    print("%d traced runs ended as untraced (status %d) in %.1f s" % (args.runs, ref[0], time.monotonic() - t0))
finally:
    for p in load:
        p.kill()
        p.wait()
