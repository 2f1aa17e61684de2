/* Writes a little, then faults (issue 22 item 6):
 *   fault segv   dereferences a null pointer (after MPI_Barrier)
 *   fault bus    touches a page of a file mapped past its end
 *   fault stack  overflows the main thread's stack
 * Built with -DNO_MPI: the same without MPI (one process). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifndef NO_MPI
#include <mpi.h>
#endif

static volatile int *volatile nowhere;

static int deep(int n) {
  volatile char pad[4096];
  pad[0] = (char)n;
  return deep(n + 1) + pad[0];
}

int main(int argc, char **argv) {
  int rank = 0;
#ifndef NO_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
  char name[32];
  snprintf(name, sizeof name, "fault_%d.dat", rank);
  int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0644);
  for (int i = 0; i < 5; i++)
    pwrite(fd, "12345678", 8, 8 * i);
#ifndef NO_MPI
  MPI_Barrier(MPI_COMM_WORLD);
#endif
  printf("rank %d faults\n", rank);
  fflush(stdout);
  const char *how = argc > 1 ? argv[1] : "segv";
  if (strcmp(how, "bus") == 0) {
    ftruncate(fd, 0);
    volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    p[0] = 1;
  } else if (strcmp(how, "stack") == 0) {
    return deep(0);
  }
  return *nowhere;
}
