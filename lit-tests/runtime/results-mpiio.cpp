// Results of MPI-IO calls (issue 22 item 5): bytes moved come from the
// status (the runtime's own when the program passes MPI_STATUS_IGNORE), a
// failed call records its MPI error class and moves nothing. At 2 ranks: each
// writes 1000 bytes (write_at_all, status ignored), then on the file opened
// read-only a write_at fails, a read_at of 1000 bytes at 1000*rank + 500 gets
// 1000 on rank 0 and the 500 left on rank 1 (status given), and a read_at at
// end of file gets 0 (status ignored). The program's output is the same
// traced and untraced.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe > %t.traced.txt
// RUN: cd %t.d && env SIO_DISABLE=1 %mpiexec -n 2 %t.exe > %t.untraced.txt
// RUN: diff %t.traced.txt %t.untraced.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.traced.txt
// RUN: %sio-trace stats %t.json | FileCheck %s --check-prefix=STATS
// RUN: %sio-trace dump %t.json | FileCheck %s --check-prefix=DUMP
//
// OUT: rank 0: write_at_all=ok write_at=MPI_ERR_READ_ONLY read_at=1000 eof=0
// OUT-NEXT: rank 1: write_at_all=ok write_at=MPI_ERR_READ_ONLY read_at=500 eof=0
//
// STATS: failed calls: 2
// STATS: bytes read: 1500
// STATS-NEXT: bytes written: 2000
// STATS: MPI_File_read_at 6 1500
// STATS: MPI_File_write_at 2 0
// STATS-NEXT: MPI_File_write_at_all 2 2000
//
// DUMP: MPI_File_write_at_all(fh=0, offset=1000*rank, count=1000, datatype={{[0-9]+}} MPI_BYTE) -> result=1000
// DUMP: MPI_File_write_at(fh=0, offset=1000*rank, count=1000, datatype={{[0-9]+}} MPI_BYTE) -> error=40 MPI_ERR_READ_ONLY
// DUMP: MPI_File_read_at(fh=0, offset=1000*rank + 500, count=1000, datatype={{[0-9]+}} MPI_BYTE) -> result=-500*rank + 1000
// DUMP: MPI_File_read_at(fh=0, offset=2000, count=1000, datatype={{[0-9]+}} MPI_BYTE) -> result=0
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> buf(1000, 'm');
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "results_mpi.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  int rc = MPI_File_write_at_all(fh, 1000 * rank, buf.data(), 1000, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  MPI_File_open(MPI_COMM_WORLD, "results_mpi.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  int failed = MPI_File_write_at(fh, 1000 * rank, buf.data(), 1000, MPI_BYTE, MPI_STATUS_IGNORE);
  int failedClass = MPI_SUCCESS;
  MPI_Error_class(failed, &failedClass);
  MPI_Status status;
  MPI_File_read_at(fh, 1000 * rank + 500, buf.data(), 1000, MPI_BYTE, &status);
  int got = -1;
  MPI_Get_count(&status, MPI_BYTE, &got);
  MPI_File_read_at(fh, 1000 * size, buf.data(), 1000, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_read_at(fh, 1000 * size, buf.data(), 1000, MPI_BYTE, &status);
  int eof = -1;
  MPI_Get_count(&status, MPI_BYTE, &eof);
  MPI_File_close(&fh);

  for (int r = 0; r < size; r++) {
    if (r == rank) {
      std::printf("rank %d: write_at_all=%s write_at=%s read_at=%d eof=%d\n", rank, rc == MPI_SUCCESS ? "ok" : "failed",
                  failedClass == MPI_ERR_READ_ONLY ? "MPI_ERR_READ_ONLY"
                  : failedClass == MPI_ERR_ACCESS  ? "MPI_ERR_ACCESS"
                                                   : "other",
                  got, eof);
      std::fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
