#!/bin/sh
# Where the calling thread's per-call cost comes from: the paired pwrite,
# lseek and glibc-pwrite benchmarks (runtime/bench/overhead_bench.cpp) in four
# set-ups, run alternately `rounds` times, each with 3 repetitions of which
# the first is dropped (it faults in fresh buffer pages). Prints Markdown for
# docs/runtime.md.
#   bench/runtime-call-breakdown.sh [build-dir] [rounds]
#
#   single-threaded  SIO_DRAIN_THREAD=0 and a 1 M-record buffer: no hand-off,
#                    no conversion during the run, the process keeps one
#                    thread. What the wrapper itself costs.
#   multithreaded    the same plus an idle thread (SIO_BENCH_IDLE_THREAD=1): what
#                    being a multithreaded process adds (libc and kernel paths).
#   no drain thread  SIO_DRAIN_THREAD=0 with the default buffer (the default
#                    since issue 20 item 2): the calling thread converts and
#                    compresses a block of 2048 records when it fills.
#   drain thread     SIO_DRAIN_THREAD=1: a helper thread converts and
#                    compresses, off the calling thread.
#
# Two tables: the median of blocks (the calling thread's cost per call, the
# blocks without a batch conversion), and per call on average: the mean
# over blocks (batch conversions included) and the drain thread's CPU time.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
rounds=${2:-3}
bench="$build/bench/bin/sio-runtime-overhead-bench"
work=$(mktemp -d "${TMPDIR:-/tmp}/sio-breakdown.XXXXXX")
trap 'rm -rf "$work"' EXIT

run() { # setup-name env... -> lines "setup benchmark added_ns added_mean_ns drain_ns raw_ns"
  name=$1; shift
  env "$@" SIO_BENCH_NO_MPI=1 SIO_TRACE_FILE="$work/t.sio.json" TMPDIR="$work" "$bench" \
    --benchmark_filter='Paired(Pwrite|Lseek|LibcPwrite)' --benchmark_repetitions=3 2>/dev/null |
    awk -v s="$name" 'function val(v) { if (v ~ /k$/) { sub("k", "", v); v *= 1000 }; return v }
      /iterations:[0-9]+ / {
        split($1, n, "/"); seen[n[1]]++
        if (seen[n[1]] == 1) next            # first repetition: fresh pages
        a = ""; m = ""; d = ""; r = ""
        for (i = 2; i <= NF; i++) {
          f = $i
          if (f ~ /^added_ns=/) { sub("added_ns=", "", f); a = val(f) }
          else if (f ~ /^added_mean_ns=/) { sub("added_mean_ns=", "", f); m = val(f) }
          else if (f ~ /^drain_ns=/) { sub("drain_ns=", "", f); d = val(f) }
          else if (f ~ /^raw_ns=/) { sub("raw_ns=", "", f); r = val(f) }
        }
        if (a == "") next
        print s, n[1], a, m, d, r }'
}
i=0
while [ "$i" -lt "$rounds" ]; do
  run single-threaded SIO_DRAIN_THREAD=0 SIO_BUFFER_RECORDS=1048576 >> "$work/r.txt"
  run multithreaded SIO_DRAIN_THREAD=0 SIO_BUFFER_RECORDS=1048576 SIO_BENCH_IDLE_THREAD=1 >> "$work/r.txt"
  run no-drain-thread SIO_DRAIN_THREAD=0 >> "$work/r.txt"
  run drain-thread SIO_DRAIN_THREAD=1 >> "$work/r.txt"
  i=$((i + 1))
done

cell() { # setup benchmark column -> "median [min-max]"
  awk -v s="$1" -v b="$2" -v c="$3" '$1 == s && $2 == b {print $c}' "$work/r.txt" | sort -g |
    awk '{a[NR] = $1} END {if (!NR) {printf "-"; exit}
                           m = (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)
                           printf "%.0f [%.0f-%.0f]", m, a[1], a[NR]}'
}
echo "$rounds rounds x 2 repetitions per set-up; median [min-max] over the runs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Added ns per call over the raw syscall(), median of blocks:"
echo
echo "| set-up | pwrite | pwrite in a marker loop | lseek | glibc pwrite, no wrapper |"
echo "| --- | --- | --- | --- | --- |"
for s in single-threaded multithreaded no-drain-thread drain-thread; do
  row="| $s"
  for b in BM_PairedPwrite BM_PairedPwriteInMarkerLoop BM_PairedLseek BM_PairedLibcPwrite; do
    row="$row | $(cell "$s" "$b" 3)"
  done
  echo "$row |"
done
echo
echo "Per call on average (ns): added on the calling thread (mean of blocks, batch conversions included), the drain thread's CPU time, the raw call:"
echo
echo "| set-up | pwrite: mean added | drain thread | raw | marker loop: mean added | drain thread | raw |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for s in no-drain-thread drain-thread; do
  row="| $s"
  for b in BM_PairedPwrite BM_PairedPwriteInMarkerLoop; do
    row="$row | $(cell "$s" "$b" 4) | $(cell "$s" "$b" 5) | $(cell "$s" "$b" 6)"
  done
  echo "$row |"
done
