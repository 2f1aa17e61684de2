"""Runs a busy program (Inputs/busy_writes.c) `runs` times, each time sending
SIGTERM at a random moment once it is writing; checks that it dies of the
signal and that each run leaves its partial trace, marked incomplete and
killed by SIGTERM.
  term_busy.py RUNS TRACE_PATH EXE [ARGS...]   (env: the runtime's settings)
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

runs, trace, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
partial = trace + ".rank0.partial.sio.json"
rng = random.Random(20)
missing = 0
for i in range(runs):
    if os.path.exists(partial):
        os.unlink(partial)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if line.strip() != "ready":
        sys.exit("run %d: expected 'ready', got %r" % (i, line))
    time.sleep(rng.uniform(0.0, 0.05))
    p.send_signal(signal.SIGTERM)
    try:
        status = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        sys.exit("run %d: still running 60 s after SIGTERM" % i)
    if status != -signal.SIGTERM:
        sys.exit("run %d: exit status %d, expected death by SIGTERM" % (i, status))
    if not os.path.exists(partial):
        print("run %d: no partial trace" % i, file=sys.stderr)
        missing += 1
        continue
    with open(partial) as f:
        header = json.load(f)
    notes = " ".join(header.get("notes", []))
    if header.get("complete") is not False or "killed by SIGTERM" not in notes:
        sys.exit("run %d: partial trace not marked as killed: %r" % (i, header))
if missing:
    sys.exit("%d of %d runs left no partial trace" % (missing, runs))
print("%d runs: a partial trace each" % runs)
