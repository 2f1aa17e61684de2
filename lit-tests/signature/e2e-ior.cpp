// IOR (Byna et al. SC08 §VI.A) with the paper's parameters, traced: 16 ranks, each
// writes its contiguous 128 MiB block in 4096 transfers of 32 KiB with
// MPI_File_write_at, then reads it back with MPI_File_read_at. ior.dat is a
// link to /dev/null, so the 2 GiB written cost nothing and every read hits
// end of file at once; the trace keeps the requested offsets and sizes.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: ln -s /dev/null %t.d/ior.dat
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 16 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
// RUN: %sio-signature --op read --format json %t.json | FileCheck %s --check-prefix=JSON
#include <mpi.h>

#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int transfer = 32768, transfers = 4096;
  const MPI_Offset block = MPI_Offset(transfer) * transfers;
  std::vector<char> buf(transfer, 'x');
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "ior.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < transfers; i++)
    MPI_File_write_at(fh, rank * block + MPI_Offset(i) * transfer, buf.data(), transfer, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < transfers; i++)
    MPI_File_read_at(fh, rank * block + MPI_Offset(i) * transfer, buf.data(), transfer, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}

// CHECK:      # file f0 "ior.dat", ranks 0-15, write, 4096 accesses, 134217728 bytes per rank
// CHECK-NEXT: {WRITE, 134217728*rank, 1, ([32768, 32768, 4096]), 1}
// CHECK-NEXT: {Write, <contiguous>, <single occurrence>, <fixed size, medium>, <random>}
// CHECK:      # file f0 "ior.dat", ranks 0-15, read, 4096 accesses, 134217728 bytes per rank
// CHECK-NEXT: {READ, 134217728*rank, 1, ([32768, 32768, 4096]), 1}
// CHECK-NEXT: {Read, <contiguous>, <single occurrence>, <fixed size, medium>, <random>}
// CHECK-NOT:  {
// JSON:     "formula": "134217728*rank"
// JSON:     "spatial": "contiguous"
// JSON-NOT: "operation": "write"
