// Flexible API with a predefined buffer type and a bufcount that differs
// from the request (larger or smaller), on an ordinary and a partitioned
// file: both must return PnetCDF's NC_EIOMISMATCH. Rank 0 prints one line per
// file.
//   bufcount DIR
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int part = 0; part < 2; ++part) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.nc", argv[1], part ? "part" : "plain");
    MPI_Info info;
    MPI_Info_create(&info);
    if (part)
      MPI_Info_set(info, "nc_partitioning_enabled", "true");
    int ncid, y, v, buf[16] = {0};
    SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
    SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", 8, &y));
    SIO_NC_CHECK(ncmpi_def_var(ncid, "a", NC_INT, 1, &y, &v));
    SIO_NC_CHECK(ncmpi_enddef(ncid));
    MPI_Offset st = 0, ct = 8;
    int e1 = ncmpi_put_vara_all(ncid, v, &st, &ct, buf, 12, MPI_INT);
    int e2 = ncmpi_get_vara_all(ncid, v, &st, &ct, buf, 12, MPI_INT);
    int e3 = ncmpi_put_vara_all(ncid, v, &st, &ct, buf, 4, MPI_INT);
    if (rank == 0)
      printf("%s: larger put: %s; larger get: %s; smaller put: %s\n", part ? "partitioned" : "plain",
             ncmpi_strerror(e1), ncmpi_strerror(e2), ncmpi_strerror(e3));
    SIO_NC_CHECK(ncmpi_close(ncid));
    MPI_Info_free(&info);
  }
  MPI_Finalize();
  return 0;
}
