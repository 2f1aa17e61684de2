// The PnetCDF that sio builds from Debian's source package runs in an MPICH
// program: two ranks write a block each of a 2-D variable collectively, read
// the other rank's block back, and ncmpidump shows the file.
// REQUIRES: pnetcdf
// RUN: rm -rf %t && mkdir -p %t
// RUN: %mpicc %pnetcdf-cflags %s -o %t/smoke %pnetcdf-libs
// RUN: %mpiexec -n 2 %t/smoke %t/smoke.nc | FileCheck %s --check-prefix=OUT
// RUN: %ncmpidump %t/smoke.nc | FileCheck %s --check-prefix=DUMP
// RUN: readelf -d %t/smoke | FileCheck %s --check-prefix=ELF

// OUT-DAG: rank 0 read back 10 11 12 13 14 15 OK
// OUT-DAG: rank 1 read back 0 1 2 3 4 5 OK
// DUMP: netcdf smoke {
// DUMP: dimensions:
// DUMP-NEXT: y = 2 ;
// DUMP-NEXT: x = 6 ;
// DUMP: int v(y, x) ;
// DUMP: v =
// DUMP-NEXT: 0, 1, 2, 3, 4, 5,
// DUMP-NEXT: 10, 11, 12, 13, 14, 15 ;
// ELF-NOT: libmpi.so
// ELF: libpnetcdf.so
// ELF-NOT: libmpi.so

#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ncid, dims[2], var;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER, MPI_INFO_NULL, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", size, &dims[0]));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", 6, &dims[1]));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "v", NC_INT, 2, dims, &var));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  int buf[6];
  for (int i = 0; i < 6; ++i)
    buf[i] = 10 * rank + i;
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, 6};
  SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, var, start, count, buf));
  SIO_NC_CHECK(ncmpi_close(ncid));

  SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, argv[1], NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int other = (rank + 1) % size, back[6];
  start[0] = other;
  SIO_NC_CHECK(ncmpi_get_vara_int_all(ncid, var, start, count, back));
  SIO_NC_CHECK(ncmpi_close(ncid));
  // One write per line: the ranks' output is interleaved by the process manager.
  int ok = 1, at = 0;
  char line[256];
  at += snprintf(line + at, sizeof line - at, "rank %d read back", rank);
  for (int i = 0; i < 6; ++i) {
    at += snprintf(line + at, sizeof line - at, " %d", back[i]);
    ok &= back[i] == 10 * other + i;
  }
  snprintf(line + at, sizeof line - at, " %s\n", ok ? "OK" : "WRONG");
  fputs(line, stdout);
  fflush(stdout);
  MPI_Finalize();
  return ok ? 0 : 1;
}
