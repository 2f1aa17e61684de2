/* The same MPI calls made through MPI_ names, PMPI_ names or a mix
 * (docs/runtime.md, "Programs that call PMPI_ names"):
 *   pmpi_calls mpi     every call by its MPI_ name
 *   pmpi_calls pmpi    every call by its PMPI_ name (as ROMIO's psimple)
 *   pmpi_calls mixed   odd-numbered calls by their PMPI_ name
 * The traces of the three must be equal: each call recorded exactly once,
 * whichever name it was made by, and none of what MPI does inside. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int g_mode; /* 0 mpi, 1 pmpi, 2 mixed */
static int pm(int k) { return g_mode == 1 || (g_mode == 2 && (k & 1)); }
#define CALL(k, name, ...) (pm(k) ? P##name(__VA_ARGS__) : name(__VA_ARGS__))

int main(int argc, char **argv) {
  g_mode = argc > 1 && !strcmp(argv[1], "pmpi") ? 1 : argc > 1 && !strcmp(argv[1], "mixed") ? 2 : 0;
  CALL(1, MPI_Init, &argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Datatype view;
  CALL(2, MPI_Type_vector, 4, 2, 2 * n, MPI_INT, &view);
  CALL(3, MPI_Type_commit, &view);
  MPI_File fh;
  CALL(4, MPI_File_open, MPI_COMM_WORLD, "pmpi.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  static int buf[64];
  for (int i = 0; i < 3; ++i)
    CALL(5, MPI_File_write_at, fh, (MPI_Offset)(256 * i + 16 * rank), buf, 16, MPI_BYTE, MPI_STATUS_IGNORE);
  CALL(6, MPI_File_write_at, fh, (MPI_Offset)(1024 + 32 * rank), buf, 32, MPI_BYTE, MPI_STATUS_IGNORE);
  CALL(7, MPI_File_set_view, fh, (MPI_Offset)(2048 + rank * 8), MPI_INT, view, "native", MPI_INFO_NULL);
  CALL(8, MPI_File_write_all, fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
  CALL(9, MPI_Barrier, MPI_COMM_WORLD);
  CALL(10, MPI_File_read_at_all, fh, 0, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
  CALL(11, MPI_File_close, &fh);
  CALL(12, MPI_Type_free, &view);
  if (rank == 0)
    printf("done %s\n", argc > 1 ? argv[1] : "mpi");
  CALL(13, MPI_Finalize);
  return 0;
}
