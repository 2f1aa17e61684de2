#!/usr/bin/env bash
# The configure-time check of cmake/SioPnetCDFCheck.cmake: a PnetCDF linked
# against Open MPI's libmpi.so.40 (as Debian's libpnetcdf is) is refused with a
# message naming both MPI libraries; one linked against MPICH is accepted.
#   pnetcdf-mpi-check.sh CMAKE SRC_DIR WORK_DIR MPICH_LIBRARY [BUILT_PNETCDF_LIBRARY]
set -euo pipefail
cmake="$1" src="$2" work="$3" mpich="$4" built="${5:-}"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
echo 'int MPI_Init(void) { return 0; }' >mpi.c
cc -shared -fPIC -o libmpi.so.40 -Wl,-soname,libmpi.so.40 mpi.c
ln -sf libmpi.so.40 libmpi.so
echo 'int MPI_Init(void); int ncmpi_create(void) { return MPI_Init(); }' >pnetcdf.c
cc -shared -fPIC -o libpnetcdf-openmpi.so pnetcdf.c -Wl,--no-as-needed -L. -lmpi
cc -shared -fPIC -o libpnetcdf-mpich.so pnetcdf.c -Wl,--no-as-needed "$mpich"

fail=0
if "$cmake" -DLIBRARY="$work/libpnetcdf-openmpi.so" -DMPI_LIBRARY="$mpich" -P "$src/SioPnetCDFCheck.cmake" >openmpi.log 2>&1; then
  echo "FAIL: a PnetCDF linked against libmpi.so.40 was accepted"; fail=1
elif ! tr -s ' \n' ' ' <openmpi.log | grep -q 'is linked against libmpi.so.40 (that is Open MPI'; then
  echo "FAIL: refused without naming Open MPI:"; cat openmpi.log; fail=1
fi
for lib in "$work/libpnetcdf-mpich.so" $built; do
  if ! "$cmake" -DLIBRARY="$lib" -DMPI_LIBRARY="$mpich" -P "$src/SioPnetCDFCheck.cmake" >mpich.log 2>&1; then
    echo "FAIL: $lib (MPICH) was refused:"; cat mpich.log; fail=1
  fi
done
[ "$fail" -eq 0 ] && echo "PASS: Open MPI PnetCDF refused, MPICH PnetCDF accepted"
exit "$fail"
