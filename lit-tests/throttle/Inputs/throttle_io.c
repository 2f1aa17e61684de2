// Writes BYTES to FILE in CHUNK-byte pwrites, reads them back with pread and
// checks them; prints the seconds each phase took. Also checks that a failed
// call keeps its result and errno under the library (pread on a closed fd).
// usage: throttle_io FILE BYTES CHUNK
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  long bytes = atol(argv[2]), chunk = atol(argv[3]);
  char *buf = malloc((size_t)chunk), *back = malloc((size_t)chunk);
  int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || !buf || !back) {
    perror(argv[1]);
    return 1;
  }
  double t0 = now();
  for (long off = 0; off < bytes; off += chunk) {
    for (long i = 0; i < chunk; ++i)
      buf[i] = (char)((off + i) * 7 + 3);
    if (pwrite(fd, buf, (size_t)chunk, off) != chunk) {
      perror("pwrite");
      return 1;
    }
  }
  double t1 = now();
  long wrong = 0;
  for (long off = 0; off < bytes; off += chunk) {
    if (pread(fd, back, (size_t)chunk, off) != chunk) {
      perror("pread");
      return 1;
    }
    for (long i = 0; i < chunk; ++i)
      wrong += back[i] != (char)((off + i) * 7 + 3);
  }
  double t2 = now();
  close(fd);
  errno = 0;
  ssize_t r = pread(fd, back, 1, 0);
  printf("write_s %.6f read_s %.6f wrong %ld closed_fd_pread %zd %s\n", t1 - t0, t2 - t1, wrong, r,
         errno == EBADF ? "EBADF" : strerror(errno));
  return wrong != 0;
}
