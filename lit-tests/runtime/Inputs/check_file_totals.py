#!/usr/bin/env python3
"""check_file_totals.py EXPECTED STATS [RANK]: the per-file calls and bytes
that `sio-trace stats` printed (STATS, its output) equal what the program
says it did (EXPECTED: lines `rank <r> file <name> calls <n> bytes <n>`, one
per rank and file; summed over ranks, or rank RANK's only). Every file of
EXPECTED must be there, exactly once, with exactly those totals. Exit 1 naming the first mismatch."""
import re
import sys

want = {}
for line in open(sys.argv[1]):
    m = re.match(r"rank (\d+) file (\S+) calls (\d+) bytes (\d+)", line)
    if m and (len(sys.argv) < 4 or m.group(1) == sys.argv[3]):
        c, b = want.get(m.group(2), (0, 0))
        want[m.group(2)] = (c + int(m.group(3)), b + int(m.group(4)))
got = {}
section = False
for line in open(sys.argv[2]):
    if line.startswith("files:"):
        section = True
        continue
    m = re.match(r'\s+f\d+ "([^"]+)"\s+(\d+)\s+(\d+)\s*$', line)
    if section and m:
        if m.group(1) in got:
            sys.exit("check_file_totals: %s listed twice" % m.group(1))
        got[m.group(1)] = (int(m.group(2)), int(m.group(3)))
if not want:
    sys.exit("check_file_totals: nothing expected in " + sys.argv[1])
for name, (c, b) in sorted(want.items()):
    if name not in got:
        sys.exit("check_file_totals: %s missing from stats (files %r)" % (name, sorted(got)))
    if got[name] != (c, b):
        sys.exit("check_file_totals: %s: %d calls, %d bytes; the program made %d calls, %d bytes"
                 % (name, got[name][0], got[name][1], c, b))
print("ok: %d files exact" % len(want))
