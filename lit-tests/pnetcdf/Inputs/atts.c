// Attributes of a partitioned variable through the master: sio's four
// bookkeeping attributes (num_partitions, ndims_org, dimids_org,
// partition_dim) are hidden from ncmpi_inq_var/ncmpi_inq_varnatts and from
// ncmpi_inq_attname's indices, after ncmpi_enddef and after reopening. The
// application's attributes, and a global one named partition_note, are kept
// (also by sio-part-merge: see atts.test).
//   atts DIR
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>

static int rank;

static void show(int ncid, int var, const char *when) {
  int natts = -1, nv = -1;
  char name[NC_MAX_NAME + 1] = "";
  SIO_NC_CHECK(ncmpi_inq_var(ncid, var, NULL, NULL, NULL, NULL, &natts));
  SIO_NC_CHECK(ncmpi_inq_varnatts(ncid, var, &nv));
  if (rank == 0)
    printf("%s: inq_var natts %d, inq_varnatts %d:", when, natts, nv);
  for (int a = 0; a < nv; ++a) {
    SIO_NC_CHECK(ncmpi_inq_attname(ncid, var, a, name));
    if (rank == 0)
      printf(" %s", name);
  }
  int err = ncmpi_inq_attname(ncid, var, nv, name);
  if (rank == 0)
    printf("; index %d: %s\n", nv, ncmpi_strerror(err));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s/atts.nc", argv[1]);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_partitioning_enabled", "true");
  int ncid, y, var;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", 8, &y));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "arr", NC_INT, 1, &y, &var));
  SIO_NC_CHECK(ncmpi_put_att_text(ncid, var, "units", 1, "m"));
  SIO_NC_CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "partition_note", 2, "hi"));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  show(ncid, var, "enddef");
  SIO_NC_CHECK(ncmpi_close(ncid));
  SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  show(ncid, var, "open");
  SIO_NC_CHECK(ncmpi_close(ncid));
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
