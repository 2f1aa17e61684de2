// Writes three files: argv[1] (an absolute path), a name with `..` that
// climbs out of the working directory, and a plain relative name; each rank
// writes 8 bytes at 8*rank. The trace names them as the program did, which
// is what a replay must not take literally.
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

// A macro, not a function: each file gets call sites of its own.
#define WRITE_AT(path, offset)                                                                                 \
  do {                                                                                                         \
    int fd = open(path, O_CREAT | O_WRONLY, 0644);                                                             \
    pwrite(fd, "REPLAYED", 8, offset);                                                                         \
    close(fd);                                                                                                 \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1)
    WRITE_AT(argv[1], 8L * rank);
  WRITE_AT("../../climbed.dat", 8L * rank);
  WRITE_AT("local.dat", 8L * rank);
  MPI_Finalize();
  return 0;
}
