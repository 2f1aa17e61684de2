#include <unistd.h>
void broken(int fd) {
  write(fd, "x", 1)
}
