// Nonblocking MPI-IO completed by MPI_Wait/MPI_Waitall, split
// collectives, and the MPI-4 large-count forms (recorded as the same
// operations). Requests are coded in creation order; MPI_Wait on a
// point-to-point request is not an I/O event.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.json --complete --count MPI_File_iwrite_at=1 --count MPI_Wait=1 \
// RUN:   --count MPI_Waitall=1 --count MPI_File_write_at=1 --count MPI_File_read_at_all=1 \
// RUN:   --count MPI_File_write_all_begin=1 --count MPI_File_write_all_end=1 --loop-iterations 3
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  char buf[4][128] = {};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "nb.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < 3; i++) {
    MPI_Request r;
    MPI_File_iwrite_at(fh, rank * 128 + i * 128 * n, buf[0], 128, MPI_BYTE, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Request rs[2];
  MPI_File_iread_at(fh, rank * 128, buf[1], 64, MPI_BYTE, &rs[0]);
  MPI_File_iread_at(fh, rank * 128 + 64, buf[2], 64, MPI_BYTE, &rs[1]);
  MPI_Waitall(2, rs, MPI_STATUSES_IGNORE);
  // Point-to-point: not I/O, its MPI_Wait is not recorded.
  MPI_Request p2p;
  int token = rank, got = -1;
  MPI_Isend(&token, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &p2p);
  MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  MPI_Wait(&p2p, MPI_STATUS_IGNORE);
  MPI_File_write_at_c(fh, MPI_Offset(rank) * 128, buf[3], MPI_Count(128), MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_read_at_all_c(fh, MPI_Offset(rank) * 128, buf[3], MPI_Count(128), MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_seek(fh, rank * 128, MPI_SEEK_SET);
  MPI_File_write_all_begin(fh, buf[0], 128, MPI_BYTE);
  MPI_File_write_all_end(fh, buf[0], MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK: ranks 0-3:
// CHECK: loop 3 iterations (i0){{.*}}:
// CHECK-NEXT: MPI_File_iwrite_at(fh=0, offset=128*rank + 512*i0, count=128, datatype=0 MPI_BYTE, request=i0)
// CHECK: MPI_Wait(request=i0)
// CHECK: MPI_File_iread_at(fh=0, offset=128*rank, count=64, datatype=0 MPI_BYTE, request=3)
// CHECK: MPI_File_iread_at(fh=0, offset=128*rank + 64, count=64, datatype=0 MPI_BYTE, request=4)
// CHECK: MPI_Waitall(count=2, request=3)
// CHECK-NOT: MPI_Wait(
// CHECK: MPI_File_write_at(fh=0, offset=128*rank, count=128, datatype=0 MPI_BYTE)
// CHECK: MPI_File_read_at_all(fh=0, offset=128*rank, count=128, datatype=0 MPI_BYTE)
// CHECK: MPI_File_seek(fh=0, offset=128*rank, whence=600)
// CHECK: MPI_File_write_all_begin(fh=0, count=128, datatype=0 MPI_BYTE)
// CHECK: MPI_File_write_all_end(fh=0)
// CHECK: MPI_File_close(fh=0)
