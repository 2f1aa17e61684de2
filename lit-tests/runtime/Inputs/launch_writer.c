/* A plain program that never calls MPI, as a user runs under mpiexec
 * (issue "First contact: ...", item 1): writes data.<PMI_RANK> (data.alone
 * when not launched by a PMI launcher), N random-offset writes of 64 bytes
 * (argv[1], default 10), says so on stdout and stderr. Built with
 * -DWITH_MPI it is an MPI program between MPI_Init and MPI_Finalize. */
#ifdef WITH_MPI
#include <mpi.h>
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
#endif
  const char *rank = getenv("PMI_RANK");
  long n = argc > 1 ? atol(argv[1]) : 10;
  char name[64], buf[64];
  snprintf(name, sizeof name, "data.%s", rank ? rank : "alone");
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0)
    return 1;
  unsigned x = 12345;
  for (long i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    snprintf(buf, sizeof buf, "%63ld", i);
    if (pwrite(fd, buf, sizeof buf, (off_t)(x % 4096) * 64) != (ssize_t)sizeof buf)
      return 2;
  }
  close(fd);
  printf("wrote %s\n", name);
  fprintf(stderr, "note: %s done\n", name);
#ifdef WITH_MPI
  MPI_Finalize();
#endif
  return 0;
}
