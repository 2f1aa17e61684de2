// An info whose hints change between two uses (MPI_Info_set and
// MPI_Info_delete on the same handle between two opens), then freed and
// another made (MPI reuses the handle) with a hint that follows the rank
// count, passed to MPI_File_set_info, and a duplicate with one hint changed
// passed to a view (issue 14 item 5: ROMIO must see at each use exactly the
// hints the application's call passed).
#include <mpi.h>

#include <string>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  char buf[256] = {};
  MPI_File fh;
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "cb_nodes", std::to_string(n / 4).c_str());
  MPI_Info_set(hints, "romio_cb_write", "enable");
  MPI_File_open(MPI_COMM_WORLD, "first.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, hints, &fh);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 256, buf, 256, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Info_delete(hints, "cb_nodes");
  MPI_Info_set(hints, "romio_cb_write", "disable");
  MPI_File_open(MPI_COMM_WORLD, "second.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, hints, &fh);
  MPI_Info_free(&hints);

  MPI_Info other, copy;
  MPI_Info_create(&other);
  MPI_Info_set(other, "cb_buffer_size", std::to_string(4096 * n).c_str());
  MPI_File_set_info(fh, other);
  MPI_Info_dup(other, &copy);
  MPI_Info_set(copy, "romio_no_indep_rw", "false");
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", copy);
  MPI_File_write_at_all(fh, MPI_Offset(rank) * 256, buf, 256, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Info_free(&copy);
  MPI_Info_free(&other);
  MPI_Finalize();
}
