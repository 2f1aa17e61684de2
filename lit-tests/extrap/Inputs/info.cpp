// MPI_Info objects with ROMIO hints: created, set, duplicated (and a hint
// changed on the copy), used to open files and as a view's info, then freed.
#include <mpi.h>

#include <cstdio>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Info hints, copy;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "romio_cb_write", "enable");
  char nodes[16];
  std::snprintf(nodes, sizeof nodes, "%d", n / 2);
  MPI_Info_set(hints, "cb_nodes", nodes);
  MPI_Info_dup(hints, &copy);
  MPI_Info_set(copy, "cb_buffer_size", "1048576");
  char buf[256] = {};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "hinted.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, hints, &fh);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", copy);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 256, buf, 256, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Info_free(&copy);
  MPI_File_open(MPI_COMM_WORLD, "hinted.dat", MPI_MODE_RDONLY, hints, &fh);
  MPI_File_read_at_all(fh, MPI_Offset(rank) * 256, buf, 256, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Info_free(&hints);
  MPI_Finalize();
}
