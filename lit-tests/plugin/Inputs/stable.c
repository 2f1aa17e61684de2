#include <fcntl.h>
#include <stdio.h>
#include "stable_io.h"

static char buf[8];

void phase(int fd, int n) {
  for (int i = 0; i < n; i++) {
    pwrite(fd, buf, 1, i);
    for (int j = 0; j < 2; j++)
      put_header(fd, buf);
  }
}

int main(void) {
  int fd = open("/dev/null", O_WRONLY);
  FILE *f = fopen("/dev/null", "w");
  int k = 0;
  do {
    fwrite(buf, 1, 1, f);
  } while (++k < 2);
  phase(fd, 2);
  fclose(f);
  close(fd);
  return 0;
}
