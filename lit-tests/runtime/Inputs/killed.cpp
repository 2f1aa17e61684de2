// Writes a little, then (before MPI_Finalize) either aborts ("abort"), or
// announces itself ready with a directory `ready_<rank>.<pid>` and waits to
// be killed ("wait"; see term_job.py).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[32];
  std::snprintf(name, sizeof name, "killed_%d.dat", rank);
  int fd = open(name, O_CREAT | O_WRONLY, 0644);
  for (int i = 0; i < 5; i++)
    pwrite(fd, "12345678", 8, 8 * i);
  MPI_Barrier(MPI_COMM_WORLD);
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0)
    std::abort();
  std::snprintf(name, sizeof name, "ready_%d.%ld", rank, long(getpid()));
  mkdir(name, 0755); // not an intercepted call
  for (int i = 0; i < 600; i++)
    usleep(50000);
  MPI_Finalize();
  return 0;
}
