// I/O in a helper function called from a loop (the plugin marks the loop in
// main because the callee does I/O; on line the repetition is found).
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.4.json --complete --loop-iterations 6 \
// RUN:   --count MPI_File_write_at=1 --count MPI_File_sync=1 --count fsync=1 \
// RUN:   --param "MPI_File_write_at.offset=512*rank + 4096*i0"
#include <mpi.h>

#include <cstdlib>

__attribute__((noinline)) static void writeRecord(MPI_File fh, int rank, int step) {
  static char buf[512];
  MPI_File_write_at(fh, MPI_Offset(rank) * 512 + MPI_Offset(step) * 4096, buf, 512, MPI_BYTE, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void checkpoint(MPI_File fh) { MPI_File_sync(fh); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1;
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "helper.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int step = 0; step < 6 * iters; step++) {
    writeRecord(fh, rank, step);
    checkpoint(fh);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK: loop 6 iterations (i0){{.*}}:
// CHECK-NEXT: MPI_File_write_at(fh=0, offset=512*rank + 4096*i0, count=512, datatype=0 MPI_BYTE)
// CHECK-NEXT: pwrite({{.*}}, count=512, offset=512*rank + 4096*i0) -> result=512 (inner)
// CHECK-NEXT: MPI_File_sync(fh=0)
// CHECK-NEXT: fsync({{.*}}) (inner)
// CHECK-NEXT: MPI_File_close(fh=0)
