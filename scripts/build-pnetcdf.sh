#!/usr/bin/env bash
# Builds PnetCDF from Debian's source package against MPICH into PREFIX
# (CMake passes build/pnetcdf). Debian's binary libpnetcdf is built against
# Open MPI and must never be linked into an MPICH program, hence this build.
#
#   scripts/build-pnetcdf.sh PREFIX
#
# With MPICH's Fortran wrapper (mpifort.mpich, which runs gfortran) PnetCDF is
# built with its Fortran interface (nfmpi_*, module pnetcdf), and PnetCDF's own
# FLASH-IO benchmark (benchmarks/FLASH-IO of the same source package, the
# workload of Son et al. 2013 §IV-B) is compiled unchanged, with the flags of
# its Makefile.am, into PREFIX/bin/flash_benchmark_io. Without a working
# Fortran wrapper the C library alone is built and PREFIX/fortran.txt says why.
#
# The source comes only from `apt-get source pnetcdf` (scripts/deps.sh adds the
# deb-src entry for the archive the machine already uses). The result is kept
# in a cache (SIO_PNETCDF_CACHE, default ~/.cache/sio) keyed by the PnetCDF
# version, the MPICH compiler wrapper's configuration and this script, so a
# clean clone or a second build directory on the same machine copies it
# instead of building again. Exit status: 0 built or restored, 2 the source
# package is not available (no deb-src entry: run scripts/deps.sh as root),
# 1 anything else; a log of the build is in PREFIX.log.
set -euo pipefail

want_version="1.12.3"
prefix="${1:?usage: build-pnetcdf.sh PREFIX}"
prefix="$(mkdir -p "$prefix" && cd "$prefix" && pwd)"
mpicc="${SIO_MPICC:-$(command -v mpicc.mpich || true)}"
if [ -z "$mpicc" ]; then
  echo "sio: error: mpicc.mpich not found (Debian package libmpich-dev)" >&2
  exit 1
fi
mpifort="${SIO_MPIFORT-$(command -v mpifort.mpich || true)}"
fortran_why=""
if [ -z "$mpifort" ]; then
  fortran_why="mpifort.mpich not found (Debian packages libmpich-dev and gfortran)"
elif ! "$mpifort" -show >/dev/null 2>&1; then
  fortran_why="$mpifort -show fails"
else
  # mpifort.mpich names its compiler (gfortran) without checking it exists.
  fc="$("$mpifort" -show 2>/dev/null | awk '{print $1}')"
  if ! command -v "$fc" >/dev/null 2>&1; then
    fortran_why="$mpifort runs $fc, which is not installed (Debian package gfortran)"
  fi
fi
jobs="${SIO_PNETCDF_JOBS:-$(nproc)}"
log="$prefix.log"

if [ -f "$prefix/.sio-pnetcdf-stamp" ] && [ -f "$prefix/lib/libpnetcdf.so" ]; then
  exit 0
fi

# The cache key: what decides the bits of the result.
# "fortran" makes a cache entry of the C-only build (made before Fortran was
# built) a different key, so it is not taken for one with Fortran.
key_text="pnetcdf $want_version
fortran: ${fortran_why:-$("$mpifort" -show 2>&1) $("$mpifort" --version 2>&1 | head -1)}
$("$mpicc" -show 2>&1)
$(mpichversion 2>/dev/null | head -3 || true)
$(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)"
key="$(printf '%s' "$key_text" | sha256sum | cut -c1-16)"
cache_root="${SIO_PNETCDF_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/sio}"
cache="$cache_root/pnetcdf-$want_version-$key"

# Make an installed tree usable from PREFIX: the text files name the prefix they
# were installed to; the programs find libpnetcdf through $ORIGIN (see below).
relocate() {
  local from="$1" to="$2" f
  for f in "$to/bin/pnetcdf-config" "$to/lib/pkgconfig/pnetcdf.pc" "$to/lib/libpnetcdf.la"; do
    [ -f "$f" ] && sed -i "s|$from|$to|g" "$f"
  done
  return 0
}

restore_from_cache() {
  [ -f "$cache/.sio-pnetcdf-stamp" ] || return 1
  rm -rf "$prefix" && mkdir -p "$prefix"
  cp -a "$cache/." "$prefix/"
  relocate "$(cat "$cache/.sio-pnetcdf-stamp")" "$prefix"
  echo "$prefix" >"$prefix/.sio-pnetcdf-stamp"
  echo "sio: PnetCDF $want_version (MPICH) restored from $cache"
}

