/* Block distributions with remainders (issue "Elastic models for real
 * decompositions", item 2): an array of n = 506 doubles that no rank count
 * of the test divides, written four ways:
 *   1. n/N + (rank < n % N) elements a rank (the first n % N ranks one more);
 *   2. ceil(n/N) elements a rank and a short last block (ROMIO's darray
 *      block size), with a loop of ceil(n/N) one-element writes on all but
 *      the last rank;
 *   3. floor(n/N) elements a rank (the n % N left over are not written: a
 *      rank that writes more is the inter-rank merge's case, another item);
 *   4. a 1-d block darray of 506 ints (MPI_Type_create_darray) through a
 *      file view, the count from MPI_Type_size. */
#include <mpi.h>

#ifndef LEN
#define LEN 506 /* -DLEN=505: the remainder leaves rank 0 alone at 4, 8, 12 */
#endif
enum { n = LEN };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, N;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  static double buf[n];
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "block.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);

  const int q = n / N, r = n % N;
  const int mine = q + (rank < r), start = rank * q + (rank < r ? rank : r);
  MPI_File_write_at(fh, (MPI_Offset)start * 8, buf, mine, MPI_DOUBLE, MPI_STATUS_IGNORE);

  const int blk = (n + N - 1) / N, last = n - (N - 1) * blk;
  MPI_Offset base = (MPI_Offset)n * 8;
  if (rank < N - 1)
    for (int i = 0; i < blk; ++i)
      MPI_File_write_at(fh, base + ((MPI_Offset)rank * blk + i) * 8, buf, 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
  else
    MPI_File_write_at(fh, base + (MPI_Offset)rank * blk * 8, buf, last, MPI_DOUBLE, MPI_STATUS_IGNORE);

  base += (MPI_Offset)n * 8;
  MPI_File_write_at(fh, base + (MPI_Offset)rank * q * 8, buf, q, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  int gsize = n, distrib = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG, psize = N, size = 0;
  MPI_Datatype ft;
  MPI_Type_create_darray(N, rank, 1, &gsize, &distrib, &darg, &psize, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  MPI_Type_size(ft, &size);
  MPI_File_open(MPI_COMM_WORLD, "darray.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, size / 4, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&ft);
  MPI_Finalize();
  return 0;
}
