// A program that replaces malloc, free, calloc and realloc (forwarding to
// glibc's) and reports any allocation made by its own process on a thread
// whose SIGTERM is blocked: the runtime's SIGTERM handler runs with SIGTERM
// in its mask, so an allocation there is an allocation inside a signal
// handler, which is not async-signal-safe (docs/runtime.md, "Signals").
// Allocations of another process (the runtime's writer process) are fine.
// Writes a file, then rewrites it until killed.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static pid_t mainPid;
static volatile sig_atomic_t reported;

static void check(void) {
  sigset_t cur;
  if (mainPid == 0 || reported || getpid() != mainPid)
    return;
  if (pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, SIGTERM)) {
    reported = 1;
    static const char msg[] = "an allocation inside the SIGTERM handler\n";
    write(2, msg, sizeof msg - 1);
  }
}

void *malloc(size_t n) {
  check();
  return __libc_malloc(n);
}
void free(void *p) {
  check();
  __libc_free(p);
}
void *calloc(size_t a, size_t b) {
  check();
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  check();
  return __libc_realloc(p, n);
}

int main(void) {
  mainPid = getpid();
  int fd = open("data.out", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  char block[64];
  memset(block, 'x', sizeof block);
  // The file's bytes do not depend on when the signal lands: the loop
  // rewrites what is there.
  for (int i = 0; i < 100; ++i)
    pwrite(fd, block, sizeof block, (off_t)i * sizeof block);
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < 20000; ++i) {
    pwrite(fd, block, sizeof block, (off_t)(i % 100) * sizeof block);
    usleep(500);
  }
  close(fd);
  return 0;
}
