#include <unistd.h>

void f(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++)
    write(fd, b, 1);
}
