#!/bin/sh
# End-to-end overhead of tracing on an IOR-like run (bench/runtime-ior-like.cpp)
# and the per-call microbenchmark; prints Markdown for docs/runtime.md.
#   bench/runtime-overhead.sh [build-dir] [ranks] [MiB-per-rank] [xfer-KiB] [runs]
# Untraced: built with plain mpicxx.mpich. Traced: built with sio-cxx (with
# the plugin when it is built). Runs alternate; medians of `runs` each.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ranks=${2:-4}
mib=${3:-64}
xfer=${4:-64}
runs=${5:-5}
. "$src/bench/common.sh"
bench_workdir overhead
build_pair "$src/bench/runtime-ior-like.cpp"

run() { # exe -> "io_seconds wall_seconds"
  s=$(date +%s.%N)
  io=$(cd "$work" && SIO_TRACE_FILE="$work/t.json" mpiexec.mpich -n "$ranks" "$1" "$mib" "$xfer" "$work" |
       awk '/io_seconds/ {print $2}')
  e=$(date +%s.%N)
  echo "$io $(echo "$e - $s" | bc -l)"
}
: > "$work/plain.txt"; : > "$work/traced.txt"
i=0
while [ "$i" -lt "$runs" ]; do
  run "$work/plain" >> "$work/plain.txt"
  run "$work/traced" >> "$work/traced.txt"
  i=$((i + 1))
done
pio=$(cut -d' ' -f1 "$work/plain.txt" | median); tio=$(cut -d' ' -f1 "$work/traced.txt" | median)
pw=$(cut -d' ' -f2 "$work/plain.txt" | median); tw=$(cut -d' ' -f2 "$work/traced.txt" | median)
events=$("$build/bin/sio-trace" stats "$work/t.json" 2>/dev/null | head -3 | tr '\n' ' ' || true)
echo "ranks $ranks, $mib MiB per rank, $xfer KiB transfers, $runs runs each (median); trace: $events"
echo
echo "| run | untraced (s) | traced (s) | ratio |"
echo "| --- | --- | --- | --- |"
printf '| I/O phase (MPI_Wtime, rank 0) | %.3f | %.3f | %.4f |\n' "$pio" "$tio" "$(echo "$tio / $pio" | bc -l)"
printf '| whole mpiexec (wall) | %.3f | %.3f | %.4f |\n' "$pw" "$tw" "$(echo "$tw / $pw" | bc -l)"
# Each traced run against the untraced run just before it: the machine's drift
# over minutes cancels in the ratio of neighbours.
pair=$(paste -d' ' "$work/plain.txt" "$work/traced.txt" | awk '{print $3 / $1}' | median)
printf '| I/O phase, median of paired ratios | | | %.4f |\n' "$pair"
echo
echo "untraced runs (io wall):"; cat "$work/plain.txt"
echo "traced runs (io wall):"; cat "$work/traced.txt"
