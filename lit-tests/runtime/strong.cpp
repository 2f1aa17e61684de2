// The strong-scaling loop of ScalaIOExtrap §3.2.3: offset = rank*(960/N) + 960*i.
// Offsets and counts become exact functions of rank; the loops keep their
// iteration counts; inner POSIX calls of ROMIO are marked inner.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s --check-prefixes=CHECK,N4
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.8.json %mpiexec -n 8 %t.exe
// RUN: %sio-trace dump %t.8.json | FileCheck %s --check-prefixes=CHECK,N8
// RUN: %python %S/Inputs/check_trace.py %t.8.json --count MPI_File_write_at=1 --count MPI_File_read_at=1 \
// RUN:   --loop-iterations 3,5 --complete
#include <mpi.h>

#include <cstdlib>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int iters = argc > 1 ? std::atoi(argv[1]) : 1; // scales the loops for the size test
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "strong.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  char buf[960] = {};
  for (int i = 0; i < 3 * iters; i++) {
    MPI_Offset offset = rank * (960 / n) + 960 * i;
    MPI_File_write_at(fh, offset, buf, 960 / n, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 5 * iters; i++)
    MPI_File_read_at(fh, 320 * rank + 64 * i, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}

// N4: trace: program {{.*}}, 4 ranks, complete
// N8: trace: program {{.*}}, 8 ranks, complete
// CHECK: f0 "strong.dat"
// N4: ranks 0-3:
// N8: ranks 0-7:
// CHECK: MPI_File_open(comm=0, file=f0 "strong.dat", amode=9, info=0) -> fh=0
// CHECK: loop 3 iterations
// N4-NEXT: MPI_File_write_at(fh=0, offset=240*rank + 960*i0, count=240, datatype=0 MPI_BYTE)
// N8-NEXT: MPI_File_write_at(fh=0, offset=120*rank + 960*i0, count=120, datatype=0 MPI_BYTE)
// N4-NEXT: pwrite(fd={{.*}}, count=240, offset=240*rank + 960*i0) (inner)
// N8-NEXT: pwrite(fd={{.*}}, count=120, offset=120*rank + 960*i0) (inner)
// CHECK: MPI_Barrier(comm=0)
// CHECK: loop 5 iterations
// CHECK-NEXT: MPI_File_read_at(fh=0, offset=320*rank + 64*i0, count=64, datatype=0 MPI_BYTE)
// CHECK-NEXT: pread(fd={{.*}}, count=64, offset=320*rank + 64*i0) (inner)
// CHECK: MPI_File_close(fh=0)
