/* Included as a system header (-isystem): never touched. */
#include <unistd.h>
static inline void sys_write_loop(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++)
    write(fd, b, 1);
}
