/* MPI_File_open with an MPI_Info made by MPI_Info_create and left empty, one
 * with a hint, and MPI_INFO_NULL: three different arguments that the replay
 * must pass as they were (an empty info is not MPI_INFO_NULL). */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info empty, hinted;
  MPI_Info_create(&empty);
  MPI_Info_create(&hinted);
  MPI_Info_set(hinted, "romio_cb_write", "enable");
  char buf[64] = {0};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "empty-info.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, empty, &fh);
  MPI_File_write_at_all(fh, 64 * rank, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_File_open(MPI_COMM_WORLD, "hinted.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, hinted, &fh);
  MPI_File_write_at_all(fh, 64 * rank, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_File_open(MPI_COMM_WORLD, "null-info.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at_all(fh, 64 * rank, buf, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Info_free(&hinted);
  MPI_Info_free(&empty);
  MPI_Finalize();
  return 0;
}
