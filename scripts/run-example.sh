#!/usr/bin/env bash
# The main job, end to end, on the bundled example (examples/strong.cpp):
# installs missing Debian packages, builds sio, compiles the example with the
# sio compiler wrapper (plugin + runtime), runs it at 4 ranks and prints the
# trace summary and the trace itself.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deps.sh
source "$here/deps.sh"
src="$(cd "$here/.." && pwd)"
build="${SIO_BUILD_DIR:-$src/build}"

sio_install_missing_packages
sio_configure_and_build

work="$build/example"
mkdir -p "$work"
cd "$work"
echo "== compiling examples/strong.cpp with sio-cxx =="
"$build/bin/sio-cxx" -O2 "$src/examples/strong.cpp" -o strong
for n in 4; do
  echo "== running at $n ranks =="
  rm -f strong.dat
  SIO_TRACE_FILE="strong.$n.sio.json" mpiexec.mpich -n "$n" ./strong strong.dat
done
echo "== sio-trace stats strong.4.sio.json =="
"$build/bin/sio-trace" stats strong.4.sio.json
echo "== sio-trace dump strong.4.sio.json =="
"$build/bin/sio-trace" dump strong.4.sio.json
echo "sio: example finished; trace in $work/strong.4.sio.json"
