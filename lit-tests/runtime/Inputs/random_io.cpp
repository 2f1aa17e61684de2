// Incompressible I/O: pseudo-random offsets, 4000 writes per rank.
#include <mpi.h>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[32];
  std::snprintf(name, sizeof name, "random_%d.dat", rank);
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  unsigned x = 12345u + unsigned(rank);
  int n = 0;
  for (; n < 4000; n++) {
    x = x * 1103515245u + 12345u;
    pwrite(fd, "z", 1, off_t((x >> 8) % 100000));
  }
  close(fd);
  unlink(name);
  if (rank == 0)
    std::printf("done %d\n", n);
  MPI_Finalize();
}
