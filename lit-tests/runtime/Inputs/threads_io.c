/* Threads of one rank doing I/O (issue 22 item 3), MPI_THREAD_MULTIPLE.
 *   threads_io order    the main thread opens a file, a worker thread writes
 *                       it 100 x 4 bytes, the main thread closes it.
 *   threads_io stress R [serial]
 *                       4 threads x 10,000 mixed calls, R times: each thread
 *                       reopens its file every 100 calls (so descriptors are
 *                       reused across threads all the time), pwrite, pread,
 *                       lseek, write, and MPI_File_write_at on a file of its
 *                       own; "serial" runs the threads one after another.
 *                       The main thread creates the files and opens the
 *                       MPI files first, in order, and closes them at the end.
 *                       Prints what the rank did per file:
 *                         rank <r> file <name> calls <n> bytes <n>
 *                       With THREADS_IO_NO_FINALIZE set it exits without
 *                       MPI_Finalize: each rank leaves its own trace.
 *                       (MPI-IO files: calls of the program, without ROMIO's
 *                       inner calls). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

enum { kThreads = 4, kCalls = 10000 };
static int rank, reps = 1;
static int shared_fd;
static MPI_File fhs[kThreads];
static long calls[kThreads], bytes[kThreads], mcalls[kThreads], mbytes[kThreads];

static void *order_worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 100; i++)
    write(shared_fd, "abcd", 4);
  return NULL;
}

static void *stress(void *arg) {
  long t = (long)arg;
  char name[64], mname[64], buf[64];
  memset(buf, 'a' + (int)t, sizeof buf);
  snprintf(name, sizeof name, "st_%c.dat", 'a' + (int)t);
  snprintf(mname, sizeof mname, "mst_%c.dat", 'a' + (int)t);
  MPI_File fh = fhs[t];
  long extent = 0, done = 0;
  for (int r = 0; r < reps; r++) {
    int fd = -1;
    for (long i = 0; i < kCalls - 2; i++, done++) {
      if (i % 100 == 0) {
        if (fd >= 0) {
          close(fd);
          calls[t]++;
        }
        fd = open(name, O_CREAT | O_RDWR, 0644);
        calls[t]++;
        continue;
      }
      long sz = 1 + (done * 7) % 64, off = 4096 * rank + (done * 64) % 4096;
      switch (i % 5) {
      case 0:
        pwrite(fd, buf, (size_t)sz, off);
        bytes[t] += sz, calls[t]++;
        if (off + sz > extent)
          extent = off + sz;
        break;
      case 1: {
        long n = extent - 4096 * rank < 32 ? extent - 4096 * rank : 32;
        if (n > 0) {
          pread(fd, buf, (size_t)n, 4096 * rank);
          bytes[t] += n, calls[t]++;
        } else {
          lseek(fd, 0, SEEK_SET);
          calls[t]++;
        }
        break;
      }
      case 2:
        lseek(fd, 4096 * rank, SEEK_SET);
        calls[t]++;
        break;
      case 3:
        write(fd, buf, 8);
        bytes[t] += 8, calls[t]++;
        if (4096 * rank + 8 > extent)
          extent = 4096 * rank + 8;
        break;
      case 4:
        MPI_File_write_at(fh, (MPI_Offset)(65536 * rank + (done % 512) * 16), buf, 16, MPI_BYTE,
                          MPI_STATUS_IGNORE);
        mbytes[t] += 16, mcalls[t]++;
        break;
      }
    }
    close(fd);
    calls[t]++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    printf("no MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t th[kThreads];
  if (strcmp(argv[1], "order") == 0) {
    char name[32];
    snprintf(name, sizeof name, "order_%d.dat", rank);
    shared_fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    pthread_create(&th[0], NULL, order_worker, NULL);
    pthread_join(th[0], NULL);
    close(shared_fd);
  } else {
    reps = argc > 2 ? atoi(argv[2]) : 1;
    int serial = argc > 3 && strcmp(argv[3], "serial") == 0;
    /* The files enter each rank's file table in the same order. Their names
     * differ in a letter, not a number: where one rank's thread opens st_a
     * while the other rank's opens st_d, the merge keeps the two names (a
     * number would become a format of the rank, st_<3 - 3*rank>, whose calls
     * sio-trace stats reports under the format, not under each file). */
    for (int t = 0; t < kThreads; t++) {
      char name[64];
      snprintf(name, sizeof name, "st_%c.dat", 'a' + t);
      close(open(name, O_CREAT | O_RDWR, 0644));
      calls[t] += 2;
      snprintf(name, sizeof name, "mst_%c.dat", 'a' + t);
      MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fhs[t]);
      mcalls[t] += 2; /* open and close */
    }
    for (long t = 0; t < kThreads; t++) {
      pthread_create(&th[t], NULL, stress, (void *)t);
      if (serial)
        pthread_join(th[t], NULL);
    }
    if (!serial)
      for (int t = 0; t < kThreads; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < kThreads; t++)
      MPI_File_close(&fhs[t]);
    for (int r = 0; r < 2; r++) {
      if (r == rank)
        for (int t = 0; t < kThreads; t++)
          printf("rank %d file st_%c.dat calls %ld bytes %ld\nrank %d file mst_%c.dat calls %ld bytes %ld\n", rank,
                 'a' + t, calls[t], bytes[t], rank, 'a' + t, mcalls[t], mbytes[t]);
      fflush(stdout);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  if (getenv("THREADS_IO_NO_FINALIZE")) /* each rank leaves its own partial trace */
    exit(0);
  MPI_Finalize();
  return 0;
}
