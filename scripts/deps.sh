#!/usr/bin/env bash
# The one list of Debian 12 packages sio needs, and the step that installs the
# missing ones. Sourced by run-example.sh and run-tests.sh.
set -euo pipefail

SIO_DEBIAN_PACKAGES=(
  cmake make g++ python3
  clang-19 llvm-19-dev llvm-19-tools libclang-19-dev libclang-cpp19-dev libclang-rt-19-dev
  flang-19
  mpich libmpich-dev
  nlohmann-json3-dev
  libgtest-dev googletest libbenchmark-dev
  libotf2-trace-dev otf2-tools chromium
)

sio_install_missing_packages() {
  local missing=()
  for pkg in "${SIO_DEBIAN_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    return 0
  fi
  echo "sio: installing missing Debian packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "sio: error: packages missing (${missing[*]}) and not running as root; install them and re-run" >&2
      exit 1
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Configure (once) and build the project into $SIO_BUILD_DIR (default: build/).
sio_configure_and_build() {
  local src build
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  build="${SIO_BUILD_DIR:-$src/build}"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE="${SIO_BUILD_TYPE:-RelWithDebInfo}"
  fi
  cmake --build "$build" -j "$(nproc)"
}
