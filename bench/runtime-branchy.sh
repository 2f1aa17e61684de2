#!/bin/sh
# Loops that branch on data (lit-tests/runtime/Inputs/branchy.cpp): the
# choice runs of docs/runtime.md, "Loops that branch".
#   bench/runtime-branchy.sh [build-dir] [ranks] [iterations] [runs] [modes]
# For each mode (default "optional three"), rounds of: untraced (plain
# mpicxx.mpich), traced (sio-cxx), and, if SIO_BENCH_BASE_RT names another
# build's libsiotrace-rt.so (main, say), the same traced binary run with
# that library instead. Prints Markdown: the untraced I/O phase (median),
# the median of each round's traced/untraced ratio, trace bytes per call and
# peak RSS (the largest process mpiexec waited for, from /usr/bin/time).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ranks=${2:-1}
iterations=${3:-200000}
runs=${4:-5}
modes=${5:-optional three}
base=${SIO_BENCH_BASE_RT:-}
. "$src/bench/common.sh"
bench_workdir branchy
build_pair "$src/lit-tests/runtime/Inputs/branchy.cpp"

run() { # exe mode [library dir] -> "io_seconds calls rss_kb" (io: max over ranks)
  libdir=${3:-}
  out=$(cd "$work" && env ${libdir:+LD_LIBRARY_PATH=$libdir} SIO_TRACE_FILE="$work/t.json" \
    /usr/bin/time -f "rss %M" mpiexec.mpich -n "$ranks" "$1" "$2" "$iterations" "$work" 2>&1)
  io=$(echo "$out" | awk '/io_seconds/ {if ($NF > m) m = $NF} END {print m}')
  calls=$(echo "$out" | awk '/io_seconds/ {c += $4 + $6 + $8} END {print c}')
  rss=$(echo "$out" | awk '/^rss/ {print $2}')
  echo "$io $calls $rss"
}
ratio() { paste -d' ' "$1" "$2" | awk '{print $1 / $4}' | median; }

echo "| mode | untraced I/O (s) | traced / untraced | bytes a call | peak RSS untraced / traced (MB) |${base:+ base traced / untraced | base bytes a call | base peak RSS (MB) |}"
echo "| --- | --- | --- | --- | --- |${base:+ --- | --- | --- |}"
for mode in $modes; do
  : > "$work/plain.txt"; : > "$work/traced.txt"; : > "$work/base.txt"
  i=0
  while [ "$i" -lt "$runs" ]; do
    run "$work/plain" "$mode" >> "$work/plain.txt"
    run "$work/traced" "$mode" >> "$work/traced.txt"
    size=$(stat -c %s "$work/t.json")
    if [ -n "$base" ]; then
      run "$work/traced" "$mode" "$(dirname "$base")" >> "$work/base.txt"
      bsize=$(stat -c %s "$work/t.json")
    fi
    i=$((i + 1))
  done
  calls=$(head -1 "$work/plain.txt" | cut -d' ' -f2)
  line="| $mode | $(cut -d' ' -f1 "$work/plain.txt" | median) | $(ratio "$work/traced.txt" "$work/plain.txt")"
  line="$line | $(echo "$size / $calls" | bc -l | xargs printf '%.1f')"
  line="$line | $(cut -d' ' -f3 "$work/plain.txt" | median | awk '{printf "%.0f", $1 / 1024}') / $(cut -d' ' -f3 "$work/traced.txt" | median | awk '{printf "%.0f", $1 / 1024}') |"
  if [ -n "$base" ]; then
    line="$line $(ratio "$work/base.txt" "$work/plain.txt") | $(echo "$bsize / $calls" | bc -l | xargs printf '%.1f')"
    line="$line | $(cut -d' ' -f3 "$work/base.txt" | median | awk '{printf "%.0f", $1 / 1024}') |"
  fi
  echo "$line"
done
echo
echo "host: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); ranks $ranks, iterations $iterations, runs $runs; $(date -u '+%Y-%m-%d %H:%M UTC')"
