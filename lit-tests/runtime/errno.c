/* errno and return values pass through untouched, traced or not: a failing
 * open gives -1/ENOENT, a successful call leaves errno as it was.
 * REQUIRES: runtime, sio-trace
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cc-rt -O1 %s -o %t.exe
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe | FileCheck %s
 * RUN: cd %t.d && env SIO_DISABLE=1 %mpiexec -n 2 %t.exe | FileCheck %s
 * RUN: %python %S/Inputs/check_trace.py %t.json --count open=2 --param open.fd=-1 --param fopen.stream=-1
 * CHECK-COUNT-2: open=-1 errno=ENOENT fopen=null errno=ENOENT write=4 errno=1234 close=-1 errno=EBADF
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  errno = 0;
  int fd = open("no/such/dir/file", O_RDONLY);
  int e1 = errno;
  FILE *f = fopen("no/such/dir/file", "r");
  int e2 = errno;
  int ok = open("errno.dat", O_CREAT | O_WRONLY, 0644);
  errno = 1234;
  ssize_t w = write(ok, "abcd", 4);
  int e3 = errno;
  close(ok);
  int c = close(ok);
  int e4 = errno;
  char line[160];
  snprintf(line, sizeof line, "open=%d errno=%s fopen=%s errno=%s write=%zd errno=%d close=%d errno=%s\n", fd,
           e1 == ENOENT ? "ENOENT" : "?", f ? "file" : "null", e2 == ENOENT ? "ENOENT" : "?", w, e3, c,
           e4 == EBADF ? "EBADF" : "?");
  for (int r = 0; r < 2; r++) {
    if (r == rank) {
      fputs(line, stdout);
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
