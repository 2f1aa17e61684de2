/* Looks like a tracing runtime: an interposer named like an I/O function and
 * runtime-prefixed functions. None of them is instrumented. */
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t __real_write(int, const void *, size_t);
void __sio_flush(int fd) {
  for (int i = 0; i < 2; i++)
    fsync(fd);
}
void sio_rt_dump(int fd) { fsync(fd); }
ssize_t write(int fd, const void *b, size_t n) {
  for (int i = 0; i < 1; i++)
    fsync(fd);
  return __real_write(fd, b, n);
}
/* An ordinary function is. */
void user(int fd) { fsync(fd); }
