/* MPI-1 datatype constructors as legacy codes use them (issue "Never
 * silently wrong" item 4, "A peer's test suite" MPI-1 constructors):
 * MPI_Type_hvector, MPI_Type_hindexed, MPI_Type_struct with MPI_LB/MPI_UB
 * bound markers, MPI_Type_extent; a file view through the struct (its
 * extent is set by MPI_UB) and through the hvector; an hvector made, used
 * and freed in each iteration of a loop. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Datatype hv, hi, st;
  MPI_Type_hvector(4, 2, 64, MPI_INT, &hv);
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {0, 128};
  MPI_Type_hindexed(2, bl, disp, MPI_DOUBLE, &hi);
  int sbl[3] = {1, 4, 1};
  MPI_Aint sdisp[3] = {0, 8, 256};
  MPI_Datatype stypes[3] = {MPI_LB, MPI_INT, MPI_UB};
  MPI_Type_struct(3, sbl, sdisp, stypes, &st);
  MPI_Type_commit(&hv);
  MPI_Type_commit(&hi);
  MPI_Type_commit(&st);
  MPI_Aint ext;
  MPI_Type_extent(st, &ext);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "mpi1.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  /* Sized first: ROMIO's data-sieving reads then find the same bytes
   * whichever rank writes first (their results are part of the trace). */
  MPI_File_set_size(fh, 65536);
  MPI_File_set_view(fh, rank * 1024, MPI_INT, st, "native", MPI_INFO_NULL);
  int buf[64];
  memset(buf, 1, sizeof buf);
  MPI_File_write_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, 8192 + rank * 1024, MPI_INT, hv, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 16, MPI_INT, MPI_STATUS_IGNORE);
  /* A type made, used and freed in every iteration (MPI reuses the handle). */
  for (int i = 0; i < 5; i++) {
    MPI_Datatype step;
    MPI_Type_hvector(2, 1 + i, 128, MPI_INT, &step);
    MPI_Type_commit(&step);
    MPI_File_set_view(fh, 16384 + rank * 4096 + i * 256, MPI_INT, step, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, buf, 2 * (1 + i), MPI_INT, MPI_STATUS_IGNORE);
    MPI_Type_free(&step);
  }
  MPI_File_close(&fh);
  if (rank == 0) printf("extent %ld\n", (long)ext);
  MPI_Type_free(&hv); MPI_Type_free(&hi); MPI_Type_free(&st);
  MPI_Finalize();
  return 0;
}
