/* An uninstrumented POSIX-only program (no MPI): traced through LD_PRELOAD,
 * its loops found on line. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "posix_loop.dat";
  char buf[64] = {0};
  int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0)
    return 1;
  for (int i = 0; i < 10; i++)
    pwrite(fd, buf, sizeof buf, 64 * i);
  for (int i = 0; i < 10; i++) {
    lseek(fd, 128 * i, SEEK_SET);
    read(fd, buf, 32);
  }
  fdatasync(fd);
  ftruncate(fd, 320);
  close(fd);
  unlink(name);
  return 0;
}
