"""Checks a trace of lit-tests/runtime/Inputs/irregular.cpp: sio-trace stats
reports exactly the bytes the program says it wrote, the trace has 6200
pwrite calls, and it takes under 4 bytes per call (plus a fixed 16 kB for
tables, sites and timing)."""
import os
import re
import subprocess
import sys

trace, out, sio_trace = sys.argv[1], sys.argv[2], sys.argv[3]
written = int(re.search(r"written (\d+)", open(out).read()).group(1))
stats = subprocess.run([sio_trace, "stats", trace], check=True, capture_output=True, text=True).stdout
m = re.search(r"bytes written\D*?(\d[\d,]*)", stats)
if not m:
    sys.exit("no 'bytes written' in sio-trace stats:\n" + stats)
got = int(m.group(1).replace(",", ""))
if got != written:
    sys.exit(f"sio-trace stats: {got} bytes written, the program wrote {written}\n{stats}")
calls = re.search(r"pwrite\D*?(\d+)", stats)
if not calls or int(calls.group(1)) != 6200:
    sys.exit("expected 6200 pwrite calls in stats:\n" + stats)
size = os.path.getsize(trace)
if size > 4 * 6200 + 16384:
    sys.exit(f"trace is {size} bytes for 6200 calls")
print(f"ok: {got} bytes written, trace {size} bytes")
