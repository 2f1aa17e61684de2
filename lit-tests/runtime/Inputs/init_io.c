/* A thread doing I/O across MPI_Init: it opens init_io.dat and writes to it
 * (4 bytes a call) until the main thread, after MPI_Init returned, tells
 * it to stop; then it writes 100 more and closes. Prints what it did in
 * check_file_totals.py's form: the open, the writes, the close. */
#include <mpi.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int started, stop;
static long calls, bytes;

static void *writer(void *arg) {
  (void)arg;
  int fd = open("init_io.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  calls = 1;
  atomic_store(&started, 1);
  for (long extra = 0; extra < 100;) {
    if (atomic_load(&stop))
      extra++;
    ssize_t w = write(fd, "abcd", 4);
    calls++;
    bytes += w > 0 ? w : 0;
  }
  close(fd);
  calls++;
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  while (!atomic_load(&started))
    ;
  MPI_Init(&argc, &argv);
  atomic_store(&stop, 1);
  pthread_join(t, NULL);
  printf("rank 0 file init_io.dat calls %ld bytes %ld\n", calls, bytes);
  MPI_Finalize();
  return 0;
}
