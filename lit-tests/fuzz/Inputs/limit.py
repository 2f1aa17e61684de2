"""Runs a command under an address-space limit (MiB) and a time limit
(seconds), passing its status on; a signal (a crash, or the kill at the
time limit) is reported and turned into status 125.

usage: limit.py MIB SECONDS COMMAND [ARG...]"""
import resource
import subprocess
import sys

mib, seconds = int(sys.argv[1]), float(sys.argv[2])


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))


try:
    proc = subprocess.run(sys.argv[3:], preexec_fn=limit, timeout=seconds)
except subprocess.TimeoutExpired:
    print(f"limit.py: {sys.argv[3]} ran longer than {seconds:g} s", file=sys.stderr)
    sys.exit(125)
if proc.returncode < 0:
    print(f"limit.py: {sys.argv[3]} killed by signal {-proc.returncode}", file=sys.stderr)
    sys.exit(125)
sys.exit(proc.returncode)
