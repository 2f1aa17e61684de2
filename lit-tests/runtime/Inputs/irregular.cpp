// An irregular stream beside a regular one: 3000 pwrites per rank at
// pseudo-random offsets within 100 kB with pseudo-random sizes 1-8 (values
// no model fits: the runtime's column store), then 100 writes with a fixed
// stride. Prints the bytes written by all ranks.
#include <mpi.h>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[32];
  std::snprintf(name, sizeof name, "irregular_%d.dat", rank);
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  const char buf[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
  unsigned x = 777u + 31u * unsigned(rank);
  long long written = 0;
  for (int i = 0; i < 3000; i++) {
    x = x * 1103515245u + 12345u;
    written += pwrite(fd, buf, 1 + (x >> 28) % 8, off_t((x >> 8) % 100000));
  }
  for (int i = 0; i < 100; i++)
    written += pwrite(fd, buf, 8, off_t(200000 + 4096 * i));
  close(fd);
  unlink(name);
  long long total = 0;
  MPI_Reduce(&written, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("written %lld\n", total);
  MPI_Finalize();
}
