#!/bin/sh
# Where the calling thread's per-call cost comes from: the paired pwrite,
# lseek and glibc-pwrite benchmarks (runtime/bench/overhead_bench.cpp) in three set-ups, run
# alternately `rounds` times, each with 3 repetitions of which the first is
# dropped (it faults in fresh buffer pages). Prints Markdown for docs/runtime.md.
#   bench/runtime-call-breakdown.sh [build-dir] [rounds]
#
#   single-threaded  SIO_DRAIN_THREAD=0 and a 1 M-record buffer: no hand-off,
#                    no drain thread, the process keeps one thread. What the
#                    wrapper itself costs.
#   multithreaded    the same plus an idle thread (SIO_BENCH_IDLE_THREAD=1): what
#                    being a multithreaded process adds (libc and kernel paths).
#   default          the drain thread converting and compressing records.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
rounds=${2:-3}
bench="$build/bin/sio-runtime-overhead-bench"
work=$(mktemp -d "${TMPDIR:-/tmp}/sio-breakdown.XXXXXX")
trap 'rm -rf "$work"' EXIT

run() { # setup-name env... -> lines "setup benchmark added_ns"
  name=$1; shift
  env "$@" SIO_BENCH_NO_MPI=1 SIO_TRACE_FILE="$work/t.sio.json" TMPDIR="$work" "$bench" \
    --benchmark_filter='Paired(Pwrite|Lseek|LibcPwrite)' --benchmark_repetitions=3 2>/dev/null |
    awk -v s="$name" '/iterations:[0-9]+ / {
        split($1, n, "/"); seen[n[1]]++
        if (seen[n[1]] == 1) next            # first repetition: fresh pages
        v = ""
        for (i = 2; i <= NF; i++) if ($i ~ /^added_ns=/) { sub("added_ns=", "", $i); v = $i }
        if (v == "") next
        if (v ~ /k$/) { sub("k", "", v); v *= 1000 }
        print s, n[1], v }'
}
i=0
while [ "$i" -lt "$rounds" ]; do
  run single-threaded SIO_DRAIN_THREAD=0 SIO_BUFFER_RECORDS=1048576 >> "$work/r.txt"
  run multithreaded SIO_DRAIN_THREAD=0 SIO_BUFFER_RECORDS=1048576 SIO_BENCH_IDLE_THREAD=1 >> "$work/r.txt"
  run default >> "$work/r.txt"
  i=$((i + 1))
done

echo "$rounds rounds x 2 repetitions per set-up, added ns per call (median of blocks); median [min-max]"
echo
echo "| set-up | pwrite | pwrite in a marker loop | lseek | glibc pwrite, no wrapper |"
echo "| --- | --- | --- | --- | --- |"
for s in single-threaded multithreaded default; do
  row="| $s"
  for b in BM_PairedPwrite BM_PairedPwriteInMarkerLoop BM_PairedLseek BM_PairedLibcPwrite; do
    cell=$(awk -v s="$s" -v b="$b" '$1 == s && $2 == b {print $3}' "$work/r.txt" | sort -n |
      awk '{a[NR] = $1} END {m = (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)
                             printf "%.0f [%.0f-%.0f]", m, a[1], a[NR]}')
    row="$row | $cell"
  done
  echo "$row |"
done
