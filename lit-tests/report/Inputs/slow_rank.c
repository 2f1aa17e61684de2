/* A straggler: at 4 ranks, rank 2 computes 20 ms before each of its four
 * writes and writes 10 times more; then all ranks meet at a barrier.
 * slow-rank.test checks that the timelines show it. */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

static char buf[10 << 18];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  memset(buf, 'a' + rank, sizeof buf);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "slow.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  const int slow = rank == 2;
  const int count = slow ? 10 << 18 : 1 << 18;
  for (int i = 0; i < 4; i++) {
    if (slow)
      usleep(20000);
    MPI_File_write_at(fh, ((MPI_Offset)rank * 4 + i) * (10 << 18), buf, count, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
