/* A datatype with a long table of blocks, as a code describing an
 * irregular mesh builds one: an hindexed type of N blocks (N = argv[1]) of
 * pseudo-random lengths and gaps, and an indexed type of the same shape,
 * both used as file views of a collective write. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  int *lengths = malloc(sizeof(int) * n), *idisp = malloc(sizeof(int) * n);
  MPI_Aint *displs = malloc(sizeof(MPI_Aint) * n);
  unsigned x = 777u;
  MPI_Aint off = 0;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    lengths[i] = 1 + (int)((x >> 28) % 8);
    displs[i] = off;
    idisp[i] = (int)off;
    off += lengths[i] + (MPI_Aint)((x >> 8) % 13);
  }
  MPI_Datatype hindexed, indexed;
  MPI_Type_create_hindexed(n, lengths, displs, MPI_BYTE, &hindexed);
  MPI_Type_indexed(n, lengths, idisp, MPI_BYTE, &indexed);
  MPI_Type_commit(&hindexed);
  MPI_Type_commit(&indexed);
  int size;
  MPI_Type_size(hindexed, &size);
  char *buf = calloc((size_t)size, 1);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "table.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  /* Sized first: each rank aggregates a domain with holes, which ROMIO
   * reads before writing, and without this what that read finds depends on
   * whether the other rank extended the file already (a race, not I/O the
   * replay should reproduce). */
  MPI_File_set_size(fh, (MPI_Offset)4 * off);
  MPI_File_set_view(fh, (MPI_Offset)rank * off, MPI_BYTE, hindexed, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, size, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, (MPI_Offset)(2 + rank) * off, MPI_BYTE, indexed, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, size, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&hindexed);
  MPI_Type_free(&indexed);
  free(buf);
  free(lengths);
  free(idisp);
  free(displs);
  MPI_Finalize();
  return 0;
}
