// PIO-Bench segmented access (Byna et al. SC08 §VI.E), traced with POSIX reads through
// the file pointer: each rank seeks to its segment and reads it in order.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 4 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char> buf(4096);
  int fd = open("segmented.dat", O_RDONLY | O_CREAT, 0644);
  lseek(fd, off_t(rank) * 100 * 4096, SEEK_SET);
  for (int i = 0; i < 100; i++)
    if (read(fd, buf.data(), 4096) < 0)
      break;
  close(fd);
  MPI_Finalize();
}

// CHECK:      # file f0 "segmented.dat", ranks 0-3, read, 100 accesses, 409600 bytes per rank
// CHECK-NEXT: {READ, 409600*rank, 1, ([4096, 4096, 100]), 1}
// CHECK-NEXT: {Read, <contiguous>, <single occurrence>, <fixed size, small>, <random>}
