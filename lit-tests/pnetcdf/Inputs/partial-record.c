// A record variable rec(time, y, x) cut on y into K partitions: record 0 is
// written whole, record 5 only in the first quarter of y (the first
// partition). Reading the whole of record 5 through the master (every rank)
// must succeed as on an unpartitioned file, and the rows written must read
// back. Writes DIR/part.nc (partitioned, K from argv) and DIR/plain.nc.
//   partial-record DIR K
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>

enum { NY = 8, NX = 3 };

static int rank;

static void run(const char *dir, const char *k) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.nc", dir, k ? "part" : "plain");
  MPI_Info info;
  MPI_Info_create(&info);
  if (k) {
    MPI_Info_set(info, "nc_partitioning_enabled", "true");
    MPI_Info_set(info, "nc_num_partitions", k);
  }
  int ncid, t, y, x, v;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", NY, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", NX, &x));
  int dims[3] = {t, y, x};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "rec", NC_INT, 3, dims, &v));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  int data[NY * NX], got[NY * NX];
  for (int i = 0; i < NY * NX; ++i)
    data[i] = 1 + i;
  MPI_Offset st[3] = {0, 0, 0}, ct[3] = {1, NY, NX};
  if (rank != 0)
    ct[0] = 0;
  SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, v, st, ct, data));
  MPI_Offset st5[3] = {5, 0, 0}, ct5[3] = {1, NY / 4, NX};
  if (rank != 0)
    ct5[0] = 0;
  SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, v, st5, ct5, data));
  SIO_NC_CHECK(ncmpi_close(ncid));

  SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset len = 0;
  SIO_NC_CHECK(ncmpi_inq_dimlen(ncid, t, &len));
  MPI_Offset all5[3] = {5, 0, 0}, whole[3] = {1, NY, NX};
  int err = ncmpi_get_vara_int_all(ncid, v, all5, whole, got);
  int wrong = 0;
  for (int i = 0; err == NC_NOERR && i < NY / 4 * NX; ++i)
    wrong += got[i] != data[i];
  if (rank == 0)
    printf("%s: records %lld, read of record 5: %s, written rows wrong: %d\n", k ? "partitioned" : "plain",
           (long long)len, ncmpi_strerror(err), wrong);
  SIO_NC_CHECK(ncmpi_close(ncid));
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  run(argv[1], NULL);
  run(argv[1], argv[2]);
  MPI_Finalize();
  return 0;
}
