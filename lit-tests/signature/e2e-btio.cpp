// BTIO class B, full subtype, 16 processes (Byna et al. SC08 §VI.C), traced with the
// paper's numbers: every fifth of 200 time steps each rank writes 5308416
// bytes with a collective write, one step 42450944 bytes after the previous,
// then it reads the 40 steps back. btio.out is a link to /dev/null, so the
// 3.4 GB written cost nothing and every read hits end of file at once; the
// trace keeps the requested offsets and sizes. Collective buffering is off:
// the ranks' overlapping requests would otherwise be shuffled between
// processes through two-phase I/O.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: ln -s /dev/null %t.d/btio.out
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 16 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
#include <mpi.h>

#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int part = 5308416, steps = 200, every = 5;
  const MPI_Offset start = 331776, step = 42450944;
  std::vector<char> buf(part, 'b');
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "disable");
  MPI_Info_set(info, "romio_cb_read", "disable");
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "btio.out", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  for (int t = 1; t <= steps; t++)
    if (t % every == 0)
      MPI_File_write_at_all(fh, rank * start + (t / every - 1) * step, buf.data(), part, MPI_BYTE, MPI_STATUS_IGNORE);
  for (int s = 0; s < steps / every; s++)
    MPI_File_read_at_all(fh, rank * start + s * step, buf.data(), part, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Info_free(&info);
  MPI_Finalize();
}

// CHECK:      # file f0 "btio.out", ranks 0-15, write, 40 accesses, 212336640 bytes per rank
// CHECK-NEXT: {WRITE, 331776*rank, 1, ([42450944, 5308416, 40]), 1}
// CHECK-NEXT: {Write, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, large>, <random>}
// CHECK:      # file f0 "btio.out", ranks 0-15, read, 40 accesses, 212336640 bytes per rank
// CHECK-NEXT: {READ, 331776*rank, 1, ([42450944, 5308416, 40]), 1}
// CHECK-NEXT: {Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, large>, <random>}
// CHECK-NOT:  {
