// Random offsets (a linear congruential generator over 4096-byte blocks)
// are classified random, never as a strided pattern.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 1 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
#include <mpi.h>

#include <cstdint>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char buf[4096];
  int fd = open("random.dat", O_RDONLY | O_CREAT, 0644);
  uint64_t state = 12345;
  for (int i = 0; i < 500; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    if (pread(fd, buf, sizeof buf, off_t((state >> 33) % 100000) * 4096) < 0)
      break;
  }
  close(fd);
  MPI_Finalize();
}

// CHECK:      # file f0 "random.dat", ranks 0, read, 500 accesses, 2048000 bytes
// CHECK-NEXT: {READ, {{[0-9]+}}, 1, ([random, 4096, 500]), 1}
// CHECK-NEXT: {Read, <non-contiguous, random>, <single occurrence>, <fixed size, small>, <random>}
