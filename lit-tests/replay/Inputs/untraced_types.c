/* Datatypes made by calls the runtime does not intercept (a library's
 * PMPI_ calls, MPI_Type_create_f90_integer), then committed with
 * MPI_Type_commit and used for a file view and a write:
 *   (no argument)  PMPI_Type_vector: described at its first use, rebuilt
 *                  exactly;
 *   deep           a vector over 18 nested PMPI_Type_contiguous levels: the
 *                  runtime describes 16 levels, the innermost is unknown;
 *   f90            MPI_Type_create_f90_integer: approximated by its bytes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *mode = argc > 1 ? argv[1] : "";
  MPI_Datatype elem = MPI_INT, made[18], view;
  int levels = 0;
  if (!strcmp(mode, "deep")) {
    for (levels = 0; levels < 18; ++levels) {
      PMPI_Type_contiguous(1, levels ? made[levels - 1] : MPI_INT, &made[levels]);
    }
    elem = made[levels - 1];
  } else if (!strcmp(mode, "f90")) {
    MPI_Type_create_f90_integer(9, &elem);
  }
  PMPI_Type_vector(4, 2, 2 * n, elem, &view);
  MPI_Type_commit(&view);
  static int buf[64];
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "untraced.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, rank * 8, MPI_INT, view, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&view);
  for (int k = levels - 1; k >= 0; --k)
    PMPI_Type_free(&made[k]);
  if (rank == 0)
    printf("done %s\n", mode);
  MPI_Finalize();
  return 0;
}
