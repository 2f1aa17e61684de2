#!/usr/bin/env bash
# Gets ROMIO's own test programs (src/mpi/romio/test/ of Debian's MPICH source
# package, at the version of the MPICH the machine runs) into DEST, configured
# as ROMIO's configure would for MPICH on Linux (lit-tests/romio/ runs them).
#
#   scripts/fetch-romio-tests.sh DEST
#
# Nothing is vendored: the source comes only from `apt-get source mpich`
# (scripts/deps.sh adds the deb-src entry), like scripts/build-pnetcdf.sh's
# PnetCDF. Only the test directory is unpacked (the orig tarball is 22 MB;
# Debian's patches do not touch it, which this script checks). The result is
# cached in SIO_ROMIO_CACHE (default ~/.cache/sio) keyed by the MPICH source
# version and this script, so a second build directory copies it.
#
# Configured as ROMIO's configure.ac does for MPICH: `@LL@` is `lld`
# (MPI_Offset is a long long); in the Fortran tests `@F77MPIOINC@` is empty
# (MPICH's mpif.h declares MPI-IO), `@FORTRAN_MPI_OFFSET@` is `integer*8`,
# `@F77IARGC@` is `iargc()` and `@F77GETARG@` is `call getarg(i, str)`.
#
# Exit status: 0 fetched or restored, 2 the source package is not available
# (no deb-src entry), 1 anything else.
set -euo pipefail

dest="${1:?usage: fetch-romio-tests.sh DEST}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

if [ -f "$dest/.sio-romio-stamp" ] && [ -f "$dest/simple.c" ]; then
  exit 0
fi

# The version of the installed MPICH decides which source is the right one.
version="$(dpkg-query -W -f='${source:Version}' libmpich-dev 2>/dev/null || true)"
if [ -z "$version" ]; then
  echo "sio: libmpich-dev is not installed: ROMIO's tests are not fetched" >&2
  exit 2
fi
key="$(printf '%s\n%s' "$version" "$(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)" | sha256sum | cut -c1-16)"
cache_root="${SIO_ROMIO_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/sio}"
cache="$cache_root/romio-tests-$version-$key"

restore_from_cache() {
  [ -f "$cache/.sio-romio-stamp" ] || return 1
  rm -rf "$dest" && mkdir -p "$dest"
  cp -a "$cache/." "$dest/"
  echo "sio: ROMIO's tests (MPICH $version) restored from $cache"
}
if restore_from_cache; then exit 0; fi

lock_fd=""
if mkdir -p "$cache_root" 2>/dev/null && command -v flock >/dev/null; then
  exec {lock_fd}>"$cache_root/romio-tests-$key.lock"
  flock "$lock_fd"
  if restore_from_cache; then exit 0; fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get source --only-source --download-only "mpich=$version" </dev/null >apt.log 2>&1; then
  cat apt.log >&2
  echo "sio: apt-get source mpich=$version failed: no deb-src entry? run scripts/deps.sh as root" >&2
  exit 2
fi
orig="$(ls mpich_*.orig.tar.* | head -1)"
tar xf "$orig" --wildcards '*/src/mpi/romio/test/*'
test_dir="$(find . -path '*/src/mpi/romio/test' -type d | head -1)"
if [ -z "$test_dir" ] || [ ! -f "$test_dir/simple.c" ]; then
  echo "sio: error: no src/mpi/romio/test/simple.c in $orig" >&2
  exit 1
fi
debian="$(ls mpich_*.debian.tar.* 2>/dev/null | head -1 || true)"
if [ -n "$debian" ] && tar tf "$debian" | grep -q '^debian/patches/' &&
  tar xf "$debian" --wildcards 'debian/patches/*' && grep -lq 'romio/test/' debian/patches/* 2>/dev/null; then
  echo "sio: error: Debian's patches of mpich $version change src/mpi/romio/test: unpack the whole source" >&2
  exit 1
fi

out="$work/out"
mkdir -p "$out"
cp -a "$test_dir/." "$out/"
for in in "$out"/*.c.in "$out"/*.f.in; do
  [ -f "$in" ] || continue
  sed -e 's/@LL@/lld/g' \
      -e 's/@F77MPIOINC@//g' \
      -e 's/@FORTRAN_MPI_OFFSET@/integer*8/g' \
      -e 's/@F77IARGC@/iargc()/g' \
      -e 's/@F77GETARG@/call getarg(i, str)/g' "$in" >"${in%.in}"
  if grep -q '@[A-Za-z0-9_]*@' "${in%.in}"; then
    echo "sio: error: ${in%.in} keeps a placeholder this script does not know: $(grep -o '@[A-Za-z0-9_]*@' "${in%.in}" | sort -u | tr '\n' ' ')" >&2
    exit 1
  fi
done
echo "mpich $version" >"$out/.sio-romio-stamp"

rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
if cp -a "$out/." "$cache.tmp/" && rm -rf "$cache" && mv "$cache.tmp" "$cache"; then
  restore_from_cache
else
  rm -rf "$dest" && mkdir -p "$dest" && cp -a "$out/." "$dest/"
  echo "sio: ROMIO's tests (MPICH $version) in $dest (not cached)"
fi
