// mpi-tile-io style (seed 002 §VI.B), traced: one collective read per
// process through a view displaced to its tile (rank * sz_tile_x *
// sz_element), so the offset comes from the view and the file pointer.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 4 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
#include <mpi.h>

#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int tileX = 100, tileY = 100, element = 1024;
  std::vector<char> buf(size_t(tileX) * tileY * element);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "tiles.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, MPI_Offset(rank) * tileX * element, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_read_all(fh, buf.data(), tileX * tileY * element, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK:      # file f0 "tiles.dat", ranks 0-3, read, 1 access, 10240000 bytes per rank
// CHECK-NEXT: {READ, 102400*rank, 1, ([0, 10240000, 0]), 1}
// CHECK-NEXT: {Read, <no spatial pattern>, <single occurrence>, <fixed size, large>, <no temporal pattern>}
