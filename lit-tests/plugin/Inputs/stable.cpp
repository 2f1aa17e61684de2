#include <fcntl.h>
#include <unistd.h>
#include <vector>

#define CHECKED_WRITE(fd, b)                                                   \
  do {                                                                         \
    if (write(fd, b, 1) < 0)                                                   \
      return;                                                                  \
  } while (0)

template <typename T> void put_all(int fd, const std::vector<T> &v) {
  for (const T &x : v)
    write(fd, &x, sizeof x);
}

struct Logger {
  int fd;
  explicit Logger(int f) : fd(f) { write(fd, "L", 1); }
  ~Logger() { fsync(fd); }
  void many(int n) {
    for (int i = 0; i < n; write(fd, "i", 1), i++)
      write(fd, "b", 1);
  }
};

void macros(int fd, int n) {
  int i = 0;
  while (i++ < n)
    CHECKED_WRITE(fd, "m");
  if (0) {
    for (;;)
      write(fd, "dead", 4);
  }
}

int main() {
  int fd = open("/dev/null", O_WRONLY);
  std::vector<int> vi{1, 2};
  std::vector<char> vc{'a'};
  put_all(fd, vi);
  put_all(fd, vc);
  auto lambda = [fd](int n) {
    for (int k = 0; k < n; k++)
      pwrite(fd, "k", 1, k);
  };
  lambda(2);
  {
    Logger log(fd);
    log.many(2);
  }
  macros(fd, 2);
  close(fd);
  return 0;
}
