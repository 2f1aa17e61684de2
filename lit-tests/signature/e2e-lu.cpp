// Out-of-core LU (Byna et al. SC08 Table 1), traced: at step k one read ahead of the
// panel, k+1 reads of a column whose blocks shrink by 4096 bytes, and one
// read at the start of the file. The file is empty: reads past its end move
// nothing, and the trace keeps the requested sizes. The 3-d form needs the
// plugin's loop markers (without them the reads are one loop with a table).
// REQUIRES: runtime, sio-signature, plugin
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 1 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
// RUN: %sio-signature --all-ranks %t.json | FileCheck %s
#include <mpi.h>

#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const MPI_Offset column = 524544;
  std::vector<char> buf(column);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "matrix.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int k = 0; k < 125; k++) {
    MPI_File_read_at(fh, 2 * column + k * column, buf.data(), int(column), MPI_BYTE, MPI_STATUS_IGNORE);
    for (int j = 0; j <= k; j++)
      MPI_File_read_at(fh, column + j * column, buf.data(), 518272 - 4096 * j, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, 0, buf.data(), 522368, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK:      # file f0 "matrix.dat", ranks 0, read, 8125 accesses, 2879008000 bytes
// CHECK-NEXT: {READ, 1049088, 3, ([{1049088, (524544)}, 0, 524544, 1], [524544, 524544, {518272, (-4096)}, {1, (1)}], [0, 0, 522368, 1]), 125}
// CHECK-NEXT: {Read, <non-contiguous, 3d strided>, <repetitive>, <variable size, large>, <random>}
