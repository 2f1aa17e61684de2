"""Compares the Chrome and the OTF2 export of one trace (read independently:
the Chrome JSON and the text of `otf2-print`).

  export_compare.py CHROME_JSON OTF2_PRINT_TXT [--regions OTF2_PRINT_G_TXT]

Checks, per rank: the same calls in the same order with the same nesting
depth in both; in Chrome, every call that names a parent (args.parent_seq)
lies within that call's slice and top-level slices do not overlap; in OTF2,
Enter/Leave are balanced and each location's timestamps never decrease; the
same number of I/O operations (Chrome slices with args.bytes, OTF2
IO_OPERATION_BEGIN, each inside a region). Prints one summary line per rank
and the counts per kind; a failure prints FAIL and exits 1. With --regions
(the output of otf2-print -G) prints each region's role."""
import collections
import json
import re
import sys

EPS = 0.0015  # us: Chrome times are printed to the ns


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def chrome(path):
    d = json.load(open(path))
    ranks = collections.defaultdict(list)
    for e in d["traceEvents"]:
        if e.get("ph") == "X":
            ranks[e["tid"]].append(e)
    out = {}
    for tid, evs in ranks.items():
        evs.sort(key=lambda e: e["args"]["seq"])
        by_seq = {e["args"]["seq"]: e for e in evs}
        seq, io, prev_end = [], 0, None
        for e in evs:
            a = e["args"]
            start, end = e["ts"], e["ts"] + e["dur"]
            if "parent_seq" in a:
                p = by_seq.get(a["parent_seq"])
                if p is None or "parent_seq" in p["args"]:
                    fail("rank %d call %d: parent %s is not a top-level call" % (tid, a["seq"], a["parent_seq"]))
                if start < p["ts"] - EPS or end > p["ts"] + p["dur"] + EPS:
                    fail("rank %d: %s [%.3f, %.3f] is not within its parent %s [%.3f, %.3f]" %
                         (tid, e["name"], start, end, p["name"], p["ts"], p["ts"] + p["dur"]))
                depth = 1
            else:
                if prev_end is not None and start < prev_end - EPS:
                    fail("rank %d: top-level %s starts at %.3f before the previous call ends (%.3f)" %
                         (tid, e["name"], start, prev_end))
                prev_end = end
                depth = 0
            seq.append((e["name"], depth))
            io += "bytes" in a
        span = max(e["ts"] + e["dur"] for e in evs) - min(e["ts"] for e in evs)
        out[tid] = (seq, io, span)
    return out


LINE = re.compile(r"^(ENTER|LEAVE|IO_OPERATION_BEGIN|IO_OPERATION_COMPLETE)\s+(\d+)\s+(\d+)\s+(.*)$")


def otf2(path):
    stacks = collections.defaultdict(list)
    seqs = collections.defaultdict(list)
    io = collections.Counter()
    last = {}
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        kind, loc, t, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if t < last.get(loc, 0):
            fail("location %d: timestamp %d after %d" % (loc, t, last[loc]))
        last[loc] = t
        if kind == "ENTER":
            name = re.match(r'Region: "([^"]*)"', rest).group(1)
            seqs[loc].append((name, len(stacks[loc])))
            stacks[loc].append(name)
        elif kind == "LEAVE":
            name = re.match(r'Region: "([^"]*)"', rest).group(1)
            if not stacks[loc] or stacks[loc][-1] != name:
                fail("location %d: LEAVE %s does not match the open region %s" % (loc, name, stacks[loc][-1:]))
            stacks[loc].pop()
        elif kind == "IO_OPERATION_BEGIN":
            if not stacks[loc]:
                fail("location %d: I/O operation outside any region" % loc)
            io[loc] += 1
    for loc, st in stacks.items():
        if st:
            fail("location %d: regions left open: %s" % (loc, st))
    return {loc: (seqs[loc], io[loc]) for loc in seqs}


def main():
    c, o = chrome(sys.argv[1]), otf2(sys.argv[2])
    if sorted(c) != sorted(o):
        fail("ranks differ: chrome %s, otf2 %s" % (sorted(c), sorted(o)))
    kinds_c, kinds_o = collections.Counter(), collections.Counter()
    total_io = 0
    for r in sorted(c):
        seq_c, io_c, span = c[r]
        seq_o, io_o = o[r]
        if seq_c != seq_o:
            for k, (a, b) in enumerate(zip(seq_c, seq_o)):
                if a != b:
                    fail("rank %d call %d: chrome %s, otf2 %s" % (r, k, a, b))
            fail("rank %d: chrome %d calls, otf2 %d" % (r, len(seq_c), len(seq_o)))
        if io_c != io_o:
            fail("rank %d: chrome %d I/O operations, otf2 %d" % (r, io_c, io_o))
        kinds_c.update(n for n, _ in seq_c)
        kinds_o.update(n for n, _ in seq_o)
        total_io += io_c
        nested = sum(1 for _, d in seq_c if d)
        print("rank %d: %d calls, %d nested, %d I/O operations, same in both" % (r, len(seq_c), nested, io_c))
    if kinds_c != kinds_o:
        fail("counts per kind differ: chrome %s, otf2 %s" % (dict(kinds_c), dict(kinds_o)))
    print("kinds: " + " ".join("%s=%d" % kv for kv in sorted(kinds_c.items())))
    print("I/O operations: %d in both" % total_io)
    if len(sys.argv) > 4 and sys.argv[3] == "--regions":
        for line in open(sys.argv[4]):
            m = re.match(r'^REGION\s+\d+\s+Name: "([^"]*)".*Role: (\w+)', line)
            if m:
                print("role %s %s" % (m.group(1), m.group(2)))


main()
