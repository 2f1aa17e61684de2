// A marked MPI call made from the program's own callback while an
// intercepted MPI call is in progress (an MPI-IO error handler, which ROMIO
// runs inside MPI_File_open) is MPI's business, not recorded; then a write
// the plugin cannot mark (through a function pointer). The nested call's
// site must not end up on the write.
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void onFileError(MPI_File *file, int *code, ...) {
  (void)file;
  (void)code;
  MPI_Barrier(MPI_COMM_SELF); // marked by the plugin, nested: not recorded
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[32] = "out.0.dat";
  name[4] = (char)('0' + rank);
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ssize_t (*volatile unmarkedWrite)(int, const void *, size_t) = write;
  MPI_Errhandler handler;
  MPI_File_create_errhandler(onFileError, &handler);
  MPI_File_set_errhandler(MPI_FILE_NULL, handler);
  MPI_File fh;
  int err = MPI_File_open(MPI_COMM_SELF, "no/such/dir/file", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  unmarkedWrite(fd, "data", 4);
  close(fd);
  if (rank == 0)
    printf("open %s\n", err == MPI_SUCCESS ? "succeeded" : "failed");
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&handler);
  MPI_Finalize();
  return 0;
}
