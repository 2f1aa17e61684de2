// I/O after MPI_Finalize (a results file rank 0 writes once the parallel
// part is over), or none with "none": recording ends at MPI_Finalize, so
// the trace must not claim those calls.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[64];
  snprintf(name, sizeof name, "during.%d", rank);
  FILE *f = fopen(name, "w");
  fprintf(f, "rank %d\n", rank);
  fclose(f);
  MPI_Finalize();
  if (argc > 1 && strcmp(argv[1], "none") == 0)
    return 0;
  if (rank == 0 || (argc > 1 && strcmp(argv[1], "all") == 0)) {
    snprintf(name, sizeof name, "after.%d", rank);
    f = fopen(name, "w");
    fprintf(f, "results of rank %d\n", rank);
    fclose(f);
  }
  return 0;
}
