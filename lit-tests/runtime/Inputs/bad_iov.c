/* readv/writev/preadv/pwritev given iovec arrays the kernel rejects: an
 * unreadable array, a count past IOV_MAX (over a real array of 1,025
 * iovecs with garbage lengths, and over a 1-element one), a negative count.
 * One line per call with its result and errno, the same traced and
 * untraced. Then one good writev of 3 + 4 bytes. With an argument, the
 * counts only: a replay can fail those calls the same way (EINVAL), not the
 * unreadable arrays (its own are readable). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

static void show(const char *what, const char *arg, long r) {
  printf("%s(%s)=%ld errno=%s\n", what, arg, r, r == -1 ? strerrorname_np(errno) : "-");
}

static struct iovec many[1025];

static void all(int fd, const struct iovec *iov, int cnt, const char *arg) {
  show("writev", arg, writev(fd, iov, cnt));
  show("readv", arg, readv(fd, iov, cnt));
  show("pwritev", arg, pwritev(fd, iov, cnt, 0));
  show("preadv", arg, preadv(fd, iov, cnt, 0));
}

int main(int argc, char **argv) {
  (void)argv;
  long page = sysconf(_SC_PAGESIZE);
  char *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = open("iov.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
  char buf[8] = "abcdefg";
  struct iovec one = {buf, 3};
  /* Lengths no one could allocate: what a byte count summed from them says. */
  for (int i = 0; i < 1025; i++) {
    many[i].iov_base = buf;
    many[i].iov_len = (size_t)1 << 60;
  }
  if (argc < 2) {
    all(fd, (const struct iovec *)1, 1, "ptr1");
    all(fd, (const struct iovec *)none, 2, "prot_none");
  }
  all(fd, many, 1025, "1025");
  all(fd, &one, 1 << 20, "2^20");
  all(fd, &one, -1, "-1");
  struct iovec two[2] = {{buf, 3}, {buf + 3, 4}};
  show("writev", "good", writev(fd, two, 2));
  close(fd);
  return 0;
}
