#!/usr/bin/env bash
# The main job, end to end, on the bundled example (examples/strong.cpp):
# installs missing Debian packages, builds sio, compiles the example with the
# sio compiler wrapper (plugin + runtime), traces it at 4, 8, 12 and 16 ranks,
# extrapolates the traces to 32 ranks, emits the replay program, compiles and
# runs it at 32 ranks, shows that the replay's trace matches, and writes the
# HTML report of the traces.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deps.sh
source "$here/deps.sh"
src="$(cd "$here/.." && pwd)"
build="${SIO_BUILD_DIR:-$src/build}"

sio_install_missing_packages
sio_enable_deb_src
sio_configure_and_build

work="$build/example"
mkdir -p "$work"
cd "$work"
bin="$build/bin"
echo "== 1. compile examples/strong.cpp with sio-cxx (clang 19 + siotrace.so + libsiotrace-rt) =="
"$bin/sio-cxx" -O2 "$src/examples/strong.cpp" -o strong
for n in 4 8 12 16; do
  echo "== 2. trace at $n ranks =="
  rm -f strong.dat
  SIO_TRACE_FILE="strong.$n.sio.json" mpiexec.mpich -n "$n" ./strong strong.dat
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
SIO_TRACE_FILE=replay.32.sio.json mpiexec.mpich -n 32 ./replay --fast-forward
echo "== 5. the replay's trace against the extrapolated one =="
"$bin/sio-trace" diff --ignore-sites strong.x32.sio.json replay.32.sio.json
echo "sio: the replay at 32 ranks performed exactly the extrapolated I/O"
echo "== 6. the report: plots of the traces and of the fits (docs/report.md) =="
"$bin/sio-trace" report strong.4.sio.json strong.8.sio.json strong.12.sio.json strong.16.sio.json \
  strong.x32.sio.json -o report.html
echo "sio: report written to $work/report.html (open it in a browser; it needs no network)"
echo "sio: example finished; traces, replay.cpp and the replay in $work"
