/* A metadata-heavy program (issue "A peer's test suite", overwrite check with
 * side effects): rank 0 makes a directory tree, then every rank writes one
 * file in it. A replay in a fresh directory once refused to start, "... exists
 * and the replay would write it": one rank's overwrite check had created the
 * parent directories that another rank then found, and left them behind. */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    mkdir("tree", 0755);
    mkdir("tree/sub", 0755);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char name[64];
  snprintf(name, sizeof name, "tree/sub/file_%d", rank);
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  write(fd, "0123456789", 10);
  close(fd);
  MPI_Finalize();
  return 0;
}
