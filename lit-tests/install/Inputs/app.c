// Each rank writes its block of one shared file with MPI-IO and reads it back
// with POSIX: a program sio traces at several rank counts and extrapolates.
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *path = argc > 1 ? argv[1] : "app.dat";
  char buf[960];
  memset(buf, 'a' + rank % 26, sizeof buf);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int i = 0; i < 4; ++i)
    MPI_File_write_at(fh, (MPI_Offset)(i * nranks + rank) * 960, buf, 960, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    pread(fd, buf, sizeof buf, (off_t)rank * 960);
    close(fd);
  }
  MPI_Finalize();
  return 0;
}
