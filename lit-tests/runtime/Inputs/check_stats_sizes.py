#!/usr/bin/env python3
"""check_stats_sizes.py STATS DIR: every file of `sio-trace stats` output
STATS (its files: section) was written with as many bytes as DIR/<name> holds
on disk, and every data file in DIR (traces left out) is listed. Exit 1
naming the first mismatch."""
import os
import re
import sys

stats, root = sys.argv[1], sys.argv[2]
got = {}
section = False
for line in open(stats):
    if line.startswith("files:"):
        section = True
        continue
    m = re.match(r'\s+f\d+ "([^"]+)"\s+(\d+)\s+(\d+)\s*$', line)
    if section and m:
        got[m.group(1)] = int(m.group(3))
on_disk = {n: os.path.getsize(os.path.join(root, n)) for n in os.listdir(root)
           if os.path.isfile(os.path.join(root, n)) and not n.endswith(".json")}
if sorted(got) != sorted(on_disk):
    sys.exit("check_stats_sizes: stats lists %s, %s holds %s" % (sorted(got), root, sorted(on_disk)))
for name in sorted(got):
    if got[name] != on_disk[name]:
        sys.exit("check_stats_sizes: %s: stats say %d bytes, the file has %d" % (name, got[name], on_disk[name]))
print("ok: %d files, bytes as on disk" % len(got))
