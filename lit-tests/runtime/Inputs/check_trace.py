#!/usr/bin/env python3
"""Exact checks on an sio trace (JSON) for the runtime lit tests.

  check_trace.py TRACE [--count OP=N]... [--loop-iterations 3,5] [--complete |
      --incomplete] [--file FORMAT]... [--param OP.NAME=VALUE]... [--ranks OP=LIST]

Counts are event nodes (a loop body counts once) anywhere in the tree;
--loop-iterations lists the iteration counts of the loops in tree order.
Exit 1 with a message on the first mismatch."""
import json
import sys


def fail(msg):
    print("check_trace: " + msg, file=sys.stderr)
    sys.exit(1)


def walk(nodes, depth=0):
    for n in nodes:
        yield n, depth
        if "loop" in n:
            yield from walk(n.get("body", []), depth + 1)


def ranks_str(blocks):
    out = []
    for b in blocks:
        if "count" in b:
            out.append("%d+%d*[0..%d]" % (b["start"], b.get("stride", 1), b["count"] - 1))
        else:
            out.append(str(b["start"]))
    return ",".join(out)


def value_str(v):
    if isinstance(v, dict) and set(v) == {"string"}:
        return v["string"]
    return str(v)


def main(argv):
    path = argv[0]
    with open(path) as f:
        t = json.load(f)
    nodes = list(walk(t["body"]))
    events = [n for n, _ in nodes if "event" in n]
    loops = [n for n, _ in nodes if "loop" in n]
    i = 1
    while i < len(argv):
        opt, val = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        i += 2
        if opt == "--count":
            op, n = val.split("=")
            got = sum(1 for e in events if e["event"] == op)
            if got != int(n):
                fail("%s: %d event nodes, expected %s" % (op, got, n))
        elif opt == "--loop-iterations":
            got = ",".join(str(l["iterations"]) for l in loops)
            if got != val:
                fail("loop iterations %s, expected %s" % (got, val))
        elif opt == "--file":
            got = [f["format"] for f in t["files"]]
            if val not in got:
                fail("no file %r in %r" % (val, got))
        elif opt == "--param":
            lhs, want = val.split("=", 1)
            op, name = lhs.split(".")
            got = [value_str(e["params"].get(name)) for e in events if e["event"] == op]
            if want not in got:
                fail("%s.%s values %r, expected %r among them" % (op, name, got, want))
        elif opt == "--ranks":
            op, want = val.split("=", 1)
            got = [ranks_str(e["ranks"]) for e in events if e["event"] == op]
            if want not in got:
                fail("%s rank lists %r, expected %r" % (op, got, want))
        elif opt in ("--complete", "--incomplete"):
            i -= 1
            if t["complete"] != (opt == "--complete"):
                fail("complete is %s" % t["complete"])
        else:
            fail("unknown option " + opt)
    print("ok: %d events, %d loops" % (len(events), len(loops)))


if __name__ == "__main__":
    main(sys.argv[1:])
