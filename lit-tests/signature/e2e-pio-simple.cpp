// PIO-Bench simple strided (Byna et al. SC08 §VI.E), traced: each rank reads 100
// blocks of 4096 bytes, 8192 bytes apart, from its own initial position.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 4 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
// RUN: %sio-signature --rank 0 %t.json | FileCheck %s --check-prefix=RANK0
// RUN: %sio-signature --all-ranks %t.json | FileCheck %s
#include <mpi.h>

#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int request = 4096, stride = 8192, repetitions = 100;
  std::vector<char> buf(request);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "pio.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < repetitions; i++)
    MPI_File_read_at(fh, MPI_Offset(rank) * request + MPI_Offset(i) * stride, buf.data(), request, MPI_BYTE,
                     MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK:      # file f0 "pio.dat", ranks 0-3, read, 100 accesses, 409600 bytes per rank
// CHECK-NEXT: {READ, 4096*rank, 1, ([8192, 4096, 100]), 1}
// CHECK-NEXT: {Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}
// CHECK-NOT:  {
// RANK0:      {READ, 0, 1, ([8192, 4096, 100]), 1}