if restore_from_cache; then exit 0; fi

# One builder per cache entry at a time; others wait and then copy.
lock_fd=""
if mkdir -p "$cache_root" 2>/dev/null && command -v flock >/dev/null; then
  exec {lock_fd}>"$cache_root/pnetcdf-$key.lock"
  flock "$lock_fd"
  if restore_from_cache; then exit 0; fi
fi

work="$prefix-src"
rm -rf "$work" && mkdir -p "$work"
echo "sio: building PnetCDF $want_version from Debian's source package against MPICH ($mpicc) into $prefix (log: $log)"
set +e
(
  set -e
  cd "$work"
  if ! apt-get source --only-source pnetcdf </dev/null; then
    echo "sio: apt-get source pnetcdf failed: no deb-src entry? run scripts/deps.sh as root" >&2
    exit 2
  fi
  src="$(find "$work" -maxdepth 1 -type d -name "pnetcdf-$want_version*" | head -1)"
  if [ -z "$src" ]; then
    echo "sio: Debian's source package is not PnetCDF $want_version: $(ls "$work")" >&2
    exit 1
  fi
  cd "$src"
  # The Debian source is a git export without a generated configure.
  autoreconf -fi
  # Programs linked against the library find it beside them, so the tree can
  # be copied out of the cache into any build directory.
  configure_and_make() { # CONFIGURE_ARGS...
    rm -rf "$work/build" && mkdir -p "$work/build" && cd "$work/build" &&
      "$src/configure" --prefix="$prefix" MPICC="$mpicc" "$@" \
        --disable-cxx --enable-shared --disable-static \
        CFLAGS="-O2 -g" LDFLAGS="-Wl,-rpath,\\\$\$ORIGIN/../lib" &&
      make -j "$jobs" && make install
  }
  if [ -z "$fortran_why" ]; then
    if ! configure_and_make --enable-fortran MPIF77="$mpifort" MPIF90="$mpifort" FFLAGS="-O2 -g" FCFLAGS="-O2 -g"; then
      # Keep the C library: the Fortran interface is optional.
      fortran_why="the build with $mpifort failed (its output is above in $log); built without Fortran"
      echo "sio: $fortran_why"
      find "$prefix" -mindepth 1 -delete
      configure_and_make --disable-fortran
    fi
  else
    configure_and_make --disable-fortran
  fi
  if [ -z "$fortran_why" ]; then
    # FLASH-IO, unchanged, as its Makefile.am builds it (N_DIM=3,
    # MAXBLOCKS=100, IONMAX=13, sources in its order: modules first).
    flash="$src/benchmarks/FLASH-IO"
    mkdir -p "$work/flash" && cd "$work/flash"
    flash_status="FLASH-IO in bin/flash_benchmark_io"
    "$mpifort" -O2 -g -I"$prefix/include" -I"$flash" -DN_DIM=3 -DMAXBLOCKS=100 -DIONMAX=13 \
      "$flash/get_mfluid_property.F90" "$flash/flash_release.F90" "$flash/flash_benchmark_io.F90" \
      "$flash/checkpoint_ncmpi_parallel.F90" "$flash/plotfile_ncmpi_parallel.F90" \
      -L"$prefix/lib" -lpnetcdf -Wl,-rpath,'$ORIGIN/../lib' -o "$prefix/bin/flash_benchmark_io" ||
      flash_status="FLASH-IO failed to build (see $log)"
    echo "yes: $mpifort ($("$mpifort" --version 2>&1 | head -1)); $flash_status" >"$prefix/fortran.txt"
  else
    echo "no: $fortran_why" >"$prefix/fortran.txt"
  fi
) >"$log" 2>&1
status=$?
set -e
if [ "$status" -ne 0 ]; then
  tail -n 30 "$log" >&2
  echo "sio: error: PnetCDF build failed (status $status); full log: $log" >&2
  exit "$status"
fi
rm -rf "$work"

echo "$prefix" >"$prefix/.sio-pnetcdf-stamp"
if [ -n "$lock_fd" ]; then
  rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
  cp -a "$prefix/." "$cache.tmp/" && rm -rf "$cache" && mv "$cache.tmp" "$cache" || true
fi
echo "sio: PnetCDF $want_version (MPICH) installed in $prefix; Fortran interface: $(cat "$prefix/fortran.txt")"
