// One MPI_File_open call site whose amode changes with the iteration (create
// and write-only, then read-write, then read-only), so the trace's amode is
// a table, not a constant; each pass asks the file's size.
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int amodes[] = {MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_MODE_RDWR, MPI_MODE_RDONLY};
  for (int amode : amodes) {
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "mixed.dat", amode, MPI_INFO_NULL, &fh);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    MPI_File_close(&fh);
  }
  MPI_Finalize();
  return 0;
}
