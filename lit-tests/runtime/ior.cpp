// IOR-style N-to-1: a segmented phase (each rank a contiguous block, MPI-IO)
// and an interleaved phase (transfers of all ranks interleaved, POSIX on the
// shared file), each writing then reading back.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s --check-prefixes=CHECK,N4
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.8.json %mpiexec -n 8 %t.exe
// RUN: %sio-trace dump %t.8.json | FileCheck %s --check-prefixes=CHECK,N8
// RUN: %python %S/Inputs/check_trace.py %t.8.json --complete --loop-iterations 4,4,4,4 \
// RUN:   --count MPI_File_write_at=1 --count MPI_File_read_at=1 --count pwrite=2 --count pread=2 \
// RUN:   --count MPI_Barrier=2 --ranks MPI_File_write_at=0+1*[0..7] \
// RUN:   --param "pwrite.offset=256*rank + 2048*i0" --param "MPI_File_read_at.offset=1024*rank + 256*i0"
#include <mpi.h>

#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1;
  const int xfer = 256, xfers = 4 * iters, block = xfer * xfers;
  char buf[256] = {};

  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "ior_segmented.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < xfers; i++)
    MPI_File_write_at(fh, MPI_Offset(rank) * block + i * xfer, buf, xfer, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < xfers; i++)
    MPI_File_read_at(fh, MPI_Offset(rank) * block + i * xfer, buf, xfer, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  int fd = open("ior_interleaved.dat", O_CREAT | O_RDWR, 0644);
  for (int i = 0; i < xfers; i++)
    pwrite(fd, buf, xfer, off_t(i * n + rank) * xfer);
  fsync(fd);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < xfers; i++)
    pread(fd, buf, xfer, off_t(i * n + rank) * xfer);
  close(fd);
  MPI_Finalize();
}

// CHECK: f0 "ior_segmented.dat"
// CHECK: f1 "ior_interleaved.dat"
// CHECK: MPI_File_open(comm=0, file=f0 "ior_segmented.dat", amode=9, info=0) -> fh=0
// CHECK: loop 4 iterations (i0){{.*}}:
// CHECK-NEXT: MPI_File_write_at(fh=0, offset=1024*rank + 256*i0, count=256, datatype=0 MPI_BYTE)
// CHECK-NEXT: pwrite({{.*}}offset=1024*rank + 256*i0) -> result=256 (inner)
// CHECK: MPI_File_sync(fh=0)
// CHECK: MPI_Barrier(comm=0)
// CHECK: loop 4 iterations (i0){{.*}}:
// CHECK-NEXT: MPI_File_read_at(fh=0, offset=1024*rank + 256*i0, count=256, datatype=0 MPI_BYTE)
// CHECK: MPI_File_close(fh=0)
// CHECK: open(file=f1 "ior_interleaved.dat", flags=66, mode=420) -> fd=
// CHECK: loop 4 iterations (i0){{.*}}:
// N4-NEXT: pwrite(fd={{.*}}, count=256, offset=256*rank + 1024*i0)
// N8-NEXT: pwrite(fd={{.*}}, count=256, offset=256*rank + 2048*i0)
// CHECK-NOT: (inner)
// CHECK: fsync(
// CHECK: loop 4 iterations (i0){{.*}}:
// N4-NEXT: pread(fd={{.*}}, count=256, offset=256*rank + 1024*i0)
// N8-NEXT: pread(fd={{.*}}, count=256, offset=256*rank + 2048*i0)
// CHECK: close(
