#!/usr/bin/env python3
"""term_job.py NREADY CMD...: runs CMD, waits until NREADY directories
ready_* exist in the working directory, sends SIGTERM to CMD (mpiexec
forwards it to the ranks) and waits for it to end. Exit 0 if it ended."""
import glob
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
p.send_signal(signal.SIGTERM)
try:
    p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit(1)
print("terminated")
