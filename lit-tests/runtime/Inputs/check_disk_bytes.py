#!/usr/bin/env python3
"""check_disk_bytes.py STATS DIR [--inexact-ok REASON]: bytes on disk = bytes
in the trace. STATS is the output of `sio-trace stats`; every DIR/*.out file
(each written once from offset 0) must be in its files table with exactly
its size on disk as bytes. With --inexact-ok, a trace whose stats say
`exact: no` with an inexact reason containing REASON passes too (the trace
then says it misses data). Exit 1 naming the first mismatch."""
import os
import re
import sys

stats, folder = sys.argv[1], sys.argv[2]
inexact_ok = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--inexact-ok" else None
text = open(stats).read()
reasons = re.findall(r"^\s+inexact: (.*)$", text, re.M)
exact = re.search(r"^exact: yes$", text, re.M) is not None
if reasons:
    if inexact_ok and any(inexact_ok in r for r in reasons):
        print("ok: trace says inexact (%s)" % inexact_ok)
        sys.exit(0)
    sys.exit("check_disk_bytes: trace says inexact: %r" % reasons)
if not exact:
    sys.exit("check_disk_bytes: stats do not say 'exact: yes'")
got = {}
section = False
for line in text.splitlines():
    if line.startswith("files:"):
        section = True
        continue
    m = re.match(r'\s+f\d+ "([^"]+)"\s+(\d+)\s+(-?\d+)\s*$', line)
    if section and m:
        got[os.path.basename(m.group(1))] = int(m.group(3))
files = sorted(f for f in os.listdir(folder) if f.endswith(".out"))
if not files:
    sys.exit("check_disk_bytes: no .out files in " + folder)
for name in files:
    size = os.path.getsize(os.path.join(folder, name))
    if name not in got:
        sys.exit("check_disk_bytes: %s (%d bytes on disk) is not in the trace" % (name, size))
    if got[name] != size:
        sys.exit("check_disk_bytes: %s: %d bytes on disk, %d in the trace" % (name, size, got[name]))
print("ok: %d files, bytes on disk = bytes in the trace" % len(files))
