// PIO-Bench nested strided (Byna et al. SC08 §VI.E), traced: per repetition a 4096-byte
// read, then a 2048-byte read 4096 bytes further; repetitions 16384 apart.
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
  std::vector<char> buf(4096);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "nested.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  const MPI_Offset segment = 100 * 16384;
  for (int i = 0; i < 100; i++) {
    const MPI_Offset base = rank * segment + MPI_Offset(i) * 16384;
    MPI_File_read_at(fh, base, buf.data(), 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, base + 4096, buf.data(), 2048, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK:      # file f0 "nested.dat", ranks 0-3, read, 200 accesses, 614400 bytes per rank
// CHECK-NEXT: {READ, 1638400*rank, 2, ([4096, 4096, 1], [12288, 2048, 1], 100), 1}
// CHECK-NEXT: {Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}
