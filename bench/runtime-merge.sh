#!/bin/sh
# Inter-rank merge at MPI_Finalize: rounds and time at several rank counts,
# from the trace's metadata (merge_rounds, merge_ms = rank 0's time in the
# binomial tree, finalize_ms = model fitting at the root).
#   bench/runtime-merge.sh [build-dir] [ranks...]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
shift || true
[ $# -gt 0 ] || set -- 8 16 32 64
. "$src/bench/common.sh"
bench_workdir merge
sio_cxx -O1 "$src/lit-tests/runtime/ior.cpp" -o "$work/ior"
echo "| ranks | merge rounds | merge time at rank 0 (ms) | per round (ms) | root fitting (ms) | trace (B) |"
echo "| --- | --- | --- | --- | --- | --- |"
for n in "$@"; do
  (cd "$work" && SIO_TRACE_FILE="$work/t.$n.json" mpiexec.mpich -n "$n" "$work/ior" > /dev/null)
  python3 - "$work/t.$n.json" "$n" <<'PY'
import json, os, sys
t = json.load(open(sys.argv[1])); m = t["metadata"]
rounds = int(m["merge_rounds"])
per = " / ".join(m["merge_round_%d_ms" % i] for i in range(rounds))
print("| %s | %d | %s | %s | %s | %d |" % (sys.argv[2], rounds, m["merge_ms"], per, m["finalize_ms"],
                                          os.path.getsize(sys.argv[1])))
PY
done
