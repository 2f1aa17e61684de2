// A program whose offsets follow no model of the rank count: the coefficient
// of rank is (N*N % 7 + 1)*64, which no scaling model fits exactly.
// sio-extrap must refuse (exit 2) naming the event, its source location, the
// parameter, the values per input and the models it tried.
// REQUIRES: runtime, sio-extrap, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.8.json %mpiexec -n 8 %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.12.json %mpiexec -n 12 %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.16.json %mpiexec -n 16 %t.exe
// RUN: %expect-exit 2 %sio-extrap %t.4.json %t.8.json %t.12.json %t.16.json --ranks 32 -o %t.x.json | FileCheck %s
// CHECK: sio-extrap: error: cannot extrapolate parameter 'offset' (the coefficient of rank) of MPI_File_write_at (body[{{[0-9]+}}], refuse-no-model.cpp:[[@LINE+16]]:3, site 0x{{[0-9a-f]+}})
// CHECK-NEXT: values per input: N=4: 192*rank, N=8: 128*rank, N=12: 320*rank, N=16: 320*rank
// CHECK-NEXT: models tried: constant, k/N, k/N + b, k*N, k*N + b
#include <mpi.h>

#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  std::vector<char> buf(64, 'x');
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "irregular.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_Offset stride = (nranks * nranks % 7 + 1) * 64;
  MPI_File_write_at(fh, rank * stride, buf.data(), 64, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
