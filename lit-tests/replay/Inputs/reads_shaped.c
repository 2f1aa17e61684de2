/* Vectored reads of an input file whose end moves under them: a write
 * through the same descriptor, then readv and preadv that come up short.
 * Sized from the reads alone, the replay's input is 10 bytes too short; the
 * replay shapes it before each read (docs/replay.md, Input files). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

int main(void) {
  static char a[600], b[600];
  int fd = open("in.dat", O_RDWR); /* 1000 bytes, made by the test */
  if (fd < 0)
    return 1;
  if (write(fd, "0123456789", 10) != 10) /* position 10 */
    return 2;
  struct iovec two[2] = {{a, 100}, {b, 100}};
  ssize_t full = readv(fd, two, 2); /* 200: position 210 */
  struct iovec big[2] = {{a, 600}, {b, 600}};
  ssize_t rest = readv(fd, big, 2);       /* 790 of 1200: the end */
  ssize_t tail = preadv(fd, two, 2, 500); /* 200 */
  ssize_t none = preadv(fd, two, 2, 5000); /* past the end: 0 */
  close(fd);
  printf("readv=%zd readv=%zd preadv=%zd preadv=%zd\n", full, rest, tail, none);
  return 0;
}
