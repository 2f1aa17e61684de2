/* A 3-d array over a 3-d process grid, as S3D-I/O and FLASH decompose it:
 * LEN^3 doubles (64 unless -DLEN) over the MPI_Dims_create(N, 3) grid of a
 * Cartesian communicator (2x2x1, 2x2x2, 3x2x2, 4x2x2 at N = 4, 8, 12, 16;
 * 4x4x2 at 32, 4x4x4 at 64), each rank's block a subarray from its
 * MPI_Cart_coords, each dimension split as a block distribution with a
 * remainder (LEN/p + (c < LEN % p) cells at coordinate c: 64 over 3 leaves
 * 22, 21, 21). Written collectively, then read back and checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef LEN
#define LEN 64
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int N;
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0};
  MPI_Dims_create(N, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  int rank, coords[3];
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  int gsizes[3] = {LEN, LEN, LEN}, sub[3], starts[3];
  for (int k = 0; k < 3; ++k) {
    const int q = LEN / dims[k], r = LEN % dims[k];
    sub[k] = q + (coords[k] < r);
    starts[k] = coords[k] * q + (coords[k] < r ? coords[k] : r);
  }
  MPI_Datatype ft;
  MPI_Type_create_subarray(3, gsizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
  MPI_Type_commit(&ft);
  const int count = sub[0] * sub[1] * sub[2];
  double *buf = malloc((size_t)count * sizeof(double));
  for (int i = 0; i < count; ++i)
    buf[i] = rank + i * 1e-6;
  MPI_File fh;
  MPI_File_open(cart, "grid3d.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
  for (int i = 0; i < count; ++i)
    buf[i] = -1;
  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  MPI_File_read_all(fh, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
  for (int i = 0; i < count; ++i)
    if (buf[i] != rank + i * 1e-6) {
      fprintf(stderr, "grid3d: rank %d read back a wrong value at %d\n", rank, i);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  MPI_File_close(&fh);
  MPI_Type_free(&ft);
  MPI_Comm_free(&cart);
  free(buf);
  MPI_Finalize();
  return 0;
}
