/* A 3-d darray over MPI_Dims_create(nranks, 3, dims) (weak scaling, a
 * 16x16x16 block of ints per rank): each rank writes its block with
 * MPI_File_write_all through the darray view. At 4, 8, 12 and 16 ranks
 * dims[1] is 2 every time; at 24 it is 3 and at 32 it is 4, so a constant
 * fitted to the inputs is wrong at 32 (the ambiguity rule of
 * docs/extrap.md). */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(n, 3, dims);
  enum { B = 16 };
  const int gsizes[3] = {B * dims[0], B * dims[1], B * dims[2]};
  const int distribs[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  const int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Datatype grid;
  MPI_Type_create_darray(n, rank, 3, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_INT, &grid);
  MPI_Type_commit(&grid);
  static int buf[B * B * B];
  for (int i = 0; i < B * B * B; ++i)
    buf[i] = rank;
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "darray3d.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, grid, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, B * B * B, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&grid);
  MPI_Finalize();
  return 0;
}
