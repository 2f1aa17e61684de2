#!/bin/sh
# The offline tools on hostile traces at a larger count than CI's
# lit-tests/fuzz/fuzz.test (300 traces, 4 replays): COUNT mutated traces
# (default 3000) of the traces under lit-tests/*/Inputs through every tool
# under 1 GB of address space and 20 s each, then REPLAYS (default 24)
# replays compiled and run at up to 4 ranks. Prints the per-tool summary and
# the first failures; exit status 1 when anything failed.
#   bench/fuzz-offline.sh [build-dir] [count] [seed] [replays]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
count=${2:-3000}
seed=${3:-1}
replays=${4:-24}
. "$src/bench/common.sh"
bench_workdir fuzz
in=$src/lit-tests
echo "Machine: $(uname -sm), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "Command: bench/fuzz-offline.sh $build $count $seed $replays"
t0=$(date +%s)
status=0
python3 "$in/fuzz/Inputs/fuzz.py" --bin "$build/bin" --work "$work/w" --count "$count" --seed "$seed" \
  --replays "$replays" --mpicxx "$(command -v mpicxx.mpich || command -v mpicxx)" \
  --mpiexec "$(command -v mpiexec.mpich || command -v mpiexec)" \
  "$in/trace/Inputs/strong.json" "$in/trace/Inputs/elastic.json" \
  "$in/trace/Inputs/ior-scale/s4.json" "$in/trace/Inputs/ior-scale/s8.json" \
  "$in/trace/Inputs/ior-scale/s12.json" "$in/trace/Inputs/ior-scale/s16.json" \
  "$in/replay/Inputs/strong-symbolic.json" "$in/replay/Inputs/weird-names.json" \
  "$in/report/Inputs/hostile.json" "$in/fuzz/Inputs/stdio.json" || status=$?
echo "wall time: $(($(date +%s) - t0)) s"
exit $status
