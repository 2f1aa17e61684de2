// A partitioned variable whose name is so long that the partition's
// dimension "DIM.VAR" exceeds NC_MAX_NAME: ncmpi_enddef must fail with
// PnetCDF's code and sio must say which partition file and which definition
// (stderr). Rank 0 prints the code.
//   long-name DIR
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096], name[NC_MAX_NAME + 1];
  snprintf(path, sizeof path, "%s/long.nc", argv[1]);
  memset(name, 'v', NC_MAX_NAME);
  name[NC_MAX_NAME] = '\0';
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_partitioning_enabled", "true");
  int ncid, y, var;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "yy", 8, &y));
  SIO_NC_CHECK(ncmpi_def_var(ncid, name, NC_INT, 1, &y, &var));
  int err = ncmpi_enddef(ncid);
  if (rank == 0)
    printf("enddef: %s\n", err == NC_NOERR ? "No error" : "failed");
  ncmpi_close(ncid);
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
