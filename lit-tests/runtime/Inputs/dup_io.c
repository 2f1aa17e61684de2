/* Writes through descriptors made by dup, dup2, dup3 and fcntl(F_DUPFD,
 * F_DUPFD_CLOEXEC), onto and from traced descriptors, from an untraced one
 * (a pipe) and onto one: a.dat gets 10 bytes, b.dat 311, c.dat 57. The
 * trace's per-file bytes must be those, and so must its replay's files. */
#define _GNU_SOURCE
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[512];

static void put(int fd, size_t n) {
  if (write(fd, buf, n) != (ssize_t)n)
    printf("write(%d, %zu) failed: %s\n", fd, n, strerror(errno));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  memset(buf, 'x', sizeof buf);
  int a = open("a.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  int b = open("b.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  int c = open("c.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  put(a, 10);          /* a.dat 10 */
  dup2(b, a);          /* a names b.dat; a.dat is closed */
  put(a, 100);         /* b.dat 100 */
  int d = dup(a);
  put(d, 100);         /* b.dat 200 */
  int e = fcntl(c, F_DUPFD, 50);
  put(e, 30);          /* c.dat 30 */
  int f = fcntl(c, F_DUPFD_CLOEXEC, 0);
  put(f, 20);          /* c.dat 50 */
  dup3(c, d, O_CLOEXEC); /* d names c.dat */
  put(d, 7);           /* c.dat 57 */
  dup2(b, b);          /* nothing */
  put(b, 100);         /* b.dat 300 */
  int p[2];
  if (pipe(p) != 0)
    return 1;
  dup2(p[1], e);       /* e names the pipe (untraced) */
  put(e, 5);
  char sink[8];
  if (read(p[0], sink, sizeof sink) != 5)
    printf("pipe read failed\n");
  dup2(a, p[0]);       /* the pipe's read end names b.dat */
  put(p[0], 11);       /* b.dat 311 */
  if (dup2(a, -1) != -1 || errno != EBADF)
    printf("dup2 onto -1 did not fail with EBADF\n");
  if (dup(12345) != -1 || errno != EBADF)
    printf("dup of 12345 did not fail with EBADF\n");
  close(a), close(b), close(c), close(d), close(e), close(f), close(p[0]), close(p[1]);
  printf("done\n");
  MPI_Finalize();
  return 0;
}
