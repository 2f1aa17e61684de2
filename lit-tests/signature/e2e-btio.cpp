// BTIO style (seed 002 §VI.C), traced: every fifth time step each rank writes
// its part of the solution with a collective write, at a fixed stride (the
// paper's class B sizes divided by 16 to keep the file small).
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
  const int part = 331776;          // 5308416 / 16
  const MPI_Offset step = 2653184;  // 42450944 / 16
  std::vector<char> buf(part, 'b');
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "btio.out", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int t = 1; t <= 50; t++)
    if (t % 5 == 0)
      MPI_File_write_at_all(fh, MPI_Offset(rank) * part + (t / 5 - 1) * step, buf.data(), part, MPI_BYTE,
                            MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK:      # file f0 "btio.out", ranks 0-3, write, 10 accesses, 3317760 bytes per rank
// CHECK-NEXT: {WRITE, 331776*rank, 1, ([2653184, 331776, 10]), 1}
// CHECK-NEXT: {Write, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, large>, <random>}
