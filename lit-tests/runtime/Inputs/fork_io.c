/* A rank that does I/O and forks children that do I/O (issue 22 item 1).
 *   fork_io fork [threads]  20 forks; each child writes its own file and
 *                           calls exit(); with "threads", two threads of the
 *                           program do I/O (open/pwrite/close) all the while,
 *                           so a fork often lands while they are inside the
 *                           runtime.
 *   fork_io system          after MPI_Finalize, rank 0 runs system("cat ...").
 * Prints one deterministic line per rank. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

static int rank;
static volatile int stop;

static void *worker(void *arg) {
  long id = (long)arg;
  char name[64], buf[16] = "0123456789abcdef";
  snprintf(name, sizeof name, "worker_%d_%ld.dat", rank, id);
  long n = 0;
  while (!stop || n < 50) {
    int fd = open(name, O_CREAT | O_WRONLY, 0644);
    pwrite(fd, buf, 16, 16 * (n % 64));
    close(fd);
    n++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *mode = argc > 1 ? argv[1] : "fork";
  int threads = argc > 2 && strcmp(argv[2], "threads") == 0;
  char name[64];
  snprintf(name, sizeof name, "rank_%d.dat", rank);
  int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (int i = 0; i < 8; i++)
    pwrite(fd, "rankdata", 8, 8 * i);
  close(fd);
  if (strcmp(mode, "fork") == 0) {
    pthread_t th[2];
    if (threads)
      for (long t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    int ok = 0;
    for (int c = 0; c < 20; c++) {
      pid_t pid = fork();
      if (pid == 0) {
        char cn[64], line[64];
        snprintf(cn, sizeof cn, "child_%d_%d.dat", rank, c);
        int cfd = open(cn, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        int len = snprintf(line, sizeof line, "child %d of rank %d\n", c, rank);
        for (int i = 0; i < 3; i++)
          write(cfd, line, (size_t)len);
        close(cfd);
        exit(c % 7);
      }
      int st = 0;
      if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == c % 7)
        ok++;
    }
    stop = 1;
    if (threads)
      for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int r = 0; r < 2; r++) {
      if (r == rank)
        printf("rank %d: %d of 20 children ok\n", rank, ok);
      fflush(stdout);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  if (strcmp(mode, "system") == 0 && rank == 0) {
    fflush(stdout);
    int st = system("cat rank_0.dat rank_1.dat; echo");
    printf("system: %d\n", st);
  }
  return 0;
}
