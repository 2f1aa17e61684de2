// Fill settings on a partitioned file: asking for fill (ncmpi_set_fill
// NC_FILL, ncmpi_def_var_fill with no_fill = 0, ncmpi_fill_var_rec) on a
// partitioned variable or file, and ncmpi_inq_varoffset of one, must fail
// with NC_ENOTSUPPORT instead of acting on the master's scalar placeholder
// only; NC_NOFILL (the partitions' mode) is accepted and ncmpi_inq_var_fill
// reports it; variables kept in the master are untouched. Rank 0 prints one
// line per call.
//   fill DIR
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>

static int rank;

static void show(const char *what, int err) {
  if (rank == 0)
    printf("%s: %s\n", what, ncmpi_strerror(err));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s/fill.nc", argv[1]);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_partitioning_enabled", "true");
  int ncid, t, y, arr, rec, scalar, old;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  show("set_fill NC_FILL", ncmpi_set_fill(ncid, NC_FILL, &old));
  show("set_fill NC_NOFILL", ncmpi_set_fill(ncid, NC_NOFILL, &old));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", 8, &y));
  int dr[2] = {t, y};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "arr", NC_INT, 1, &y, &arr));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "rec", NC_INT, 2, dr, &rec));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "scalar", NC_INT, 0, NULL, &scalar));
  int fv = -7;
  show("def_var_fill arr fill", ncmpi_def_var_fill(ncid, arr, 0, &fv));
  show("def_var_fill arr nofill", ncmpi_def_var_fill(ncid, arr, 1, NULL));
  show("def_var_fill scalar fill", ncmpi_def_var_fill(ncid, scalar, 0, &fv));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  int nofill = -1, value = 0;
  show("inq_var_fill arr", ncmpi_inq_var_fill(ncid, arr, &nofill, &value));
  if (rank == 0)
    printf("arr no_fill=%d\n", nofill);
  show("fill_var_rec rec", ncmpi_fill_var_rec(ncid, rec, 0));
  MPI_Offset off;
  show("inq_varoffset arr", ncmpi_inq_varoffset(ncid, arr, &off));
  show("inq_varoffset scalar", ncmpi_inq_varoffset(ncid, scalar, &off));
  SIO_NC_CHECK(ncmpi_close(ncid));
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
