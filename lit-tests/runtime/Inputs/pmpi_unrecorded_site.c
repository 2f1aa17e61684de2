// A program that says its PMPI_ calls are its own set-up
// (__sio_pmpi_unrecorded(), as sio's replays do), then makes one such call,
// marked by the plugin, and then a write the plugin cannot mark (through a
// function pointer). The set-up call's site must not end up on the write.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

void __sio_pmpi_unrecorded(void);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  __sio_pmpi_unrecorded();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[32] = "unmarked.0.dat";
  name[9] = (char)('0' + rank);
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ssize_t (*volatile unmarkedWrite)(int, const void *, size_t) = write;
  PMPI_Barrier(MPI_COMM_WORLD); // set-up: not recorded
  unmarkedWrite(fd, "data", 4);
  close(fd);
  MPI_Finalize();
  return 0;
}
