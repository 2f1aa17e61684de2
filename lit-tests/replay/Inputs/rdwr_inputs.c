/* Input files opened for reading and writing but only read (issue "A peer's
 * test suite": gfortran opens its input files O_RDWR), through each layer:
 * POSIX open(O_RDWR), stdio fopen("r+"), MPI_File_open(MPI_MODE_RDWR). The
 * replay took them for output, never provided them, and failed to open
 * them. Each rank reads 100 bytes of each; rank 0 then writes out.dat. */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[100];
  int fd = open("in_posix.dat", O_RDWR);
  if (fd < 0 || pread(fd, buf, sizeof buf, 100 * rank) != (ssize_t)sizeof buf)
    MPI_Abort(MPI_COMM_WORLD, 1);
  close(fd);
  FILE *f = fopen("in_stdio.dat", "r+");
  if (!f || fread(buf, 1, sizeof buf, f) != sizeof buf)
    MPI_Abort(MPI_COMM_WORLD, 2);
  fclose(f);
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, "in_mpi.dat", MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_File_read_at_all(fh, 100 * rank, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (rank == 0) {
    FILE *out = fopen("out.dat", "w");
    fwrite(buf, 1, sizeof buf, out);
    fclose(out);
  }
  MPI_Finalize();
  return 0;
}
