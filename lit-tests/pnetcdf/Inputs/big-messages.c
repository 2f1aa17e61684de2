// Writes and reads a partitioned 2-D array whose rows are cut over K = nprocs
// partitions while each rank writes a block of columns, so every rank sends
// data to every other partition's delegate and gets read data back. The
// program interposes MPI_Isend/MPI_Irecv (PMPI) and records the largest
// message of MPI_BYTE and how many there were: run with SIO_PART_MAX_MSG=N,
// no message may exceed N bytes and the data read back must be the formula.
//   big-messages DIR LIMIT
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>

enum { NY = 64, NX = 256 };

static long long largest = 0, messages = 0;

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  if (type == MPI_BYTE) {
    largest = count > largest ? count : largest;
    ++messages;
  }
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req) {
  if (type == MPI_BYTE)
    largest = count > largest ? count : largest;
  return PMPI_Irecv(buf, count, type, src, tag, comm, req);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  long long limit = atoll(argv[2]);
  char path[4096], k[16];
  snprintf(path, sizeof path, "%s/big.nc", argv[1]);
  snprintf(k, sizeof k, "%d", nprocs);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_partitioning_enabled", "true");
  MPI_Info_set(info, "nc_num_partitions", k);
  int ncid, y, x, var;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", NY, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", NX, &x));
  int dims[2] = {y, x};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "a", NC_INT, 2, dims, &var));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  // Columns [x0, x0 + nx) of every row: crosses every partition (cut on y).
  MPI_Offset x0 = (MPI_Offset)NX * rank / nprocs, nx = (MPI_Offset)NX * (rank + 1) / nprocs - x0;
  MPI_Offset st[2] = {0, x0}, ct[2] = {NY, nx};
  int *buf = malloc(sizeof(int) * NY * NX);
  for (long i = 0; i < NY * nx; ++i)
    buf[i] = (int)((i / nx) * NX + x0 + i % nx);
  SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, var, st, ct, buf));
  SIO_NC_CHECK(ncmpi_close(ncid));

  SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset all[2] = {0, 0}, whole[2] = {NY, NX};
  SIO_NC_CHECK(ncmpi_get_vara_int_all(ncid, var, all, whole, buf));
  SIO_NC_CHECK(ncmpi_close(ncid));
  long wrong = 0;
  for (long i = 0; i < NY * NX; ++i)
    wrong += buf[i] != (int)i;
  long long big = 0, sent = 0;
  long wrongAll = 0;
  MPI_Reduce(&largest, &big, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&messages, &sent, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&wrong, &wrongAll, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("ranks=%d wrong elements: %ld\n", nprocs, wrongAll);
    printf("largest message %s the limit\n", big <= limit ? "within" : "OVER");
    printf("messages: %s\n", sent >= 2 * (long long)NY * NX * 4 / nprocs / limit ? "split" : "NOT SPLIT");
  }
  free(buf);
  MPI_Info_free(&info);
  MPI_Finalize();
  return wrongAll != 0 || big > limit;
}
