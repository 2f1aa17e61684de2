// I/O through stdio: fopen/fwrite/fflush/fseek/ftell/fread/fclose, one file
// per rank; the stream is coded as a small integer.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.4.json --complete --file "stdio_<rank>.txt" --loop-iterations 5,5 \
// RUN:   --count fopen=1 --count fwrite=1 --count fread=1 --count fclose=1 --count write=0 --count read=0 \
// RUN:   --param fopen.mode=w+ --param fwrite.nmemb=8
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1;
  char name[64];
  std::snprintf(name, sizeof name, "stdio_%d.txt", rank);
  double v[8] = {};
  FILE *f = std::fopen(name, "w+");
  for (int i = 0; i < 5 * iters; i++)
    std::fwrite(v, sizeof(double), 8, f);
  std::fflush(f);
  std::fseek(f, 0, SEEK_SET);
  for (int i = 0; i < 5 * iters; i++)
    std::fread(v, sizeof(double), 8, f);
  long end = std::ftell(f);
  std::fclose(f);
  std::remove(name);
  MPI_Finalize();
  return end > 0 ? 0 : 1;
}

// CHECK: f0 "stdio_<rank>.txt"
// CHECK: ranks 0-3:
// CHECK-NEXT: fopen(file=f0 "stdio_<rank>.txt", mode="w+") -> stream=0
// CHECK-NEXT: loop 5 iterations (i0){{.*}}:
// CHECK-NEXT: fwrite(size=8, nmemb=8, stream=0)
// CHECK-NEXT: fflush(stream=0)
// CHECK-NEXT: fseek(stream=0, offset=0, whence=0)
// CHECK-NEXT: loop 5 iterations (i0){{.*}}:
// CHECK-NEXT: fread(size=8, nmemb=8, stream=0)
// CHECK-NEXT: ftell(stream=0)
// CHECK-NEXT: fclose(stream=0)
