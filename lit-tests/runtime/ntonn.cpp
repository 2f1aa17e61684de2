// N-to-N/n: groups of 4 ranks share a file `out_<rank/4>` (zero-padded), each
// rank writing its slice with pwrite.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.8.json %mpiexec -n 8 %t.exe
// RUN: %sio-trace dump %t.8.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.8.json --complete --loop-iterations 3 \
// RUN:   --count open=1 --count pwrite=1 --count close=1 --ranks open=0+1*[0..7] --param open.fd=0
// RUN: ls %t.d/out_0000 %t.d/out_0001
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1;
  char name[64];
  std::snprintf(name, sizeof name, "out_%04d", rank / 4);
  char buf[100] = {};
  int fd = open(name, O_CREAT | O_WRONLY, 0644);
  for (int i = 0; i < 3 * iters; i++)
    pwrite(fd, buf, sizeof buf, 400 * i + 100 * (rank % 4));
  close(fd);
  MPI_Finalize();
}

// The file is one format with the group number as a zero-padded field.
// CHECK: files:
// CHECK-NEXT: f0 "out_<{{.*}}rank{{.*}}:04>"
// CHECK: ranks 0-7:
// CHECK-NEXT: open(file=f0 "out_<{{.*}}:04>", flags=65, mode=420) -> fd=0
// CHECK-NEXT: loop 3 iterations (i0){{.*}}:
// CHECK-NEXT: pwrite(fd=0, count=100, offset=
// CHECK-NEXT: close(fd=0)
