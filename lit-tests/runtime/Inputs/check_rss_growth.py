#!/usr/bin/env python3
"""The peak RSS growth of a traced run over the untraced one
(lit-tests/runtime/random-writes-rss.test).

  check_rss_growth.py PLAIN_OUT TRACED_OUT CALLS LIMIT_MB

Each output has a line `rank R io_seconds S maxrss_kb K` per rank
(bench/runtime-random-writes.cpp); the peak is the largest rank's. Prints
the growth per 10^6 calls of a rank and whether it is within LIMIT_MB;
exit 1 when it is not (or a rank's line is missing)."""
import re
import sys


def peak_kib(path):
    with open(path) as f:
        rss = [int(m.group(1)) for m in re.finditer(r"maxrss_kb (\d+)", f.read())]
    if not rss:
        sys.exit("%s: no maxrss_kb line" % path)
    return max(rss)


def main():
    plain, traced, calls, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    growth = (peak_kib(traced) - peak_kib(plain)) / 1024 * 1e6 / calls
    ok = growth <= limit
    print("peak RSS growth %.1f MB per 10^6 calls: %s %g MB" % (growth, "within" if ok else "NOT within", limit))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
