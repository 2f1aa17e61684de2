#!/usr/bin/env python3
"""term_job.py NREADY CMD...: runs CMD (an mpiexec), waits until NREADY
directories ready_<rank>.<pid> exist in the working directory, sends SIGTERM
to each of those rank processes, as a batch system does (Slurm signals every
task, then waits KillWait seconds before SIGKILL), and waits for CMD to end.
Exit 0 if it ended.

Not through mpiexec: hydra forwards the signal, but on a loaded machine it
can tear the job down (SIGKILL) before a slow rank has written its partial
trace, which made this test flaky."""
import glob
import os
import signal
import subprocess
import sys
import time

n = int(sys.argv[1])
p = subprocess.Popen(sys.argv[2:])
deadline = time.time() + 60
while len(glob.glob("ready_*")) < n and time.time() < deadline and p.poll() is None:
    time.sleep(0.05)
time.sleep(0.2)
for ready in glob.glob("ready_*"):
    pid = int(ready.rsplit(".", 1)[1])
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
try:
    p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit(1)
print("terminated")
