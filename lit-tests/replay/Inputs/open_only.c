/* Input files the application opens but never reads through the call it
 * traced (ROMIO's syshints opens its hints file read-only with
 * MPI_File_open, which ROMIO reads underneath; a program may open a file
 * only to check it or to get its size): they existed, so the replay must
 * provide them, or its open fails where the application's succeeded. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_File fh;
  MPI_Offset size = -1;
  if (MPI_File_open(MPI_COMM_WORLD, "only_mpi.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_File_get_size(fh, &size);
  MPI_File_close(&fh);
  int fd = open("only_posix.dat", O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  close(fd);
  FILE *f = fopen("only_stdio.dat", "r");
  if (!f)
    MPI_Abort(MPI_COMM_WORLD, 1);
  fclose(f);
  MPI_Finalize();
  return 0;
}
