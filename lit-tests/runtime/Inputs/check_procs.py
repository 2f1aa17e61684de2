#!/usr/bin/env python3
"""Checks on the traces of a process tree (issue 22: fork, children).

  check_procs.py app TRACE NRANKS PROGRAM [--no-file SUBSTR]
      TRACE is complete, of NRANKS ranks of PROGRAM, and names no file
      containing SUBSTR (a child's events did not leak into it).
  check_procs.py children DIR PROGRAM COUNT FILE_SUBSTR
      DIR holds exactly COUNT traces PROGRAM.<pid>.sio.json, each complete,
      one rank, and naming only files that contain FILE_SUBSTR.
  check_procs.py none DIR
      DIR holds no trace and no partial trace at all.
Exit 1 with a message on the first mismatch."""
import json
import os
import re
import sys


def fail(msg):
    print("check_procs: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def names(t):
    out = []
    for f in t.get("files", []):
        out.append(f.get("format", json.dumps(f)))
    return out


def main(a):
    if a[0] == "app":
        t = load(a[1])
        if not t["complete"]:
            fail("%s is not complete" % a[1])
        if t["nranks"] != int(a[2]) or t["program"] != a[3]:
            fail("%s: program %s, %d ranks; expected %s, %s" % (a[1], t["program"], t["nranks"], a[3], a[2]))
        if len(a) > 5 and a[4] == "--no-file":
            bad = [n for n in names(t) if a[5] in n]
            if bad:
                fail("%s names %r" % (a[1], bad))
        print("ok: %s, %d ranks, %d files" % (t["program"], t["nranks"], len(names(t))))
    elif a[0] == "children":
        d, prog, count, want = a[1], a[2], int(a[3]), a[4]
        pat = re.compile(re.escape(prog) + r"\.(\d+)\.sio\.json$")
        found = [n for n in os.listdir(d) if pat.match(n)]
        if len(found) != count:
            fail("%d child traces in %s, expected %d: %r" % (len(found), d, count, sorted(found)))
        for n in found:
            t = load(os.path.join(d, n))
            if not t["complete"] or t["nranks"] != 1:
                fail("%s: complete %s, %d ranks" % (n, t["complete"], t["nranks"]))
            other = [f for f in names(t) if want not in f]
            if other or not names(t):
                fail("%s names files %r" % (n, names(t)))
        print("ok: %d child traces" % len(found))
    elif a[0] == "none":
        found = [n for n in os.listdir(a[1]) if ".sio.json" in n]
        if found:
            fail("traces in %s: %r" % (a[1], found))
        print("ok: no trace")
    else:
        fail("unknown command " + a[0])


if __name__ == "__main__":
    main(sys.argv[1:])
