/* Objects made per iteration and freed (issue 29): every step makes a
 * communicator (split by step parity) and a vector type whose count
 * follows the step, writes one file through them and frees both. The
 * replay must give its own trace the same object identities as the
 * application's (once 22 vs 149 datatype entries). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[64 * 8] = {0};
  for (int step = 0; step < 6; step++) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, (rank + step) % 2, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    MPI_Datatype column;
    MPI_Type_vector(1 + step % 3, 8, 8 * hsize, MPI_BYTE, &column);
    MPI_Type_commit(&column);
    char name[64];
    snprintf(name, sizeof name, "step%d.%d.dat", step, (rank + step) % 2);
    MPI_File fh;
    MPI_File_open(half, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, (MPI_Offset)hrank * 8, MPI_BYTE, column, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, buf, 8 * (1 + step % 3), MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Type_free(&column);
    MPI_Comm_free(&half);
  }
  MPI_Finalize();
  return 0;
}
