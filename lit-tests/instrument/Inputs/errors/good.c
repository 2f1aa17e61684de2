#include <unistd.h>
void put(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++)
    write(fd, b + i, 1);
}
