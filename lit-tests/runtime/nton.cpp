// N-to-N: one file per rank, `file_<rank>`, through POSIX.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.4.json --complete --file "file_<rank>" --loop-iterations 4,4 \
// RUN:   --count open=2 --count write=1 --count read=1 --count close=2 --count unlink=1 --count lseek=1 \
// RUN:   --ranks open=0+1*[0..3] --param open.flags=577 --param open.mode=420 --param open.fd=0
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
  std::snprintf(name, sizeof name, "file_%d", rank);
  char buf[100] = {};
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (int i = 0; i < 4 * iters; i++)
    write(fd, buf, sizeof buf);
  close(fd);
  fd = open(name, O_RDONLY);
  for (int i = 0; i < 4 * iters; i++)
    read(fd, buf, sizeof buf);
  lseek(fd, 0, SEEK_SET);
  close(fd);
  unlink(name);
  MPI_Finalize();
}

// CHECK: files:
// CHECK-NEXT: f0 "file_<rank>"
// CHECK: ranks 0-3:
// CHECK-NEXT: open(file=f0 "file_<rank>", flags=577, mode=420) -> fd=0
// CHECK-NEXT: loop 4 iterations (i0){{.*}}:
// CHECK-NEXT: write(fd=0, count=100)
// CHECK-NEXT: close(fd=0)
// The second open reuses the closed descriptor's code, as POSIX reuses the fd.
// CHECK-NEXT: open(file=f0 "file_<rank>", flags=0) -> fd=0
// CHECK-NEXT: loop 4 iterations (i0){{.*}}:
// CHECK-NEXT: read(fd=0, count=100)
// CHECK-NEXT: lseek(fd=0, offset=0, whence=0)
// CHECK-NEXT: close(fd=0)
// CHECK-NEXT: unlink(file=f0 "file_<rank>")
