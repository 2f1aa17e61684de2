/* Fortified and large-file variants are the same calls: with
 * _FORTIFY_SOURCE, read into a sized buffer becomes __read_chk, and with
 * _FILE_OFFSET_BITS=64 open/pread/fopen become open64/pread64/fopen64; the
 * trace says read, pread, open and fopen. Built by MPICH's mpicc (gcc, which
 * fortifies this read; clang does not) and traced through LD_PRELOAD.
 * REQUIRES: runtime, sio-trace
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d
 * RUN: %mpicc -O2 -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64 %s -o %t.exe
 * RUN: nm %t.exe | FileCheck %s --check-prefix=SYMS
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -genv LD_PRELOAD %siotrace-rt -n 2 %t.exe
 * RUN: %sio-trace dump %t.json | FileCheck %s
 * SYMS-DAG: U __read_chk
 * SYMS-DAG: U open64
 * SYMS-DAG: U pread64
 * SYMS-DAG: U fopen64
 * CHECK: ranks 0-1:
 * CHECK-NEXT: open(file=f0 "fortify_<rank>.dat", flags=66, mode=420) -> fd=0
 * CHECK-NEXT: write(fd=0, count=16)
 * CHECK-NEXT: pread(fd=0, count=8, offset=8)
 * CHECK-NEXT: lseek(fd=0, offset=0, whence=0)
 * CHECK-NEXT: read(fd=0, count=16)
 * CHECK-NEXT: close(fd=0)
 * CHECK-NEXT: fopen(file=f0 "fortify_<rank>.dat", mode="r") -> stream=0
 * CHECK-NEXT: fclose(stream=0)
 * CHECK-NEXT: unlink(file=f0 "fortify_<rank>.dat")
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[64], buf[16] = "0123456789abcde";
  snprintf(name, sizeof name, "fortify_%d.dat", rank);
  int fd = open(name, O_CREAT | O_RDWR, 0644);
  if (write(fd, buf, sizeof buf) != sizeof buf || pread(fd, buf, 8, 8) != 8)
    return 1;
  lseek(fd, 0, SEEK_SET);
  volatile size_t want = sizeof buf; /* unknown at compile time: __read_chk */
  if (read(fd, buf, want) != sizeof buf)
    return 1;
  close(fd);
  FILE *f = fopen(name, "r");
  fclose(f);
  unlink(name);
  MPI_Finalize();
  return 0;
}
