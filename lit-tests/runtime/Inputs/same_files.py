#!/usr/bin/env python3
"""same_files.py UNTRACED_DIR TRACED_DIR: the two runs wrote the same files
with the same bytes (traces, *.json, and hold_rank.py's exit_status.* left
out). Exit 1 naming the first
difference."""
import os
import sys


def files(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".json") or n.startswith("exit_status."):
                continue
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


a, b = files(sys.argv[1]), files(sys.argv[2])
if sorted(a) != sorted(b):
    print("same_files: different files: only untraced %s, only traced %s"
          % (sorted(set(a) - set(b)), sorted(set(b) - set(a))), file=sys.stderr)
    sys.exit(1)
for name in sorted(a):
    if a[name] != b[name]:
        print("same_files: %s differs (%d vs %d bytes)" % (name, len(a[name]), len(b[name])), file=sys.stderr)
        sys.exit(1)
print("same files: %d" % len(a))
