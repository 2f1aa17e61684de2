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
#             default partition count (choosePartitionCount: on these slow
#             targets min(targets selected, ranks))
#   probed-k7 with fewer than 7 ranks only: as probed with nc_num_partitions=7,
#             one partition per selected target (the default before
#             min(selected, ranks))
# Runs the three alternately REPS times and prints the medians, the speed-up
# over plain, and the probe's share of the probed write.
#   bench/partitioning.sh [BUILD_DIR] [RANKS] [N] [REPS] [FAST_RATE] [SLOW_RATE]
#
# SIO_BENCH_WORKLOAD picks the program (Son et al. 2013 §IV evaluated the
# last two):
#   collperf  (default) bench/partition-collperf.c, the modes above
#   s3d       bench/partition-s3d.c: S3D-I/O's four arrays, yspecies(11,z,y,x),
#             u(3,z,y,x) (short leading dimension), pressure and temp, an N^3
#             block per rank of a 3-D decomposition, iput + wait_all
#   flash     PnetCDF's own FLASH-IO benchmark (build/pnetcdf/bin, built
#             unchanged by scripts/build-pnetcdf.sh; N is not used: its size
#             is fixed, 80-82 blocks of 8^3 x 24 doubles per rank, three
#             files), hints through PNETCDF_HINTS, libsio-pnetcdf preloaded;
#             its time is its own (the three files' create to close)
# For s3d and flash the modes are plain, what a user would tune instead on
# the unpartitioned file, ROMIO's collective buffering with every rank
# allowed as aggregator (cb_config_list *:*) and cb_nodes = 2 or 4 (cb2,
# cb4; given through a ROMIO_HINTS file, so FLASH-IO is not changed), and
# probed; the summary compares probed with the best of plain, cb2 and cb4.
# flash also runs probed-every: probed with sio_part_probe_lifetime=0, a probe
# for each of its three files (the behaviour before probes were reused).
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
workload="${SIO_BENCH_WORKLOAD:-collperf}"
case "$workload" in
  collperf | s3d)
    mpicc.mpich -O2 -I"$build/pnetcdf/include" -I"$src/pnetcdf-ext/include" "$src/bench/partition-$workload.c" \
      -o "$work/$workload" "$build/lib/libsio-pnetcdf.so" "$build/pnetcdf/lib/libpnetcdf.so" \
      -Wl,-rpath,"$build/lib:$build/pnetcdf/lib"
    ;;
  flash)
    [ -x "$build/pnetcdf/bin/flash_benchmark_io" ] || {
      echo "no $build/pnetcdf/bin/flash_benchmark_io: $(cat "$build/pnetcdf/fortran.txt" 2>/dev/null)" >&2
      exit 1
    }
    ;;
  *) echo "SIO_BENCH_WORKLOAD: collperf, s3d or flash, not '$workload'" >&2 && exit 2 ;;
esac
for cb in 2 4; do printf 'cb_config_list *:*\ncb_nodes %s\n' "$cb" >"$work/cb$cb.hints"; done
export LD_PRELOAD="$build/lib/libsio-throttle.so" SIO_THROTTLE="$throttle"

run() { # MODE FILE HINTS...
  local mode="$1" file="$2"
  shift 2
  rm -f "$work"/report.txt "$work"/stripe/* "$work"/t*/*.nc*
  local romio=()
  case "$mode" in cb*) romio=(ROMIO_HINTS="$work/$mode.hints") ;; esac
  if [ "$workload" = flash ]; then
    local hints
    hints="$(IFS=';' && echo "$*")"
    env "${romio[@]}" PNETCDF_HINTS="$hints" SIO_PART_REPORT="$work/report.txt" \
      LD_PRELOAD="$LD_PRELOAD $build/lib/libsio-pnetcdf.so" \
      mpiexec.mpich -n "$ranks" "$build/pnetcdf/bin/flash_benchmark_io" "${file%.nc}." >"$work/flash.out"
    # Its own report: the total MiB and the seconds of the bandwidth row.
    python3 - "$work/flash.out" >"$work/out.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
