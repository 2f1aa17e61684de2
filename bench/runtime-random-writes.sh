#!/bin/sh
# The random small-write benchmark of issue 20 (bench/runtime-random-writes.cpp):
# each rank does CALLS one-byte pwrite()s at random offsets within 100 kB.
#   bench/runtime-random-writes.sh [build-dir] [ranks] [calls] [runs]
# Untraced: plain mpicxx.mpich; traced: sio-cxx (with the plugin when built).
# Runs alternate untraced/traced; medians of `runs` each. Prints Markdown:
# I/O phase and whole-run wall ratios, trace bytes per call, and the peak
# RSS (max over ranks, after MPI_Finalize, so trace writing included).
# Two more programs run in each round, to show where the traced time goes:
# the untraced program with bench/timestamp-floor.c preloaded (two clock
# reads around the real call, nothing recorded: the floor of any tracer that
# times calls) and the traced program with SIO_MEMORY_CAP=1 (sio's wrappers
# run in full but drop every record past the first block: no conversion, no
# compression). A fifth runs the untraced binary with libsiotrace-rt
# preloaded, as for a program built without the plugin (loops found on line).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ranks=${2:-1}
calls=${3:-1000000}
runs=${4:-5}
. "$src/bench/common.sh"
bench_workdir random
build_pair "$src/bench/runtime-random-writes.cpp"
clang-19 -O2 -shared -fPIC "$src/bench/timestamp-floor.c" -o "$work/timestamp-floor.so" -ldl

run() { # exe [VAR=value...] [-genv VAR value] -> "io_seconds wall_seconds maxrss_kb io_cpu_seconds" (io, rss, cpu: max over ranks)
  exe=$1
  shift
  vars=""
  genv=""
  while [ $# -gt 0 ]; do
    case $1 in
    -genv) genv="$genv -genv $2 $3"; shift 3 ;;
    *) vars="$vars $1"; shift ;;
    esac
  done
  s=$(date +%s.%N)
  # shellcheck disable=SC2086 # word splitting of the collected settings is wanted
  out=$(cd "$work" && env SIO_TRACE_FILE="$work/t.json" $vars mpiexec.mpich $genv -n "$ranks" "$exe" "$calls" "$work")
  e=$(date +%s.%N)
  io=$(echo "$out" | awk '/io_seconds/ {if ($4 > m) m = $4} END {print m}')
  rss=$(echo "$out" | awk '/maxrss_kb/ {if ($6 > m) m = $6} END {print m}')
  cpu=$(echo "$out" | awk '/io_cpu_seconds/ {if ($8 > m) m = $8} END {print m}')
  echo "$io $(echo "$e - $s" | bc -l) $rss $cpu"
}
: > "$work/plain.txt"; : > "$work/traced.txt"; : > "$work/stamps.txt"; : > "$work/wrapper.txt"; : > "$work/preload.txt"
i=0
while [ "$i" -lt "$runs" ]; do
  run "$work/plain" >> "$work/plain.txt"
  run "$work/plain" -genv LD_PRELOAD "$work/timestamp-floor.so" >> "$work/stamps.txt"
  run "$work/traced" SIO_MEMORY_CAP=1 SIO_TRACE_FILE="$work/capped.json" >> "$work/wrapper.txt"
  run "$work/plain" SIO_TRACE_FILE="$work/preload.json" -genv LD_PRELOAD "$build/lib/libsiotrace-rt.so" >> "$work/preload.txt"
  run "$work/traced" >> "$work/traced.txt"
  i=$((i + 1))
done
col() { cut -d' ' -f"$1" "$2" | median; }
pio=$(col 1 "$work/plain.txt"); tio=$(col 1 "$work/traced.txt")
pw=$(col 2 "$work/plain.txt"); tw=$(col 2 "$work/traced.txt")
prss=$(col 3 "$work/plain.txt"); trss=$(col 3 "$work/traced.txt")
bytes=$(wc -c < "$work/t.json")
total=$((calls * ranks))
echo "ranks $ranks, $calls calls per rank, $runs alternating runs each (medians)"
echo
echo "| measure | untraced | traced | ratio / growth |"
echo "| --- | --- | --- | --- |"
printf '| I/O phase (s, slowest rank) | %.3f | %.3f | %.3f |\n' "$pio" "$tio" "$(echo "$tio / $pio" | bc -l)"
printf '| whole mpiexec (s) | %.3f | %.3f | %.3f |\n' "$pw" "$tw" "$(echo "$tw / $pw" | bc -l)"
pair=$(paste -d' ' "$work/plain.txt" "$work/traced.txt" | awk '{print $5 / $1}' | median)
printf '| I/O phase, median of paired ratios | | | %.3f |\n' "$pair"
pcpu=$(col 4 "$work/plain.txt"); tcpu=$(col 4 "$work/traced.txt")
cpair=$(paste -d' ' "$work/plain.txt" "$work/traced.txt" | awk '{print $8 / $4}' | median)
printf '| I/O phase CPU time (s, slowest rank) | %.3f | %.3f | %.3f |\n' "$pcpu" "$tcpu" "$(echo "$tcpu / $pcpu" | bc -l)"
printf '| I/O phase CPU time, median of paired ratios | | | %.3f |\n' "$cpair"
paired() { paste -d' ' "$work/plain.txt" "$1" | awk '{print $5 / $1}' | median; }
printf '| I/O phase, timestamps only (timestamp-floor.so), paired | | %.3f | %.3f |\n' \
  "$(col 1 "$work/stamps.txt")" "$(paired "$work/stamps.txt")"
printf '| I/O phase, sio wrappers recording nothing (SIO_MEMORY_CAP=1), paired | | %.3f | %.3f |\n' \
  "$(col 1 "$work/wrapper.txt")" "$(paired "$work/wrapper.txt")"
printf '| I/O phase, untraced binary with libsiotrace-rt preloaded (no plugin), paired | | %.3f | %.3f |\n' \
  "$(col 1 "$work/preload.txt")" "$(paired "$work/preload.txt")"
printf '| peak RSS, preloaded (MB, largest rank) | | %.1f | +%.1f MB per 10^6 calls of a rank |\n' \
  "$(echo "$(col 3 "$work/preload.txt") / 1024" | bc -l)" \
  "$(echo "($(col 3 "$work/preload.txt") - $prss) / 1024 * 1000000 / $calls" | bc -l)"
printf '| peak RSS (MB, largest rank) | %.1f | %.1f | +%.1f MB per 10^6 calls of a rank |\n' \
  "$(echo "$prss / 1024" | bc -l)" "$(echo "$trss / 1024" | bc -l)" \
  "$(echo "($trss - $prss) / 1024 * 1000000 / $calls" | bc -l)"
printf '| trace (bytes) | | %d | %.2f bytes per call |\n' "$bytes" "$(echo "$bytes / $total" | bc -l)"
echo
"$build/bin/sio-trace" stats "$work/t.json" | head -8
echo
echo "untraced runs (io wall rss_kb io_cpu):"; cat "$work/plain.txt"
echo "traced runs (io wall rss_kb io_cpu):"; cat "$work/traced.txt"
echo "timestamps-only runs (io wall rss_kb io_cpu):"; cat "$work/stamps.txt"
echo "recording-nothing runs (io wall rss_kb io_cpu):"; cat "$work/wrapper.txt"
echo "preloaded runs (io wall rss_kb io_cpu):"; cat "$work/preload.txt"
