#!/usr/bin/env python3
"""hold_rank.py N GLOB CMD...: runs CMD (one MPI rank) and writes its exit
status to exit_status.<pid>, then stays alive until N files match GLOB and
N ranks have written their exit status (at most 60 s), and exits 0.

Why: when one rank of a job dies, hydra SIGKILLs the others at once (even
with -disable-auto-cleanup), which can cut a slower rank off while its
SIGTERM handler writes its partial trace. This wrapper holds the rank's
place in the job (and its process-manager connection, which it inherits)
until every rank has written, so the test checks the runtime, not the race
between ranks."""
import glob
import os
import subprocess
import sys
import time

n = int(sys.argv[1])
pattern = sys.argv[2]
# close_fds=False: the rank needs the process-manager descriptor (PMI_FD).
status = subprocess.call(sys.argv[3:], close_fds=False)
with open("exit_status.%d" % os.getpid(), "w") as f:
    f.write("%d\n" % status)
deadline = time.time() + 60
# Every rank's exit status too: a rank's partial trace appears before the
# rank has exited, so a wrapper that left once the N traces were there let
# hydra SIGKILL a wrapper still waiting for its rank to end (its status was
# then missing: 1 in 10 runs of sigterm.test beside two busy loops).
while (len(glob.glob(pattern)) < n or len(glob.glob("exit_status.*")) < n) and time.time() < deadline:
    time.sleep(0.05)
