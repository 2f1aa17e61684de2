"""Compares the computation gaps of a replay's trace with its original's.

check_gaps.py ORIGINAL REPLAY --min-ratio R | --max-ratio R

The traces have the same structure (their round trip is checked apart). The
sum of all gaps, and the mean gap of every non-inner event whose mean in
ORIGINAL is at least --long-ms (20 ms), must be at least R times the
original's in REPLAY (--min-ratio, time-accurate mode) or at most R times
(--max-ratio, fast-forward). --skip-first leaves the first event out: in
fast-forward its gap is the replay's set-up after MPI_Init, which ends at a
barrier and so waits for the slowest rank's MPI_Init. Prints each compared
value (a failed bound on stderr too) and exits 1 on a failed bound.
"""
import argparse
import json
import sys


def events(nodes):
    for node in nodes:
        if "loop" in node:
            yield from events(node["body"])
        elif not node.get("inner", False):
            yield node


def gaps(path):
    with open(path) as f:
        trace = json.load(f)
    out = []
    for event in events(trace["body"]):
        stats = event.get("compute", {})
        count = stats.get("count", 0)
        out.append((event["event"], stats.get("sum_ns", 0.0) / count if count else 0.0, stats.get("sum_ns", 0.0)))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("original")
    parser.add_argument("replay")
    bound = parser.add_mutually_exclusive_group(required=True)
    bound.add_argument("--min-ratio", type=float)
    bound.add_argument("--max-ratio", type=float)
    parser.add_argument("--long-ms", type=float, default=20.0)
    parser.add_argument("--skip-first", action="store_true")
    args = parser.parse_args()
    original, replay = gaps(args.original), gaps(args.replay)
    if [e[0] for e in original] != [e[0] for e in replay]:
        sys.exit("the traces' events differ: %s vs %s" % ([e[0] for e in original], [e[0] for e in replay]))
    first = 1 if args.skip_first else 0
    compared = [("total", sum(e[2] for e in original[first:]), sum(e[2] for e in replay[first:]))]
    compared += [("mean gap before %s #%d" % (o[0], i), o[1], r[1])
                 for i, (o, r) in enumerate(zip(original, replay)) if i >= first and o[1] >= args.long_ms * 1e6]
    if len(compared) < 2:
        sys.exit("no gap of at least %g ms in %s" % (args.long_ms, args.original))
    failed = False
    for what, o, r in compared:
        ok = r >= args.min_ratio * o if args.min_ratio is not None else r <= args.max_ratio * o
        line = "%s: original %.1f ms, replay %.1f ms" % (what, o / 1e6, r / 1e6)
        print(line if ok else line + "  <- out of bounds")
        if not ok:
            print("check_gaps: out of bounds: " + line, file=sys.stderr)
        failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
