/* Results of POSIX calls (issue 22 item 5): the trace records what each call
 * transferred or its error, and sio-trace stats counts bytes moved, not bytes
 * asked for. Per rank: 6000 bytes written, then on a read-only descriptor 100
 * pwrites of 4 KiB that all fail with EBADF, a pread at offset 4096 that
 * reads the 1904 bytes left, a pread at end of file (0 bytes), a preadv of
 * 2 x 2 KiB from 5000 (1000 bytes). The program's output (return values,
 * errno) is the same traced and untraced.
 * REQUIRES: runtime, sio-trace
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cc-rt -O1 %s -o %t.exe
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 2 %t.exe > %t.traced.txt
 * RUN: cd %t.d && env SIO_DISABLE=1 %mpiexec -n 2 %t.exe > %t.untraced.txt
 * RUN: diff %t.traced.txt %t.untraced.txt
 * RUN: FileCheck %s --check-prefix=OUT < %t.traced.txt
 * RUN: %sio-trace stats %t.json | FileCheck %s --check-prefix=STATS
 * RUN: %sio-trace dump %t.json | FileCheck %s --check-prefix=DUMP
 * RUN: %python %S/Inputs/check_trace.py %t.json --count pwrite=1 --loop-iterations 100,2 --param pwrite.error=9 \
 * RUN:   --param pread.result=1904 --param pread.result=0 --param preadv.result=1000 --param write.result=6000
 *
 * OUT-COUNT-2: write=6000 pwrite=-1x100 errno=EBADF pread=1904 eof=0 preadv=1000 open=-1 errno=ENOENT
 *
 * 2 ranks: 2 x 6000 written; 2 x (1904 + 0 + 1000) read; 2 x 100 failed
 * pwrites and 2 failed opens.
 * STATS: failed calls: 202
 * STATS: bytes read: 5808
 * STATS-NEXT: bytes written: 12000
 * STATS: pread 4 3808
 * STATS-NEXT: preadv 2 2000
 * STATS-NEXT: pwrite 200 0
 * STATS: write 2 12000
 *
 * DUMP: write(fd=0, count=6000) -> result=6000
 * DUMP: loop 100 iterations
 * DUMP-NEXT: pwrite(fd=0, count=4096, offset=4096*i0) -> error=9 EBADF
 * DUMP: pread(fd=0, count=4096, offset=4096) -> result=1904
 * DUMP-NEXT: pread(fd=0, count=4096, offset=6000) -> result=0
 * DUMP-NEXT: preadv(fd=0, iovcnt=2, offset=5000, bytes=4096) -> result=1000
 * DUMP: open(file=f{{[0-9]+}} "no/such/dir/file", flags=0) -> fd=-1, error=2 ENOENT
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[8192];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[64];
  snprintf(name, sizeof name, "results_%d.dat", rank);
  memset(buf, 'x', sizeof buf);

  int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ssize_t w = write(fd, buf, 6000);
  close(fd);

  fd = open(name, O_RDONLY);
  int failures = 0, err = 0;
  ssize_t pw = 0;
  for (int i = 0; i < 100; i++) {
    pw = pwrite(fd, buf, 4096, (off_t)4096 * i);
    failures += pw == -1;
    err = errno;
  }
  ssize_t short_read = pread(fd, buf, 4096, 4096);
  ssize_t eof = pread(fd, buf, 4096, 6000);
  struct iovec iov[2] = {{buf, 2048}, {buf + 2048, 2048}};
  ssize_t rv = preadv(fd, iov, 2, 5000);
  close(fd);
  errno = 0;
  int missing = open("no/such/dir/file", O_RDONLY);
  int err2 = errno;

  char line[200];
  snprintf(line, sizeof line, "write=%zd pwrite=%zdx%d errno=%s pread=%zd eof=%zd preadv=%zd open=%d errno=%s\n", w, pw,
           failures, err == EBADF ? "EBADF" : "?", short_read, eof, rv, missing, err2 == ENOENT ? "ENOENT" : "?");
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
