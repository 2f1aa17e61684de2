/* A 2-d grid that does not divide the array (issue "Elastic models for real
 * decompositions", item 2): an n x n array of ints (n = 128 unless -DLEN)
 * over the MPI_Dims_create(N, 2) grid, each dimension split as a block
 * distribution with a remainder (n/d + (c < n % d) cells at coordinate c,
 * the first n % d coordinates one more), written through a subarray view.
 * At N = 12 the grid is 4 x 3 and 128 cells over 3 leave 43, 43, 42; at 4,
 * 8, 16, 32, 64 every dimension (2, 4, 8) divides 128. */
#include <mpi.h>
#include <stdlib.h>

#ifndef LEN
#define LEN 128
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, N;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  int dims[2] = {0, 0};
  MPI_Dims_create(N, 2, dims);
  const int coords[2] = {rank / dims[1], rank % dims[1]};
  int gsizes[2] = {LEN, LEN}, sub[2], starts[2];
  for (int k = 0; k < 2; ++k) {
    const int q = LEN / dims[k], r = LEN % dims[k];
    sub[k] = q + (coords[k] < r);
    starts[k] = coords[k] * q + (coords[k] < r ? coords[k] : r);
  }
  MPI_Datatype ft;
  MPI_Type_create_subarray(2, gsizes, sub, starts, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  int *buf = calloc((size_t)sub[0] * sub[1], sizeof(int));
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "grid.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, sub[0] * sub[1], MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&ft);
  free(buf);
  MPI_Finalize();
  return 0;
}
