"""Checks that a timeline export shows the straggler of slow_rank.c.

  slow_rank_check.py trace TRACE_JSON        rank_timing keeps rank 2 apart
  slow_rank_check.py chrome CHROME_JSON      per-rank slices in the Chrome export
  slow_rank_check.py otf2 OTF2_PRINT_TXT     the same in the OTF2 export

Rank 2 sleeps 20 ms before each of its 4 writes and writes 10x more, then
all ranks meet at a barrier. Per rank: the end of the last write, the mean
write duration, the barrier's duration. Expected: rank 2's writes end later
(> 2x the others'), its writes last longer on average, and the others wait
longer in the barrier than rank 2 does."""
import collections
import json
import re
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ranks_of(text):
    """The RANKS word of a rank_timing group: a, a-b, a-b:stride items."""
    out = []
    for item in text.split(","):
        span, _, stride = item.partition(":")
        a, _, b = span.partition("-")
        out.extend(range(int(a), int(b or a) + 1, int(stride or 1)))
    return out


def group(text):
    w = text.split(" ")
    v = [int(x) for x in w[1:]]
    return {"ranks": ranks_of(w[0]), "count": v[0], "duration_ns": v[1:4], "compute_ns": v[4:7]}


def check_trace(path):
    d = json.load(open(path))
    found = []

    def walk(body):
        for n in body:
            if "event" in n:
                if n["event"] == "MPI_File_write_at":
                    found.append(n)
            else:
                walk(n["body"])

    walk(d["body"])
    if len(found) != 1:
        fail("expected one MPI_File_write_at node, found %d" % len(found))
    groups = [group(g) for g in found[0].get("rank_timing", [])]
    if not groups:
        fail("MPI_File_write_at has no rank_timing")
    own = [g for g in groups if g["ranks"] == [2]]
    if not own:
        fail("rank 2 is not a group of its own: %s" % groups)
    g = own[0]
    others = [x for x in groups if 2 not in x["ranks"]]
    print("version %s" % d["version"])
    print("rank 2: count %d, gap mean %d ns, duration mean %d ns" % (g["count"], g["compute_ns"][0], g["duration_ns"][0]))
    if g["compute_ns"][0] < 15e6:
        fail("rank 2's mean gap %d ns, expected >= 15 ms (it sleeps 20 ms)" % g["compute_ns"][0])
    for x in others:
        if x["compute_ns"][0] >= g["compute_ns"][0] / 2:
            fail("ranks %s have a gap close to rank 2's" % x["ranks"])
    print("rank 2 apart: ok")


def summarize(per_rank, unit):
    """per_rank: rank -> list of (name, start, end) top-level calls; unit:
    time units a second."""
    res = {}
    for r, calls in per_rank.items():
        writes = [(s, e) for n, s, e in calls if n == "MPI_File_write_at"]
        barrier = [(s, e) for n, s, e in calls if n == "MPI_Barrier"]
        if len(writes) != 4 or len(barrier) != 1:
            fail("rank %d: %d writes, %d barriers" % (r, len(writes), len(barrier)))
        opened = [e for n, s, e in calls if n == "MPI_File_open"]
        if len(opened) != 1:
            fail("rank %d: %d MPI_File_open" % (r, len(opened)))
        # The write phase: from the end of MPI_File_open (which takes each
        # rank its own time) to the end of the last write.
        res[r] = (max(e for _, e in writes) - opened[0], sum(e - s for s, e in writes) / 4,
                  barrier[0][1] - barrier[0][0])
    if sorted(res) != [0, 1, 2, 3]:
        fail("ranks %s" % sorted(res))
    slow, others = res[2], [res[r] for r in (0, 1, 3)]
    # Rank 2 sleeps 4 x 20 ms in its write phase (us in Chrome, ns in OTF2).
    if not (slow[0] > 2 * max(o[0] for o in others) and slow[0] - max(o[0] for o in others) > 60e-3 * unit):
        fail("rank 2's write phase %s, the others' %s" % (slow[0], [o[0] for o in others]))
    if not slow[1] > max(o[1] for o in others):
        fail("rank 2's mean write %s, the others' %s" % (slow[1], [o[1] for o in others]))
    if not min(o[2] for o in others) > slow[2]:
        fail("barrier: rank 2 %s, the others %s" % (slow[2], [o[2] for o in others]))
    print("rank 2's write phase is longest: ok")
    print("rank 2's writes last longest: ok")
    print("the others wait longest in the barrier: ok")


def check_chrome(path):
    d = json.load(open(path))
    per_rank = collections.defaultdict(list)
    for e in d["traceEvents"]:
        if e.get("ph") == "X" and "parent_seq" not in e["args"]:
            per_rank[e["tid"]].append((e["name"], e["ts"], e["ts"] + e["dur"]))
            if e["name"] == "MPI_File_write_at" and e["args"].get("timing_source") != "this rank":
                fail("a write's timing_source is %r" % e["args"].get("timing_source"))
    print("per_rank_timing: %s" % json.dumps(d["otherData"]["per_rank_timing"]))
    print("timing: %s" % d["otherData"]["timing"])
    summarize(per_rank, 1e6)


def check_otf2(path):
    per_rank = collections.defaultdict(list)
    open_ = {}
    depth = collections.Counter()
    for line in open(path):
        m = re.match(r'^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "([^"]*)"', line)
        if not m:
            continue
        kind, loc, t, name = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind == "ENTER":
            if depth[loc] == 0:
                open_[loc] = (name, t)
            depth[loc] += 1
        else:
            depth[loc] -= 1
            if depth[loc] == 0:
                per_rank[loc].append((name, open_[loc][1], t))
    summarize(per_rank, 1e9)


{"trace": check_trace, "chrome": check_chrome, "otf2": check_otf2}[sys.argv[1]](sys.argv[2])
