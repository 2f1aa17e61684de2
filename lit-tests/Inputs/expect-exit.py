"""Runs a command, passes its output on (stderr merged into stdout) and
succeeds only if the command exited with the expected status.

usage: expect-exit.py STATUS COMMAND [ARG...]
lit's internal shell has no $?, and `not` accepts any nonzero status."""
import subprocess
import sys

expected = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(proc.stdout)
if proc.returncode != expected:
    sys.stdout.write(f"expect-exit: status {proc.returncode}, expected {expected}\n")
    sys.exit(1)
