/* REQUIRES: runtime, sio-signature, plugin
 * The nest is read off the trace's loops and the offset formula
 * 8640*i0 + 720*i2 + 60*i3 + [0, 5000, 1000][i1] (etypes of 2 bytes): one
 * component per table entry, each a 2-level nest whose start moves 17280
 * bytes per step; not "random" as the stream of 144 offsets looked.
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cc-sig -O1 %s -o %t.exe
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe
 * RUN: %sio-signature %t.json | FileCheck %s
 * RUN: %sio-signature --format json %t.json | FileCheck %s --check-prefix=JSON
 */
/* Issue 31: a 3-deep nest of 120-byte reads inside a loop over variables
 * whose starts follow no model. Offsets in etypes of 2 bytes (MPI_SHORT):
 * 8640*i0 + 720*i2 + 60*i3 + start[i1], 60 etypes per read. */
#include <mpi.h>

static const int start[3] = {0, 5000, 1000};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  short buf[60];
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "nest3.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_SHORT, MPI_SHORT, "native", MPI_INFO_NULL);
  for (int step = 0; step < 2; step++)
    for (int var = 0; var < 3; var++)
      for (int row = 0; row < 6; row++)
        for (int col = 0; col < 4; col++)
          MPI_File_read_at(fh, 8640 * step + 720 * row + 60 * col + start[var], buf, 60, MPI_SHORT,
                           MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}

// CHECK:      # file f0 "nest3.dat", ranks 0-1, read, 144 accesses, 17280 bytes per rank
// CHECK-NEXT: {READ, 0, 3, ([{0, (17280)}, (1440, 120), 120, (6, 4)], [{10000, (17280)}, (1440, 120), 120, (6, 4)], [{2000, (17280)}, (1440, 120), 120, (6, 4)]), 2}
// CHECK-NEXT: {Read, <non-contiguous, 3d strided>, <repetitive>, <fixed size, small>, <random>}
// CHECK-NOT:  # file
// JSON:       "nest": [
// JSON-NEXT:    {
// JSON-NEXT:      "count": 6,
// JSON-NEXT:      "stride": 1440
