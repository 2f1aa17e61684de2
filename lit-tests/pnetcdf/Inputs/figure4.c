// The example of Son et al. 2013 Figure 4: a 3-D array "cube" (z, y, x)
// written with one collective ncmpi_put_vara_all. The hints come from
// PNETCDF_HINTS or from the arguments (KEY=VALUE ...), set on the MPI_Info of
// ncmpi_create. Each rank writes a z-slab; rank 0 reads the whole array back
// through the master and prints a checksum.
//   figure4 FILE [KEY=VALUE ...]
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { Z = 100, Y = 10, X = 10 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Info info = sio_nc_hints(argc, argv, 2);
  int ncid, dims[3], cube;
  int err = ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER, info, &ncid);
  MPI_Info_free(&info);
  if (err != NC_NOERR) {
    if (rank == 0)
      printf("ncmpi_create: %s\n", ncmpi_strerror(err));
    MPI_Finalize();
    return 3;
  }
  ncmpi_def_dim(ncid, "z", Z, &dims[0]);
  ncmpi_def_dim(ncid, "y", Y, &dims[1]);
  ncmpi_def_dim(ncid, "x", X, &dims[2]);
  ncmpi_def_var(ncid, "cube", NC_DOUBLE, 3, dims, &cube);
  if ((err = ncmpi_enddef(ncid)) != NC_NOERR) {
    printf("ncmpi_enddef: %s\n", ncmpi_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Offset start[3] = {(MPI_Offset)Z * rank / nprocs, 0, 0};
  MPI_Offset count[3] = {(MPI_Offset)Z * (rank + 1) / nprocs - start[0], Y, X};
  int *buf = malloc(sizeof(int) * Z * Y * X);
  for (MPI_Offset i = 0; i < count[0] * Y * X; ++i)
    buf[i] = (int)(start[0] * Y * X + i);
  if ((err = ncmpi_put_vara_all(ncid, cube, start, count, buf, count[0] * Y * X, MPI_INT)) != NC_NOERR) {
    printf("ncmpi_put_vara_all: %s\n", ncmpi_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // Read back through the master, all of it on every rank.
  int nd = 0;
  ncmpi_inq_varndims(ncid, cube, &nd);
  double *back = malloc(sizeof(double) * Z * Y * X);
  MPI_Offset zero[3] = {0, 0, 0}, all[3] = {Z, Y, X};
  if ((err = ncmpi_get_vara_all(ncid, cube, zero, all, back, Z * Y * X, MPI_DOUBLE)) != NC_NOERR) {
    printf("ncmpi_get_vara_all: %s\n", ncmpi_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long wrong = 0;
  for (long i = 0; i < Z * Y * X; ++i)
    wrong += back[i] != (double)i;
  ncmpi_close(ncid);
  if (rank == 0)
    printf("cube has %d dimensions, %ld wrong of %d\n", nd, wrong, Z * Y * X);
  free(buf), free(back);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
