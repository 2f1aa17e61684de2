// Several partitioned files created one after another by one process, as
// FLASH-IO's checkpoint and plot files: FILE.0 ... FILE.{N-1}, each a 3-D
// array "cube" (z, y, x) written with one collective ncmpi_put_vara_all (a
// z-slab per rank), read back whole through the master and checked. Hints
// as KEY=VALUE arguments (MPI_Info of ncmpi_create) or PNETCDF_HINTS.
//   files FILE N [KEY=VALUE ...]
#include <sio/part/NcProgram.h>
#include <stdlib.h>

enum { Z = 64, Y = 8, X = 8 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const int n = argc > 2 ? atoi(argv[2]) : 2;
  long wrong = 0;
  int *buf = malloc(sizeof(int) * Z * Y * X), *back = malloc(sizeof(int) * Z * Y * X);
  for (int f = 0; f < n; ++f) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", argv[1], f);
    MPI_Info info = sio_nc_hints(argc, argv, 3);
    int ncid, dims[3], cube;
    SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
    MPI_Info_free(&info);
    SIO_NC_CHECK(ncmpi_def_dim(ncid, "z", Z, &dims[0]));
    SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", Y, &dims[1]));
    SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", X, &dims[2]));
    SIO_NC_CHECK(ncmpi_def_var(ncid, "cube", NC_INT, 3, dims, &cube));
    SIO_NC_CHECK(ncmpi_enddef(ncid));
    MPI_Offset start[3] = {(MPI_Offset)Z * rank / nprocs, 0, 0};
    MPI_Offset count[3] = {(MPI_Offset)Z * (rank + 1) / nprocs - start[0], Y, X};
    for (MPI_Offset i = 0; i < count[0] * Y * X; ++i)
      buf[i] = (int)(start[0] * Y * X + i) + f;
    SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, cube, start, count, buf));
    MPI_Offset zero[3] = {0, 0, 0}, all[3] = {Z, Y, X};
    SIO_NC_CHECK(ncmpi_get_vara_int_all(ncid, cube, zero, all, back));
    for (long i = 0; i < Z * Y * X; ++i)
      wrong += back[i] != (int)i + f;
    SIO_NC_CHECK(ncmpi_close(ncid));
  }
  if (rank == 0)
    printf("%d files, %ld wrong of %d\n", n, wrong, n * Z * Y * X);
  free(buf), free(back);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
