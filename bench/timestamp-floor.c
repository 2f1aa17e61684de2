/* The floor of any tracer that times each call: a pwrite() interposer that
 * reads the clock before and after the real call (as sio's wrappers do:
 * rdtsc on x86) and keeps a sum, recording nothing else.
 * bench/runtime-random-writes.sh preloads it into the untraced program, so
 * the ratio it prints is what timing alone costs on this host: the part of
 * the budget no design that keeps per-call timings can give back.
 *   clang-19 -O2 -shared -fPIC bench/timestamp-floor.c -o timestamp-floor.so */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t ticks(void) { return __rdtsc(); }
#else /* what sio's ticks() reads there */
static inline uint64_t ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

static ssize_t (*realPwrite)(int, const void *, size_t, off_t);
static __thread uint64_t busyTicks; /* kept so the reads are not dropped */

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  if (!realPwrite)
    realPwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  uint64_t t0 = ticks();
  ssize_t r = realPwrite(fd, buf, count, offset);
  busyTicks += ticks() - t0;
  return r;
}
