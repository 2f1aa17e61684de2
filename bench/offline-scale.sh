#!/bin/sh
# Cost of the offline tools at scale (issue 17 item 1): traces
# lit-tests/runtime/ior.cpp at 4, 8, 12 and 16 ranks, extrapolates to 1,024,
# 65,536 and 1,048,576 ranks and times sio-extrap, sio-trace stats,
# sio-trace dump, sio-signature and sio-extrap --emit-replay on each; then
# the same for sio-signature on lit-tests/signature/Inputs/neighbor.c, whose
# offsets hold `(rank + 1) % nranks` (issue 32): median
# wall time of RUNS runs (ms clock around /usr/bin/time), peak RSS from
# /usr/bin/time. Prints a Markdown
# table (with the machine, date and command) for docs/scale.md.
#   bench/offline-scale.sh [build-dir] [runs]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
runs=${2:-5}
. "$src/bench/common.sh"
bin=$build/bin
bench_workdir scale
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)

cd "$work"
sio_cxx -O1 "$src/lit-tests/runtime/ior.cpp" -o ior
for n in 4 8 12 16; do
  SIO_TRACE_FILE=s$n.json "$mpiexec" -n $n ./ior >/dev/null
done
if [ -f "$build/lib/siotrace.so" ]; then
  "$bin/sio-cc" -O1 "$src/lit-tests/signature/Inputs/neighbor.c" -o neighbor
else
  "$bin/sio-cc" --sio-no-plugin -O1 "$src/lit-tests/signature/Inputs/neighbor.c" -o neighbor
fi
for n in 4 8 12 16; do
  SIO_TRACE_FILE=n$n.json "$mpiexec" -n $n ./neighbor >/dev/null 2>&1
done

# median wall seconds and max peak RSS (MB) of a command over $runs runs
measure() {
  : >times
  i=0
  while [ $i -lt "$runs" ]; do
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o one "$@" >/dev/null
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000)) $(cat one)" >>times
    i=$((i + 1))
  done
  sort -n times | awk '{t[NR]=$1; if ($2>m) m=$2} END {printf "%.3f s, %.1f MB", t[int((NR+1)/2)]/1000, m/1024}'
}

echo "Machine: $(uname -sm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
echo "load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC'); median of $runs runs."
echo "Command: bench/offline-scale.sh $build $runs; traces of lit-tests/runtime/ior.cpp at 4/8/12/16 ranks"
echo "($(wc -c <s4.json)-$(wc -c <s16.json) bytes)."
echo
echo "| ranks | trace | sio-extrap (4 traces) | sio-trace stats | sio-trace dump | sio-signature | --emit-replay |"
echo "| ---: | ---: | --- | --- | --- | --- | --- |"
for n in 1024 65536 1048576; do
  # sio-extrap refuses what it cannot extrapolate (reads' results beyond the
  # ranks it simulates): the row says so and the other sizes still run.
  if ! "$bin/sio-extrap" s4.json s8.json s12.json s16.json --ranks $n -o x$n.json 2>refusal; then
    echo "| $n | - | refused: $(head -c 160 refusal | tr '\n|' '  ') | | | | |"
    continue
  fi
  ext=$(measure "$bin/sio-extrap" s4.json s8.json s12.json s16.json --ranks $n -o x$n.json)
  st=$(measure "$bin/sio-trace" stats x$n.json)
  du=$(measure "$bin/sio-trace" dump x$n.json)
  si=$(measure "$bin/sio-signature" x$n.json)
  re=$(measure "$bin/sio-extrap" x$n.json --emit-replay r$n.cpp)
  echo "| $n | $(wc -c <x$n.json) B | $ext | $st | $du | $si | $re |"
done
echo
echo "Offsets with \`(rank + 1) % nranks\`: lit-tests/signature/Inputs/neighbor.c traced at 4/8/12/16 ranks, extrapolated."
echo
echo "| ranks | trace | sio-extrap (4 traces) | sio-signature | signature lines |"
echo "| ---: | ---: | --- | --- | ---: |"
for n in 1024 65536 1048576; do
  ext=$(measure "$bin/sio-extrap" n4.json n8.json n12.json n16.json --ranks $n -o y$n.json)
  si=$(measure "$bin/sio-signature" y$n.json)
  echo "| $n | $(wc -c <y$n.json) B | $ext | $si | $("$bin/sio-signature" y$n.json | wc -l) |"
done