mib = float(re.search(r"Total I/O amount\s*:\s*([0-9.]+)", t).group(1))
row = re.search(r"bandwidth \(MiB/s\)\s*\n\s*\d+\s+\d+ x\s+\d+ x\s+\d+\s+([0-9.]+)", t)
print("bytes %d seconds %s" % (mib * 2**20, row.group(1)))
PY
  else
    env "${romio[@]}" SIO_PART_REPORT="$work/report.txt" \
      mpiexec.mpich -n "$ranks" "$work/$workload" "$file" "$n" "$@" >"$work/out.txt"
  fi
  local probe=0 sel="" parts=""
  if [ -f "$work/report.txt" ]; then
    # One probe per file (FLASH-IO writes three): their times add up.
    probe=$(sed -n 's/.*bytes each, [0-9]* rounds, \([0-9.]*\) s; selected \([0-9]*\).*/\1/p' "$work/report.txt" |
      awk '{ s += $1 } END { print s + 0 }')
    sel=$(sed -n 's/.*; selected \([0-9]*\).*/\1/p' "$work/report.txt" | sort -u | paste -sd/)
    parts=$(sed -n 's/.*: \([0-9]*\) partitions, .*/\1/p' "$work/report.txt" | sort -u | paste -sd/)
    cat "$work/report.txt" >>"$build/bench-partitioning-reports.txt"
  fi
  echo "$mode $(cat "$work/out.txt") probe ${probe:-0} selected ${sel:-1} partitions ${parts:-1}" |
    tee -a "$build/bench-partitioning.txt"
}

: >"$build/bench-partitioning.txt"
: >"$build/bench-partitioning-reports.txt"
for i in $(seq 1 "$reps"); do
  if [ "$workload" = collperf ]; then
    run plain "$work/stripe/plain.nc"
    run all "$work/t0/all.nc" nc_partitioning_enabled=true sio_part_targets="$targets" sio_part_threshold=-99% \
      nc_num_partitions=8
    run probed "$work/t0/probed.nc" nc_partitioning_enabled=true sio_part_targets="$targets"
    if [ "$ranks" -lt 7 ]; then
      run probed-k7 "$work/t0/probed.nc" nc_partitioning_enabled=true sio_part_targets="$targets" nc_num_partitions=7
    fi
  else
    run plain "$work/stripe/plain.nc"
    run cb2 "$work/stripe/plain.nc"
    run cb4 "$work/stripe/plain.nc"
    run probed "$work/t0/probed.nc" nc_partitioning_enabled=true sio_part_targets="$targets"
    if [ "$workload" = flash ]; then
      run probed-every "$work/t0/probed.nc" nc_partitioning_enabled=true sio_part_targets="$targets" \
        sio_part_probe_lifetime=0
    fi
  fi
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$build/bench-partitioning.txt"
done
python3 - "$build/bench-partitioning.txt" "$ranks" "$n" "$fast" "$slow" "$workload" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
loads = [float(r[1]) for r in rows if r[0] == "load"]
rows = [r for r in rows if r[0] != "load"]
ranks, n, fast, slow, workload = sys.argv[2:7]
med = {}
what = {"collperf": "%s^3 ints per rank and variable, 4 variables" % n,
        "s3d": "S3D kind, %s^3 points per rank, yspecies(11,...), u(3,...), pressure, temp" % n,
        "flash": "PnetCDF's FLASH-IO, 3 files"}[workload]
print("%s: ranks %s, %s; targets %s MiB/s, one %s MiB/s; 1-min load after each round %s" % (
    workload, ranks, what, fast, slow, "/".join("%.0f" % l for l in loads)))
print("| mode | runs | MiB written | median s | median MiB/s | vs plain | median probe s | probe share | targets | partitions |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for mode in ("plain", "cb2", "cb4", "all", "probed", "probed-k7", "probed-every"):
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
if "probed" in med and "cb2" in med:
    best = max(("plain", "cb2", "cb4"), key=lambda m: med.get(m, 0))
    print("probed vs the best unpartitioned (%s): %.2fx (goal 1.5x)" % (best, med["probed"] / med[best]))
    if "probed-every" in med:
        print("probed-every vs the best unpartitioned (%s): %.2fx" % (best, med["probed-every"] / med[best]))
PY
