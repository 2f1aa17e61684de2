// Communicators made by MPI_Comm_split whose color and key are functions of
// the rank: one group of everybody (key = rank) and two halves
// (color = rank % 2, key = -rank), used for file I/O and a barrier.
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm all, half;
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &all);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  char buf[64] = {};
  MPI_File fh;
  MPI_File_open(all, "split.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Barrier(half);
  MPI_File_open(half, "half.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at(fh, MPI_Offset(rank) * 64, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Comm_free(&half);
  MPI_Comm_free(&all);
  MPI_Finalize();
}
