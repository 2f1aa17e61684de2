/* REQUIRES: runtime, sio-signature, plugin
 * The stream as a whole follows no pattern; its four loops (phases) each do.
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cc-sig -O1 %s -o %t.exe
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe
 * RUN: %sio-signature %t.json | FileCheck %s
 * RUN: %sio-signature --format json %t.json | FileCheck %s --check-prefix=JSON
 */
/* Issue 31: four regular phases on one file: contiguous, strided, backwards,
 * 2-d blocks. Each is regular; together they follow no single pattern. */
#include <mpi.h>

static char buf[4096];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_File fh;
  MPI_File_open(MPI_COMM_SELF, "phases.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < 20; i++)
    MPI_File_read_at(fh, (MPI_Offset)i * 4096, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE);
  for (int i = 0; i < 20; i++)
    MPI_File_read_at(fh, 1000000 + (MPI_Offset)i * 10000, buf, 1000, MPI_BYTE, MPI_STATUS_IGNORE);
  for (int i = 0; i < 20; i++)
    MPI_File_read_at(fh, 3000000 - (MPI_Offset)i * 2048, buf, 512, MPI_BYTE, MPI_STATUS_IGNORE);
  for (int i = 0; i < 10; i++)
    for (int j = 0; j < 5; j++)
      MPI_File_read_at(fh, 5000000 + (MPI_Offset)i * 65536 + j * 256, buf, 128, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}

// CHECK:      # file f0 "phases.dat", phase 1 of 4, ranks 0-1, read, 20 accesses, 81920 bytes per rank
// CHECK-NEXT: {READ, 0, 1, ([4096, 4096, 20]), 1}
// CHECK-NEXT: {Read, <contiguous>, <single occurrence>, <fixed size, small>, <random>}
// CHECK:      # file f0 "phases.dat", phase 2 of 4, ranks 0-1, read, 20 accesses, 20000 bytes per rank
// CHECK-NEXT: {READ, 1000000, 1, ([10000, 1000, 20]), 1}
// CHECK-NEXT: {Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}
// CHECK:      # file f0 "phases.dat", phase 3 of 4, ranks 0-1, read, 20 accesses, 10240 bytes per rank
// CHECK-NEXT: {READ, 3000000, 1, ([-2048, 512, 20]), 1}
// CHECK-NEXT: {Read, <non-contiguous, negative strided>, <single occurrence>, <fixed size, small>, <random>}
// CHECK:      # file f0 "phases.dat", phase 4 of 4, ranks 0-1, read, 50 accesses, 6400 bytes per rank
// CHECK-NEXT: {READ, 5000000, 2, ([(65536, 256), 128, (10, 5)]), 1}
// CHECK-NEXT: {Read, <non-contiguous, 2d strided>, <single occurrence>, <fixed size, small>, <random>}
// JSON:       "phase": 3,
// JSON-NEXT:  "phases": 4,
