// Posts nonblocking requests (iput, bput, iget) on a 2-D variable and closes
// the file without waiting for them, once unpartitioned and once partitioned
// (K = nprocs): ncmpi_close must return the same code (PnetCDF: NC_EPENDING,
// the requests cancelled) and the cancelled writes must not reach the file
// (none of the elements read back is the data). Then the same with the
// requests waited for, which must write. One line per file on rank 0.
//   close-pending DIR
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>

enum { NY = 8, NX = 6 };

static int rank, nprocs;

static void run(const char *dir, int partitioned, int wait) {
  char path[4096], k[16];
  snprintf(path, sizeof path, "%s/%s%d.nc", dir, partitioned ? "part" : "plain", wait);
  snprintf(k, sizeof k, "%d", nprocs);
  MPI_Info info;
  MPI_Info_create(&info);
  if (partitioned) {
    MPI_Info_set(info, "nc_partitioning_enabled", "true");
    MPI_Info_set(info, "nc_num_partitions", k);
  }
  int ncid, y, x, var, other;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", NY, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", NX, &x));
  int dims[2] = {y, x};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "a", NC_INT, 2, dims, &var));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "b", NC_INT, 2, dims, &other));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  SIO_NC_CHECK(ncmpi_buffer_attach(ncid, NY * NX * sizeof(int)));
  // Rows of this rank: half through iput, half through bput; an iget of b.
  MPI_Offset y0 = (MPI_Offset)NY * rank / nprocs, ny = (MPI_Offset)NY * (rank + 1) / nprocs - y0;
  int data[NY * NX], got[NY * NX];
  for (int i = 0; i < NY * NX; ++i)
    data[i] = 1000 + i;
  MPI_Offset st[2] = {y0, 0}, ct[2] = {ny, NX / 2}, st2[2] = {y0, NX / 2};
  int req[3];
  SIO_NC_CHECK(ncmpi_iput_vara_int(ncid, var, st, ct, data, &req[0]));
  SIO_NC_CHECK(ncmpi_bput_vara_int(ncid, var, st2, ct, data, &req[1]));
  SIO_NC_CHECK(ncmpi_iget_vara_int(ncid, other, st, ct, got, &req[2]));
  if (wait) {
    int statuses[3];
    SIO_NC_CHECK(ncmpi_wait_all(ncid, 3, req, statuses));
    SIO_NC_CHECK(ncmpi_buffer_detach(ncid));
  }
  int err = ncmpi_close(ncid), errMax, errMin;
  MPI_Allreduce(&err, &errMax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&err, &errMin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset all[2] = {0, 0}, whole[2] = {NY, NX};
  SIO_NC_CHECK(ncmpi_get_vara_int_all(ncid, var, all, whole, got));
  SIO_NC_CHECK(ncmpi_close(ncid));
  int written = 0;
  for (int i = 0; i < NY * NX; ++i) {
    int col = i % NX, row = i / NX;
    int rowRank = 0;
    while ((MPI_Offset)NY * (rowRank + 1) / nprocs <= row)
      ++rowRank;
    int expect = 1000 + (row - NY * rowRank / nprocs) * (NX / 2) + col % (NX / 2);
    written += got[i] == expect;
  }
  if (rank == 0)
    printf("%s %s: close returned %s%s; elements written %d of %d\n", partitioned ? "partitioned" : "plain",
           wait ? "waited" : "not waited", ncmpi_strerror(errMax), errMin == errMax ? "" : " (on some ranks)", written,
           NY * NX);
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  for (int wait = 0; wait < 2; ++wait)
    for (int partitioned = 0; partitioned < 2; ++partitioned)
      run(argv[1], partitioned, wait);
  MPI_Finalize();
  return 0;
}
