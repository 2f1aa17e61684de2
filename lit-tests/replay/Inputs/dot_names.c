/* Names as ROMIO's tests and shell-minded programs write them: `./name`, a
 * directory with a trailing `/`, and MPI_File_write_ordered, for which
 * ROMIO makes its own shared-file-pointer file `.<name>.shfp.<random>.<pid>`
 * (issue "A peer's test suite", file names). */
#include <fcntl.h>
#include <mpi.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[400];
  memset(buf, 3, sizeof buf);
  if (rank == 0) {
    mkdir("./outdir/", 0755);
    int fd = open("./outdir/f.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, 100) != 100)
      MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
    struct stat st;
    if (stat("outdir/", &st) != 0)
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "./ordered.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_ordered(fh, buf, 10 * (rank + 1), MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
