#!/bin/sh
# Cost of tracing a marker-less nest (bench/runtime-nest.cpp, issue 15 item 2):
# untraced (plain mpicxx), traced without markers (the same binary under
# LD_PRELOAD of libsiotrace-rt.so) and traced with markers (sio-cxx with the
# plugin). Runs alternate; medians of `runs` each; prints Markdown.
#   bench/runtime-nest-overhead.sh [build-dir] [ranks] [steps] [cells] [cell-bytes] [runs]
# SIO_BENCH_RT=<libsiotrace-rt.so> preloads another build's runtime (A/B).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
ranks=${2:-2}
steps=${3:-64}
cells=${4:-1024}
cellb=${5:-512}
runs=${6:-5}
. "$src/bench/common.sh"
bench_workdir nest
rt="${SIO_BENCH_RT:-$build/lib/libsiotrace-rt.so}"
[ -f "$rt" ] || { echo "no $rt: build the runtime first" >&2; exit 1; }

mpicxx.mpich -O2 "$src/bench/runtime-nest.cpp" -o "$work/plain"
"$build/bin/sio-cxx" -O2 "$src/bench/runtime-nest.cpp" -o "$work/markers"

run() { # name exe [preload] -> appends "io cpu total_cpu" to $work/name.txt
  name=$1 exe=$2
  pre=
  [ $# -gt 2 ] && pre="-genv LD_PRELOAD $3"
  # shellcheck disable=SC2086
  (cd "$work" && SIO_TRACE_FILE="$work/$name.json" mpiexec.mpich $pre -n "$ranks" "$exe" "$steps" "$cells" "$cellb" "$work") |
    awk '/^io_seconds/ {io=$2} /^cpu_seconds/ {c=$2} /^total_cpu_seconds/ {t=$2} END {print io, c, t}' >> "$work/$name.txt"
}
: > "$work/plain.txt"; : > "$work/preload.txt"; : > "$work/markers.txt"
i=0
while [ "$i" -lt "$runs" ]; do
  run plain "$work/plain"
  run preload "$work/plain" "$rt"
  run markers "$work/markers"
  i=$((i + 1))
done
col() { cut -d' ' -f"$2" "$work/$1.txt" | median; }
echo "ranks $ranks, $steps steps x $cells cells of $cellb B per rank ($((steps * cells)) pwrite per rank), $runs runs each (median, rank 0)"
echo
echo "| run | I/O phase (s) | CPU in phase (s) | CPU total (s) | I/O ratio | CPU-in-phase ratio | trace (bytes) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
pio=$(col plain 1); pcpu=$(col plain 2)
for name in plain preload markers; do
  io=$(col $name 1); cpu=$(col $name 2); tot=$(col $name 3)
  size=-
  [ -f "$work/$name.json" ] && size=$(wc -c < "$work/$name.json")
  printf '| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n' "$name" "$io" "$cpu" "$tot" \
    "$(echo "$io / $pio" | bc -l)" "$(echo "$cpu / $pcpu" | bc -l)" "$size"
done
echo
for name in preload markers; do
  echo "$name trace:"
  "$build/bin/sio-trace" dump "$work/$name.json" | sed -n '/^ranks/,$p'
done
echo
for name in plain preload markers; do
  echo "$name runs (I/O phase, CPU in phase, CPU total):"
  cat "$work/$name.txt"
done
