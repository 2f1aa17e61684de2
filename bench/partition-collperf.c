// coll_perf-style writer for bench/partitioning.sh (Son et al. 2013 §IV-A):
// four 3-D int variables, each rank writing an N x N x N block of each (the
// ranks on a 3-D grid from MPI_Dims_create), one collective
// ncmpi_put_vara_int_all per variable. The hints come as KEY=VALUE arguments.
// Rank 0 prints the bytes written and the time from ncmpi_create to the end
// of ncmpi_close (the probe and the partition files' creation included).
//   partition-collperf FILE N [KEY=VALUE ...]
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Offset n = atol(argv[2]);
  MPI_Info info = sio_nc_hints(argc, argv, 3);
  int pd[3] = {0, 0, 0};
  MPI_Dims_create(nprocs, 3, pd);
  int c[3] = {rank / (pd[1] * pd[2]), rank / pd[2] % pd[1], rank % pd[2]};
  MPI_Offset start[3], count[3] = {n, n, n};
  for (int d = 0; d < 3; ++d)
    start[d] = c[d] * n;
  size_t elems = (size_t)(n * n * n);
  int *buf = malloc(elems * sizeof(int));
  for (size_t i = 0; i < elems; ++i)
    buf[i] = rank + (int)i;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int ncid, dims[3], vars[4];
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  const char *dn[3] = {"z", "y", "x"};
  for (int d = 0; d < 3; ++d)
    SIO_NC_CHECK(ncmpi_def_dim(ncid, dn[d], pd[d] * n, &dims[d]));
  for (int v = 0; v < 4; ++v) {
    char name[8];
    snprintf(name, sizeof name, "var%d", v);
    SIO_NC_CHECK(ncmpi_def_var(ncid, name, NC_INT, 3, dims, &vars[v]));
  }
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  for (int v = 0; v < 4; ++v)
    SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, vars[v], start, count, buf));
  SIO_NC_CHECK(ncmpi_close(ncid));
  double t = MPI_Wtime() - t0, tmax;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("bytes %lld seconds %.4f\n", (long long)(4.0 * nprocs * elems * sizeof(int)), tmax);
  MPI_Info_free(&info);
  free(buf);
  MPI_Finalize();
  return 0;
}
