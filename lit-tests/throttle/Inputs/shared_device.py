"""Two processes write to one throttled directory at once: the device is
shared (its clock is in shared memory), so together they take at least the
time of all their bytes at the directory's rate.
usage: shared_device.py PROGRAM DIR BYTES_EACH CHUNK MIN_TOTAL_S"""
import subprocess
import sys
import time

prog, d, each, chunk, least = sys.argv[1:6]
start = time.monotonic()
procs = [subprocess.Popen([prog, f"{d}/p{i}.bin", each, chunk], stdout=subprocess.PIPE, text=True) for i in range(2)]
outs = [p.communicate()[0] for p in procs]
total = time.monotonic() - start
if any(p.returncode for p in procs):
    print("a writer failed:", outs)
    sys.exit(1)
# Both phases (write and read) of both processes go through the one device.
print("shared device" if total >= float(least) else f"not shared: {total:.3f} s < {least} s")
sys.exit(0 if total >= float(least) else 1)
