// A sample with computation between its I/O phases, for time-accurate.test:
// 40 ms between MPI_Init and the open (the first gap), eight writes after 1,
// 2, 4 or 8 ms each (a gap histogram over four bins, so the replay's draws
// depend on its seed), then 60 ms before a single write; 130 ms in all. The
// 40 and 60 ms gaps have one sample per rank: the replay must reproduce them
// whatever it draws.
#include <mpi.h>

#include <time.h>

static void computeMs(long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, nullptr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[4096] = {};
  computeMs(40);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "gaps.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < 8; i++) {
    computeMs(1L << (i % 4));
    MPI_File_write_at(fh, MPI_Offset(rank) * 8 * 4096 + i * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  computeMs(60);
  MPI_File_write_at(fh, 65536 + rank * 512, buf, 512, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}
