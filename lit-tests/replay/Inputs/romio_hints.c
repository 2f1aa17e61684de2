/* An MPI-IO program run with ROMIO_HINTS naming a hints file (as ROMIO's
 * syshints test): ROMIO opens and reads that file at every MPI_File_open
 * (inner events of the trace) and applies its hints. Prints the value of
 * the hint the file sets, as MPI_File_get_info reports it. With the
 * argument `rewrite`, rank 0 rewrites the hints file after MPI_Init by raw
 * system calls (as another process would: nothing the runtime sees), with a
 * hint more. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp(argv[1], "rewrite") == 0) {
    if (rank == 0) {
      static const char hints[] = "ind_wr_buffer_size 8192\ncb_nodes 1\n";
      long fd = syscall(SYS_openat, AT_FDCWD, "hints.txt", O_WRONLY | O_TRUNC);
      syscall(SYS_write, fd, hints, sizeof hints - 1);
      syscall(SYS_close, fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "hinted.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  static char buf[64];
  MPI_File_write_at_all(fh, 64 * rank, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_Info used;
  MPI_File_get_info(fh, &used);
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Info_get(used, "ind_wr_buffer_size", MPI_MAX_INFO_VAL, value, &flag);
  if (rank == 0)
    printf("ind_wr_buffer_size %s\n", flag ? value : "(unset)");
  MPI_Info_free(&used);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
