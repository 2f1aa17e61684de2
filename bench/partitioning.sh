#!/usr/bin/env bash
# Benchmark of pnetcdf-ext (docs/partitioning.md, "Benchmark"): write
# bandwidth of a coll_perf-style program (Son et al. 2013 §IV-A) over 8
# storage targets throttled with libsio-throttle.so, one of them 4x slower:
#   plain     unpartitioned file, in a directory throttled at 8 x the slow
#             rate: a file striped round-robin over the 8 targets, where every
#             stripe row waits for the slow target (the paper's §II premise)
#   all       partitioned on all 8 targets (threshold -99 %: nothing excluded;
#             nc_num_partitions=8)
#   probed    partitioned on the targets the probe selects (default -15 %),
#             default partition count: min(targets selected, ranks)
#   probed-k7 with fewer than 7 ranks only: as probed with nc_num_partitions=7,
#             one partition per selected target (the default before
#             min(selected, ranks))
# Runs the three alternately REPS times and prints the medians, the speed-up
# over plain, and the probe's share of the probed write.
#   bench/partitioning.sh [BUILD_DIR] [RANKS] [N] [REPS] [FAST_RATE] [SLOW_RATE]
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
ranks="${2:-4}" n="${3:-256}" reps="${4:-5}" fast="${5:-64}" slow="${6:-16}"
stripe=$((8 * slow))
# The targets live in memory (/dev/shm, SIO_BENCH_DIR): the throttle, not the
# machine's disk (shared, and slower than 8 targets together), sets the pace.
# tmpfs refuses O_DIRECT, so the probe writes through the page cache there.
work="${SIO_BENCH_DIR:-/dev/shm/sio-bench-partitioning-$$}"
trap 'rm -rf "$work"' EXIT
rm -rf "$work" && mkdir -p "$work/stripe"
for t in 0 1 2 3 4 5 6 7; do mkdir -p "$work/t$t"; done
throttle="$work/stripe:${stripe}M"
targets=""
for t in 0 1 2 3 4 5 6 7; do
  rate=$fast
  [ "$t" -eq 5 ] && rate=$slow # the slow target, in the middle of the list
  throttle="$throttle,$work/t$t:${rate}M"
  targets="${targets:+$targets,}$work/t$t"
done
mpicc.mpich -O2 -I"$build/pnetcdf/include" -I"$src/pnetcdf-ext/include" "$src/bench/partition-collperf.c" -o "$work/collperf" \
  "$build/lib/libsio-pnetcdf.so" "$build/pnetcdf/lib/libpnetcdf.so" -Wl,-rpath,"$build/lib:$build/pnetcdf/lib"
export LD_PRELOAD="$build/lib/libsio-throttle.so" SIO_THROTTLE="$throttle"

run() { # MODE FILE HINTS...
  local mode="$1" file="$2"
  shift 2
  rm -f "$work"/report.txt "$work"/stripe/* "$work"/t*/*.nc*
  SIO_PART_REPORT="$work/report.txt" mpiexec.mpich -n "$ranks" "$work/collperf" "$file" "$n" "$@" >"$work/out.txt"
  local probe=0 sel="" parts=""
  if [ -f "$work/report.txt" ]; then
    probe=$(sed -n 's/.*bytes each, [0-9]* rounds, \([0-9.]*\) s; selected \([0-9]*\).*/\1/p' "$work/report.txt")
    sel=$(sed -n 's/.*; selected \([0-9]*\).*/\1/p' "$work/report.txt")
    parts=$(sed -n 's/.*: \([0-9]*\) partitions, .*/\1/p' "$work/report.txt")
  fi
  echo "$mode $(cat "$work/out.txt") probe ${probe:-0} selected ${sel:-1} partitions ${parts:-1}" |
    tee -a "$build/bench-partitioning.txt"
}

: >"$build/bench-partitioning.txt"
for i in $(seq 1 "$reps"); do
  run plain "$work/stripe/plain.nc"
  run all "$work/t0/all.nc" nc_partitioning_enabled=true sio_part_targets="$targets" sio_part_threshold=-99% \
    nc_num_partitions=8
  run probed "$work/t0/probed.nc" nc_partitioning_enabled=true sio_part_targets="$targets"
  if [ "$ranks" -lt 7 ]; then
    run probed-k7 "$work/t0/probed.nc" nc_partitioning_enabled=true sio_part_targets="$targets" nc_num_partitions=7
  fi
done
python3 - "$build/bench-partitioning.txt" "$ranks" "$n" "$fast" "$slow" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
ranks, n, fast, slow = sys.argv[2:6]
med = {}
print("ranks %s, %s^3 ints per rank and variable, 4 variables; targets %s MiB/s, one %s MiB/s" % (ranks, n, fast, slow))
print("| mode | runs | MiB written | median s | median MiB/s | vs plain | median probe s | probe share | targets | partitions |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for mode in ("plain", "all", "probed", "probed-k7"):
    r = [x for x in rows if x[0] == mode]
    if not r:
        continue
    secs = statistics.median(float(x[4]) for x in r)
    mib = int(r[0][2]) / 2**20
    probe = statistics.median(float(x[6]) for x in r)
    sel = sorted(set(x[8] for x in r))
    parts = sorted(set(x[10] for x in r))
    med[mode] = mib / secs
    print("| %s | %d | %.0f | %.3f | %.1f | %.2fx | %.3f | %.1f %% | %s | %s |" % (
        mode, len(r), mib, secs, mib / secs, (mib / secs) / med["plain"], probe, 100 * probe / secs, "/".join(sel),
        "/".join(parts)))
PY
