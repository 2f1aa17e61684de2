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

# The pipeline itself (also run by lit-tests/example/readme-example.test).
"$here/example-pipeline.sh" "$build/bin" "$build/example"
