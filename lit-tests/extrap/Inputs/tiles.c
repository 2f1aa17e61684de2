/* Grids given by the program, not by MPI_Dims_create (issue "Elastic models
 * for real decompositions", item 3): a tile reader on an (N/2) x 2 grid of
 * 16x16-int tiles (coordinates by hand: rank / 2, rank % 2), then a
 * Cartesian communicator made from the explicit dims {2, N/2}, each rank
 * locating its tile with MPI_Cart_coords (rank / (N/2), rank % (N/2)): the
 * tiles are written through a subarray view with a collective write and
 * read back through the same view. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  static int buf[256];
  const int lsizes[2] = {16, 16};
  MPI_File fh;

  /* (N/2) x 2 */
  const int rows = n / 2, cols = 2, y = rank / cols, x = rank % cols;
  const int gsizes[2] = {16 * rows, 16 * cols}, starts[2] = {16 * y, 16 * x};
  MPI_Datatype tile;
  MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_INT, &tile);
  MPI_Type_commit(&tile);
  MPI_File_open(MPI_COMM_WORLD, "tiles.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, tile, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_read_at_all(fh, 0, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&tile);

  /* 2 x (N/2) from explicit dims */
  int dims[2] = {2, n / 2}, periods[2] = {0, 0}, coords[2], crank;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &crank);
  MPI_Cart_coords(cart, crank, 2, coords);
  const int cg[2] = {16 * dims[0], 16 * dims[1]}, cs[2] = {16 * coords[0], 16 * coords[1]};
  MPI_Type_create_subarray(2, cg, lsizes, cs, MPI_ORDER_C, MPI_INT, &tile);
  MPI_Type_commit(&tile);
  MPI_File_open(cart, "cart.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, tile, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_read_at_all(fh, 0, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&tile);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
