/* Each rank writes the region of the next rank, (rank + 1) % nranks, in 8
 * blocks of 4096 bytes, then its own region of a second file: offsets whose
 * formula holds a `%` of the rank (sio-signature at 10^6 ranks,
 * docs/scale.md). Writes only: sio-extrap simulates reads' results only up
 * to 10^6 ranks. */
#include <mpi.h>

static char buf[4096];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_File fh, own;
  MPI_File_open(MPI_COMM_WORLD, "neighbor.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_open(MPI_COMM_WORLD, "own.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &own);
  const MPI_Offset region = 8 * 4096;
  for (int i = 0; i < 8; i++)
    MPI_File_write_at(fh, (MPI_Offset)((rank + 1) % nranks) * region + i * 4096, buf, 4096, MPI_BYTE,
                      MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 8; i++)
    MPI_File_write_at(own, (MPI_Offset)rank * region + i * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&own);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
