#!/usr/bin/env python3
"""Checks sio-prefetch report lines (SIO_PREFETCH_REPORT=path):
  check_report.py REPORT --ranks N [--file NAME] [--min-hits F] [--max-wasted F]
                  [--max-prefetched F] [--min-total-hits F] [--max-late-reads F]
Lines of handles opened with sio_prefetch=disable are skipped. Every rank
must have a line for the file with no passthrough read, hits >= F
of its reads, wasted bytes <= F of the bytes it read, and prefetched bytes
<= F times the bytes it read; --min-total-hits F: hits of all ranks together
>= F of their reads; --max-late-reads F: bytes of reads that waited for
the prefetch thread <= F mean reads' worth on every rank. Prints one line per
rank and "ok" or the failures; exits 1 on a failure."""
import argparse
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("report")
ap.add_argument("--ranks", type=int, required=True)
ap.add_argument("--file", default=None)
ap.add_argument("--min-hits", type=float, default=0.0)
ap.add_argument("--max-wasted", type=float, default=1.0)
ap.add_argument("--max-prefetched", type=float, default=None)
ap.add_argument("--min-total-hits", type=float, default=None)
ap.add_argument("--max-late-reads", type=float, default=None)
a = ap.parse_args()

rows = {}
for line in open(a.report):
    m = re.match(r"sio-prefetch: rank (\d+) file (\S+) mode (\S+) (.*)", line)
    if not m or (a.file and not m.group(2).endswith(a.file)) or "disabled: sio_prefetch=disable" in line:
        continue  # (a reference handle opened with prefetching off)
    nums = dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", m.group(4)))
    rows[int(m.group(1))] = (m.group(3), nums)

bad = []
total_reads = total_hits = 0
for r in range(a.ranks):
    if r not in rows:
        bad.append("rank %d: no report line" % r)
        continue
    mode, n = rows[r]
    read = n["hit_bytes"] + n["miss_bytes"]
    hits = n["hits"] / n["reads"] if n["reads"] else 0.0
    wasted = n["wasted_bytes"] / read if read else 1.0
    prefetched = n["prefetched_bytes"] / read if read else 0.0
    total_reads += n["reads"]
    total_hits += n["hits"]
    print("rank %d mode %s reads %d hits %d passthrough %d wasted %.3f prefetched %.3f of %d bytes read"
          % (r, mode, n["reads"], n["hits"], n["passthrough"], wasted, prefetched, read))
    if a.max_prefetched is not None and prefetched > a.max_prefetched:
        bad.append("rank %d: prefetched %.3f x the bytes read > %.3f" % (r, prefetched, a.max_prefetched))
    if n["passthrough"]:
        bad.append("rank %d: %d reads passed through" % (r, n["passthrough"]))
    if hits < a.min_hits:
        bad.append("rank %d: hits %.2f of reads < %.2f" % (r, hits, a.min_hits))
    late = n["late_bytes"] / (read / n["reads"]) if read and n["reads"] else 0.0
    if a.max_late_reads is not None and late > a.max_late_reads:
        bad.append("rank %d: %.2f reads' worth of late bytes > %.2f" % (r, late, a.max_late_reads))
    if wasted > a.max_wasted:
        bad.append("rank %d: wasted %.3f of bytes read > %.3f" % (r, wasted, a.max_wasted))
if a.min_total_hits is not None and total_reads and total_hits / total_reads < a.min_total_hits:
    bad.append("all ranks: hits %d of %d reads < %.3f" % (total_hits, total_reads, a.min_total_hits))
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
