// Nested loops: offset = 1200*rank + 400*i + 100*j.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.4.json --complete --loop-iterations 3,4 \
// RUN:   --count MPI_File_write_at=1 --count MPI_File_seek=1 \
// RUN:   --param "MPI_File_write_at.offset=1200*rank + 400*i0 + 100*i1"
#include <mpi.h>

#include <cstdlib>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1;
  char buf[100] = {};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "nested.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int i = 0; i < 3 * iters; i++) {
    for (int j = 0; j < 4; j++)
      MPI_File_write_at(fh, MPI_Offset(rank) * 1200 * iters + 400 * i + 100 * j, buf, 100, MPI_BYTE,
                        MPI_STATUS_IGNORE);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK: ranks 0-3:
// CHECK: loop 3 iterations (i0){{.*}}:
// CHECK-NEXT: loop 4 iterations (i1){{.*}}:
// CHECK-NEXT: MPI_File_write_at(fh=0, offset=1200*rank + 400*i0 + 100*i1, count=100, datatype=0 MPI_BYTE)
// CHECK-NEXT: pwrite({{.*}}, count=100, offset=1200*rank + 400*i0 + 100*i1) -> result=100 (inner)
// CHECK-NEXT: MPI_File_seek(fh=0, offset=0, whence=600)
// CHECK-NEXT: MPI_File_close(fh=0)
