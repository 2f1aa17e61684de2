// One byte at a pseudo-random offset per pwrite. With the runtime preloaded
// (no loop markers) every call takes the compressor's general path, so the
// thread spends much of its time converting batches of records.
//   busy_writes READY          forever (until killed); prints "ready" after
//                              READY calls
//   busy_writes READY TOTAL    TOTAL random writes, then 500 with a fixed
//                              stride; prints the process's thread count
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int threads(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  for (struct dirent *e; (e = readdir(d));)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  long ready = argc > 1 ? atol(argv[1]) : 10000;
  long total = argc > 2 ? atol(argv[2]) : -1;
  int fd = open("busy.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) {
    perror("busy.dat");
    return 1;
  }
  unsigned x = 12345u;
  for (long n = 0; n != total; ++n) {
    x = x * 1103515245u + 12345u;
    if (pwrite(fd, "z", 1, (off_t)((x >> 8) % 100000)) != 1) {
      perror("pwrite");
      return 1;
    }
    if (n == ready) {
      printf("ready\n");
      fflush(stdout);
    }
  }
  for (int i = 0; i < 500; ++i)
    pwrite(fd, "y", 1, 8 * i);
  printf("threads %d\n", threads());
  close(fd);
  return 0;
}
