// Communicators made by every MPI 4.0 constructor a program typically uses,
// each used for I/O or synchronization: split_type (node), dup_with_info,
// a Cartesian grid over MPI_Dims_create and a row of it (Cart_sub), the lower
// half of the ranks through a group (Comm_create, Comm_create_group), an
// intercommunicator between even and odd ranks and its merge, and a
// distributed-graph communicator, which sio does not intercept (replayed from
// its membership).
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  char buf[64] = {};
  MPI_File fh;

  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Barrier(node);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Comm dup;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup);
  MPI_Info_free(&info);
  MPI_File_open(dup, "dup.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  int dims[2] = {0, 0}, periods[2] = {0, 1}, remain[2] = {0, 1};
  MPI_Dims_create(n, 2, dims);
  MPI_Comm cart, row;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_sub(cart, remain, &row);
  MPI_File_open(cart, "cart.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Barrier(row);

  MPI_Group world, lowerHalf;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int range[1][3] = {{0, n / 2 - 1, 1}};
  MPI_Group_range_incl(world, 1, range, &lowerHalf);
  MPI_Comm lower, lowerToo = MPI_COMM_NULL;
  MPI_Comm_create(MPI_COMM_WORLD, lowerHalf, &lower);
  if (rank < n / 2) {
    MPI_Comm_create_group(MPI_COMM_WORLD, lowerHalf, 7, &lowerToo);
    MPI_File_open(lower, "lower.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, MPI_Offset(rank) * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Barrier(lowerToo);
  }

  MPI_Comm parity, inter, merged;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
  MPI_Intercomm_create(parity, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 99, &inter);
  MPI_Intercomm_merge(inter, rank % 2, &merged);
  MPI_File_open(merged, "merged.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  MPI_Comm ring;
  int from = (rank + n - 1) % n, to = (rank + 1) % n;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &ring);
  MPI_Barrier(ring);

  MPI_Comm_free(&ring);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&parity);
  if (lowerToo != MPI_COMM_NULL)
    MPI_Comm_free(&lowerToo);
  if (lower != MPI_COMM_NULL)
    MPI_Comm_free(&lower);
  MPI_Group_free(&lowerHalf);
  MPI_Group_free(&world);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&node);
  MPI_Finalize();
}
