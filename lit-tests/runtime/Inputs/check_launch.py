#!/usr/bin/env python3
"""check_launch.py UNTRACED_DIR TRACED_DIR N: a launch of N processes of
launch_writer.c ran traced as untraced (the same data files and bytes, the
same stdout and stderr lines once sorted, `sio: ` lines of the runtime left
out), and each process left its own complete trace,
writer.pmi<r>-of-<N>.sio.json, that records its own data.<r> and no other.
Exit 1 naming the first difference."""
import json
import os
import sys

untraced, traced, n = sys.argv[1], sys.argv[2], int(sys.argv[3])


def fail(msg):
    print("check_launch: " + msg, file=sys.stderr)
    sys.exit(1)


def content(d):
    out = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".json"):
            continue
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        if name in ("out", "err"):  # lines of several processes: any order
            data = sorted(l for l in data.splitlines() if not l.startswith(b"sio: "))
        out[name] = data
    return out


a, b = content(untraced), content(traced)
if a != b:
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    fail("traced run differs from untraced in %s" % diff)
for r in range(n):
    path = os.path.join(traced, "writer.pmi%d-of-%d.sio.json" % (r, n))
    with open(path) as f:
        t = json.load(f)
    if t.get("complete") is not True:
        fail("%s is not complete" % path)
    names = [f["format"] for f in t["files"]]
    data = [x for x in names if "data." in x]
    if data != ["data.%d" % r] and not (len(data) == 1 and data[0].endswith("/data.%d" % r)):
        fail("%s records files %s, expected its own data.%d only" % (path, names, r))
print("check_launch: %d processes, %d traces, as untraced" % (n, n))
