// Collective calls in which the ranks name different variables: rank 0 a
// partitioned one, the others a variable kept whole in the master (a 1-D
// record variable). All ranks must take the same path through the collective
// (no hang) and the data must arrive: mput_vara_all (rank 0 names only the
// partitioned variable), put_vara_all, put_varn_all and get_vara_all.
// Rank 0 prints one line per form; exit status 1 on wrong data.
//   mixed-collective DIR
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>

enum { NY = 8, NX = 4 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char path[4096], k[16];
  snprintf(path, sizeof path, "%s/mixed.nc", argv[1]);
  snprintf(k, sizeof k, "%d", nprocs);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_partitioning_enabled", "true");
  MPI_Info_set(info, "nc_num_partitions", k);
  int ncid, t, y, x, p, whole;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", NY, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", NX, &x));
  int dims[2] = {y, x};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "p", NC_INT, 2, dims, &p));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "whole", NC_INT, 1, &t, &whole));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  int data[NY * NX], got[NY * NX], bad = 0;
  for (int i = 0; i < NY * NX; ++i)
    data[i] = 7 + i;
  MPI_Offset pst[2] = {0, 0}, pct[2] = {NY, NX}, wst[1] = {rank}, wct[1] = {1};

  // mput_vara_all: rank 0 names only p, the others only `whole`.
  MPI_Offset *sts[1] = {rank == 0 ? pst : wst}, *cts[1] = {rank == 0 ? pct : wct};
  int ids[1] = {rank == 0 ? p : whole};
  int *bufs[1] = {data};
  SIO_NC_CHECK(ncmpi_mput_vara_int_all(ncid, 1, ids, sts, cts, bufs));
  if (rank == 0)
    printf("mput_vara_all mixed: returned\n");
  fflush(stdout);

  // put_vara_all: rank 0 writes p (doubled), the others `whole` (+100).
  for (int i = 0; i < NY * NX; ++i)
    data[i] = 2 * (7 + i);
  if (rank == 0)
    SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, p, pst, pct, data));
  else {
    int v = 100 + rank;
    SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, whole, wst, wct, &v));
  }
  if (rank == 0)
    printf("put_vara_all mixed: returned\n");
  fflush(stdout);

  // put_varn_all: the same pattern, one subarray each.
  MPI_Offset *vst[1] = {rank == 0 ? pst : wst}, *vct[1] = {rank == 0 ? pct : wct};
  int v = 200 + rank;
  SIO_NC_CHECK(ncmpi_put_varn_int_all(ncid, rank == 0 ? p : whole, 1, vst, vct, rank == 0 ? data : &v));
  if (rank == 0)
    printf("put_varn_all mixed: returned\n");
  fflush(stdout);

  // get_vara_all: rank 0 reads p, the others `whole`.
  if (rank == 0) {
    SIO_NC_CHECK(ncmpi_get_vara_int_all(ncid, p, pst, pct, got));
    for (int i = 0; i < NY * NX; ++i)
      bad += got[i] != 2 * (7 + i);
  } else {
    int w = -1;
    SIO_NC_CHECK(ncmpi_get_vara_int_all(ncid, whole, wst, wct, &w));
    bad += w != 200 + rank;
  }
  int badAll = 0;
  MPI_Allreduce(&bad, &badAll, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("get_vara_all mixed: returned; wrong elements: %d\n", badAll);
  SIO_NC_CHECK(ncmpi_close(ncid));
  MPI_Info_free(&info);
  MPI_Finalize();
  return badAll != 0;
}
