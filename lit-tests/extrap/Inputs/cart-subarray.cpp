// A 2-D block decomposition over the MPI_Dims_create grid (issue 14 item 3):
// a Cartesian communicator, each rank's block of 16x16 ints located with
// MPI_Cart_coords and written through a subarray filetype with a collective
// write; then the same grid decomposed by hand, Fortran style (x = rank %
// px, y = rank / px with px the grid's first dimension), for a second file.
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int dims[2] = {0, 0}, periods[2] = {0, 0};
  MPI_Dims_create(n, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int crank, coords[2];
  MPI_Comm_rank(cart, &crank);
  MPI_Cart_coords(cart, crank, 2, coords);

  static int buf[256] = {};
  const int gsizes[2] = {16 * dims[0], 16 * dims[1]}, lsizes[2] = {16, 16};
  const int starts[2] = {16 * coords[0], 16 * coords[1]};
  MPI_Datatype block;
  MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_INT, &block);
  MPI_Type_commit(&block);
  MPI_File fh;
  MPI_File_open(cart, "grid.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, block, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&block);

  const int px = dims[0], x = rank % px, y = rank / px;
  const int fsizes[2] = {16 * dims[1], 16 * px}, fstarts[2] = {16 * y, 16 * x};
  MPI_Datatype tile;
  MPI_Type_create_subarray(2, fsizes, lsizes, fstarts, MPI_ORDER_C, MPI_INT, &tile);
  MPI_Type_commit(&tile);
  MPI_File_open(MPI_COMM_WORLD, "tiles.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, tile, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&tile);
  MPI_Comm_free(&cart);
  MPI_Finalize();
}
