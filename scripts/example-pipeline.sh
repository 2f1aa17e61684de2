#!/usr/bin/env bash
# The example pipeline of scripts/run-example.sh, on an already built sio:
# compiles examples/strong.cpp with sio-cxx, traces it at 4, 8, 12 and 16
# ranks, extrapolates to 32, emits, compiles and runs the replay at 32 ranks,
# compares the replay's trace with the extrapolated one, writes the report.
# usage: example-pipeline.sh BIN_DIR WORK_DIR   (MPIEXEC overrides mpiexec.mpich)
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: $0 BIN_DIR WORK_DIR" >&2
  exit 2
fi
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(cd "$1" && pwd)"
work="$2"
mpiexec="${MPIEXEC:-mpiexec.mpich}"
mkdir -p "$work"
cd "$work"
echo "== 1. compile examples/strong.cpp with sio-cxx (clang 19 + siotrace.so + libsiotrace-rt) =="
"$bin/sio-cxx" -O2 "$src/examples/strong.cpp" -o strong
for n in 4 8 12 16; do
  echo "== 2. trace at $n ranks =="
  rm -f strong.dat
  SIO_TRACE_FILE="strong.$n.sio.json" "$mpiexec" -n "$n" ./strong strong.dat
done
echo "== sio-trace stats strong.4.sio.json =="
"$bin/sio-trace" stats strong.4.sio.json
echo "== sio-trace dump strong.4.sio.json =="
"$bin/sio-trace" dump strong.4.sio.json
echo "== 3. extrapolate to 32 ranks and emit the replay program =="
"$bin/sio-extrap" strong.4.sio.json strong.8.sio.json strong.12.sio.json strong.16.sio.json \
  --ranks 32 -o strong.x32.sio.json --emit-replay replay.cpp
"$bin/sio-trace" dump strong.x32.sio.json
echo "== 4. compile the replay (traced, so its I/O can be compared) and run it at 32 ranks =="
"$bin/sio-cxx" -O2 replay.cpp -o replay
# The replay writes its files under ./sio-replay-root (docs/replay.md): a fresh
# root each time, so a second run of this script does not stop on the first
# run's files.
rm -rf sio-replay-root
SIO_TRACE_FILE=replay.32.sio.json "$mpiexec" -n 32 ./replay --fast-forward
echo "== 5. the replay's trace against the extrapolated one =="
"$bin/sio-trace" diff --ignore-sites strong.x32.sio.json replay.32.sio.json
echo "sio: the replay at 32 ranks performed exactly the extrapolated I/O"
echo "== 6. the report: plots of the traces and of the fits (docs/report.md) =="
"$bin/sio-trace" report strong.4.sio.json strong.8.sio.json strong.12.sio.json strong.16.sio.json \
  strong.x32.sio.json -o report.html
echo "sio: report written to $work/report.html (open it in a browser; it needs no network)"
echo "sio: example finished; traces, replay.cpp and the replay in $work"
