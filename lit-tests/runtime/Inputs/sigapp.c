/* How applications treat SIGTERM and SIGABRT, for the tests of the runtime's
 * signal handling (lit-tests/runtime/signal-*.test). The I/O modes write
 * data_<rank>.bin (the same bytes whatever the moment a signal lands) and
 * print "ready" once the signal may come.
 *   sigapp loop N      N iterations of I/O, then exits 0 (run with SIGTERM
 *                      inherited as ignored: `trap '' TERM; exec sigapp`)
 *   sigapp selfterm N  the same, rank 1 (or the only process) sending
 *                      itself SIGTERM half-way
 *   sigapp chain       a handler that cleans up, then does what the previous
 *                      disposition would: calls it if it is a function,
 *                      else re-raises with SIG_DFL (dies of SIGTERM)
 *   sigapp chain-raw   the same, the handler installed with sysv_signal (which
 *                      reaches the kernel without the program's sigaction:
 *                      it sees the runtime's handler and calls it)
 *   sigapp graceful    a handler that cleans up and calls the previous
 *                      handler if it is a function; main then finishes and
 *                      exits 0 (a graceful shutdown)
 *   sigapp exit        a handler that cleans up, calls the previous handler
 *                      if it is a function, then exit(0)
 *   sigapp heap        corrupts the heap (a double free) in a process with a
 *                      second thread, so glibc aborts holding its arena lock
 *                      (with MPI: the last rank; the others wait for it)
 * Built with -DUSE_MPI: an MPI program (barriers between iterations). */
#define _GNU_SOURCE /* sysv_signal */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

static volatile sig_atomic_t stop;
static struct sigaction previous;
static int cleanupFd = -1;
static const char *mode = "loop";

static void cleanup(void) {
  if (cleanupFd >= 0)
    write(cleanupFd, "cleanup\n", 8);
}

static void callPrevious(int sig) {
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN)
    return;
  if (previous.sa_flags & SA_SIGINFO)
    previous.sa_sigaction(sig, NULL, NULL);
  else
    previous.sa_handler(sig);
}

static void onTerm(int sig) {
  cleanup();
  if (strncmp(mode, "chain", 5) == 0) {
    if (previous.sa_handler == SIG_DFL) {
      signal(sig, SIG_DFL);
      raise(sig);
    } else {
      callPrevious(sig);
    }
  } else if (strcmp(mode, "graceful") == 0) {
    callPrevious(sig);
    stop = 1;
  } else {
    callPrevious(sig);
    const char done[] = "shut down in the handler\n";
    write(1, done, sizeof done - 1);
    exit(0);
  }
}

static void *nothing(void *arg) { return arg; }

int main(int argc, char **argv) {
  int rank = 0;
#ifdef USE_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
  mode = argc > 1 ? argv[1] : "loop";
  long n = argc > 2 ? atol(argv[2]) : 2000;
  if (strcmp(mode, "heap") == 0) {
    /* With MPI, the last rank corrupts its heap; the others wait for it in
     * a barrier (the launcher ends them: no output, whose forwarding the
     * launcher may cut). */
#ifdef USE_MPI
    int nranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank != nranks - 1) {
      MPI_Barrier(MPI_COMM_WORLD);
      return 1;
    }
#endif
    pthread_t t; /* glibc locks its arenas only once a second thread existed */
    pthread_create(&t, NULL, nothing, NULL);
    pthread_join(t, NULL);
    char *volatile a = malloc(0x500), *volatile b = malloc(0x500);
    free(a);
    free(a); /* "double free or corruption (!prev)": abort() */
    free(b);
    printf("not reached\n");
    return 0;
  }
  char name[32];
  snprintf(name, sizeof name, "data_%d.bin", rank);
  int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0644);
  cleanupFd = open("cleanup.txt", O_CREAT | O_WRONLY | O_APPEND, 0644);
  int handles = strcmp(mode, "loop") != 0 && strcmp(mode, "selfterm") != 0;
  if (handles) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onTerm;
    sigemptyset(&sa.sa_mask);
    if (strcmp(mode, "chain-raw") == 0) /* glibc sets it without the exported sigaction */
      previous.sa_handler = sysv_signal(SIGTERM, onTerm);
    else
      sigaction(SIGTERM, &sa, &previous);
    n = 2000000000L; /* until the signal (the test's timeout ends it otherwise) */
  }
  char block[64];
  for (long i = 0; i < n && !stop; i++) {
    memset(block, 'a' + (int)(i % 4), sizeof block);
    pwrite(fd, block, sizeof block, (i % 4) * 64);
    if (i % 8 == 7) { /* a file opened and closed: the runtime's name table */
      int g = open("scratch.bin", O_CREAT | O_WRONLY, 0644);
      write(g, block, 8);
      close(g);
    }
    if (i == 8 && rank == 0) /* not stdio: the "exit" handler flushes stdout */
      write(1, "ready\n", 6);
    if (strcmp(mode, "selfterm") == 0 && i == n / 2 && (rank == 1 || argc > 3))
      kill(getpid(), SIGTERM);
#ifdef USE_MPI
    if (i % 64 == 63)
      MPI_Barrier(MPI_COMM_WORLD);
#endif
  }
  if (stop)
    printf("graceful shutdown\n");
#ifdef USE_MPI
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
#endif
  printf("rank %d done\n", rank);
  return 0;
}
