// Nested strides found without the plugin (issue 15 item 2): a time-step loop
// around a cell loop, cells interleaved by rank, each step after a gap (a
// step header); arrays of different element sizes written back to back
// from header + rank*blob (offset = table[i0] + c*rank); a nest three deep
// (variables x steps x cells, a gap after each step and each variable).
// Built with plain mpicxx and traced through LD_PRELOAD, the runtime's
// marker-less detection must find the nest (RSD of RSDs, ScalaIOTrace) with
// offsets affine in the indices and rank, and the per-array table once for
// all ranks; built with the plugin, the markers give the same nest.
// REQUIRES: runtime, sio-extrap, sio-trace
// RUN: rm -rf %t.d %t.p && mkdir -p %t.d %t.p
// RUN: %mpicxx -O1 %s -o %t.plain
// RUN: %c1 --exe %t.plain --preload %siotrace-rt --work %t.d --inputs 4,8,12,16 --targets 32 --replay --max-growth 1.1 | FileCheck %s
// RUN: %sio-trace dump %t.d/trace.8.json | FileCheck %s --check-prefix=DUMP
// RUN: cd %t.p && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: %c1 --exe %t.exe --work %t.p --inputs 4,8,12,16 --targets 32 --replay --max-growth 1.1 | FileCheck %s
// CHECK: C1 32: equal
// CHECK: replay 32: equal
// CHECK: size 32/4: ok
// DUMP: ranks 0-7:
// DUMP: loop 3 iterations (i0):
// DUMP-NEXT: loop 4 iterations (i1):
// DUMP-NEXT: pwrite(fd=0, count=256, offset=256*rank + 8704*i0 + 2048*i1 + 512)
// DUMP: loop 5 iterations (i0):
// DUMP-NEXT: pwrite(fd=0, count=[0, -32, 0, -48, 64][i0] + 64, offset=512*rank + [0, 64, 96, 160, 176][i0] + 1048576)
// DUMP-NEXT: MPI_Barrier
// DUMP-NEXT: loop 2 iterations (i0):
// DUMP-NEXT: loop 3 iterations (i1):
// DUMP-NEXT: loop 2 iterations (i2):
// DUMP-NEXT: pwrite(fd=0, count=256, offset=256*rank + 16768*i0 + 4224*i1 + 2048*i2 + 2097152)
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  static char buf[4096];
  int fd = open("nest.dat", O_CREAT | O_WRONLY, 0644);
  const long cell = 256, cells = 4, steps = 3, stepHeader = 512;
  const long step = cells * nranks * cell + stepHeader;
  for (long t = 0; t < steps; t++) // each step: its header, then the cells of all ranks interleaved
    for (long c = 0; c < cells; c++)
      pwrite(fd, buf, cell, stepHeader + t * step + (c * nranks + rank) * cell);
  MPI_Barrier(MPI_COMM_WORLD);
  // Arrays of 8, 4, 8, 2, 16 bytes per element, 8 elements each, back to back
  // in each rank's blob of 512 bytes after a 1 MiB header.
  const long elements[] = {8, 4, 8, 2, 16};
  long at = 0;
  for (long size : elements) {
    pwrite(fd, buf, size * 8, (1 << 20) + rank * 512 + at);
    at += size * 8;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // Three deep: 2 variables x 3 steps x 2 cells interleaved by rank, a gap
  // after each step and after each variable (depth 3 with no call between).
  const long cells3 = 2, steps3 = 3, step3 = cells3 * nranks * cell + 128, var3 = steps3 * step3 + 4096;
  for (long v = 0; v < 2; v++)
    for (long t = 0; t < steps3; t++)
      for (long c = 0; c < cells3; c++)
        pwrite(fd, buf, cell, (2 << 20) + v * var3 + t * step3 + (c * nranks + rank) * cell);
  close(fd);
  MPI_Finalize();
}
