/* REQUIRES: runtime, sio-signature
 * Offsets and sizes are tables of the loop index; every offset is the
 * previous offset + size: contiguous, the pieces' sizes listed.
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cc-sig -O1 %s -o %t.exe
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe
 * RUN: %sio-signature %t.json | FileCheck %s
 * RUN: %sio-signature --format json %t.json | FileCheck %s --check-prefix=JSON
 */
/* Issue 31: each rank writes one contiguous region in 9 pieces of different
 * sizes, each piece where the previous one ended (stride = previous size). */
#include <mpi.h>

static const int sizes[9] = {100, 250, 4096, 17, 900, 3000, 64, 1200, 373};
static char buf[4096];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "pieces.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_Offset offset = (MPI_Offset)rank * 10000;
  for (int i = 0; i < 9; i++) {
    MPI_File_write_at(fh, offset, buf, sizes[i], MPI_BYTE, MPI_STATUS_IGNORE);
    offset += sizes[i];
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}

// CHECK:      # file f0 "pieces.dat", ranks 0-1, write, 9 accesses, 10000 bytes per rank
// CHECK-NEXT: {WRITE, 10000*rank, 1, ([contiguous, {100, 250, 4096, 17, 900, 3000, 64, 1200, 373}, 9]), 1}
// CHECK-NEXT: {Write, <contiguous>, <single occurrence>, <variable size, small>, <random>}
// JSON:       "values": [
// JSON-NEXT:    100,
// JSON:       "kind": "contiguous"
