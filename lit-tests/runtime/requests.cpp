// Nonblocking MPI-IO requests leave the request table when MPI completes
// them, whatever completes them: a Waitall of more requests than the runtime
// keeps inline (70), Waitany, Waitsome, Testany. MPICH hands a completed
// request's handle out again, so a request left in the table made a later
// point-to-point MPI_Wait look like an I/O completion (recorded, replayed):
// MPICH gives the last freed handle to the next request, here the Irecv.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe
// RUN: %sio-trace dump %t.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.json --complete --count MPI_File_iwrite_at=1 --count MPI_Waitall=1 \
// RUN:   --count MPI_File_iread_at=3 --count MPI_Waitany=1 --count MPI_Waitsome=1 --count MPI_Testany=0 \
// RUN:   --count MPI_Wait=1 --count MPI_Test=0
// CHECK: MPI_Waitany(
// CHECK: MPI_Wait(
// CHECK: MPI_File_iwrite_at(
// CHECK: MPI_Waitall(
// CHECK: MPI_File_close(
// CHECK-NOT: MPI_Wait
// CHECK-NOT: MPI_Test
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static char buf[70][16];
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "requests.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_Request reads[3];
  for (int i = 0; i < 3; ++i)
    MPI_File_iread_at(fh, MPI_Offset(rank * 70 + i) * 16, buf[i], 16, MPI_BYTE, &reads[i]);
  for (int i = 0; i < 3; ++i) {
    int index = -1;
    MPI_Waitany(3, reads, &index, MPI_STATUS_IGNORE);
  }
  MPI_File_iread_at(fh, MPI_Offset(rank * 70) * 16, buf[0], 16, MPI_BYTE, &reads[0]);
  int done = 0, indices[1];
  MPI_Waitsome(1, reads, &done, indices, MPI_STATUSES_IGNORE);
  MPI_File_iread_at(fh, MPI_Offset(rank * 70) * 16, buf[0], 16, MPI_BYTE, &reads[0]);
  MPI_Wait(&reads[0], MPI_STATUS_IGNORE);
  MPI_Request writes[70];
  for (int i = 0; i < 70; ++i)
    MPI_File_iwrite_at(fh, MPI_Offset(rank * 70 + i) * 16, buf[i], 16, MPI_BYTE, &writes[i]);
  MPI_Waitall(70, writes, MPI_STATUSES_IGNORE);

  MPI_File_close(&fh);
  // Point-to-point messages to itself (a Testany, Waits, a Test): none of
  // them is I/O.
  for (int i = 0; i < 200; ++i) {
    int token = i, got = -1, flag = 0, index = -1;
    MPI_Request p2p[2];
    MPI_Irecv(&got, 1, MPI_INT, 0, i, MPI_COMM_SELF, &p2p[0]);
    MPI_Isend(&token, 1, MPI_INT, 0, i, MPI_COMM_SELF, &p2p[1]);
    if (i == 0)
      while (!flag)
        MPI_Testany(2, p2p, &index, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&p2p[0], MPI_STATUS_IGNORE);
    MPI_Test(&p2p[1], &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&p2p[1], MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
