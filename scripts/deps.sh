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
  autoconf automake libtool m4 dpkg-dev
  gfortran
)
# PnetCDF is built from Debian's source package against MPICH
# (scripts/build-pnetcdf.sh, run by CMake): `apt-get source` needs a deb-src
# entry, added for the release archive the machine already installs from.
SIO_DEB_SRC_LIST=/etc/apt/sources.list.d/sio-deb-src.sources

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

# The deb-src entries matching the machine's deb entries for the release suite
# (not -updates/-security), in deb822 form.
sio_deb_src_stanzas() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$f" != "$SIO_DEB_SRC_LIST" ] || continue
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
      /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && /(^|\n)URIs:/ && !/(^|\n)Enabled: *no/ {
        n = split($0, lines, "\n"); out = ""; suites = ""
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^Types:/) { out = out "Types: deb-src\n"; continue }
          if (lines[i] ~ /^Suites:/) {
            m = split(substr(lines[i], 8), s, /[ \t]+/)
            for (j = 1; j <= m; j++) if (s[j] != "" && s[j] !~ /-/) suites = suites " " s[j]
            out = out "Suites:" suites "\n"; continue
          }
          if (lines[i] !~ /^#/) out = out lines[i] "\n"
        }
        if (suites != "") printf "%s\n", out
      }' "$f"
  done
  if [ -f /etc/apt/sources.list ]; then
    awk '$1 == "deb" { s = ($2 ~ /^\[/) ? $4 : $3; if (s !~ /-/) {
        $1 = ""; print "Types: deb-src"; line = $0; sub(/^ +/, "", line)
        if (line ~ /^\[/) { sub(/^\[[^]]*\] */, "", line) }
        split(line, w, / +/); print "URIs: " w[1]; print "Suites: " w[2]
        comps = ""; for (i = 3; i in w; i++) comps = comps " " w[i]
        print "Components:" comps; print "" } }' /etc/apt/sources.list
  fi
}

# Makes `apt-get source pnetcdf` work: adds the deb-src entry when it is missing.
# Without root this only warns: the PnetCDF-based parts are then skipped.
sio_enable_deb_src() {
  if apt-cache showsrc pnetcdf 2>/dev/null | grep -q '^Package: pnetcdf'; then
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo="sudo"
    else
      echo "sio: warning: no deb-src entry for pnetcdf and not root: PnetCDF (pnetcdf-ext) will not be built" >&2
      return 0
    fi
  fi
  local stanzas
  stanzas="$(sio_deb_src_stanzas)"
  if [ -z "$stanzas" ]; then
    echo "sio: warning: found no Debian deb entry to mirror as deb-src: PnetCDF (pnetcdf-ext) will not be built" >&2
    return 0
  fi
  echo "sio: adding deb-src entries ($SIO_DEB_SRC_LIST) for apt-get source pnetcdf"
  printf '# Added by sio scripts/deps.sh: source packages (PnetCDF built against MPICH).\n%s\n' "$stanzas" |
    $sudo tee "$SIO_DEB_SRC_LIST" >/dev/null
  $sudo apt-get update -qq || echo "sio: warning: apt-get update failed" >&2
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
