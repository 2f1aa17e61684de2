// Loop shapes and exits particular to C++: range-for, a return from nested
// loops, an exception, a constructor, a template, a lambda; and while, do and
// a goto out of two loops as C++ (scoped markers, not C's labels).
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>
#include <vector>

static int fd;
static char buf[4];

struct Writer {
  explicit Writer(int n) {
    for (int i = 0; i < n; i++)
      write(fd, buf, 1);
  }
};

int range_for(const std::vector<int> &v) {
  int s = 0;
  for (int x : v)
    for (int k = 0; k < 2; k++) {
      if (x < 0)
        return s;
      s += (int)pwrite(fd, buf, 1, x + k);
    }
  return s;
}

void throws_out(int n) {
  for (int i = 0; i < n; i++) {
    write(fd, buf, 1);
    if (i == 1)
      throw std::runtime_error("leaves the loop");
  }
}

int early_io(int n) {
  for (int i = 0; i < n; i++) {
    write(fd, buf, 1);
    if (i == 1) {
      pwrite(fd, buf, 1, 0);
      break;
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      write(fd, buf, 1);
      if (i == 1)
        return (int)pwrite(fd, buf, 1, j);
    }
  return 0;
}

int while_do_goto(int n) {
  int i = 0;
  while (i < n) {
    write(fd, buf, 1);
    i++;
  }
  do
    pwrite(fd, buf, 1, i);
  while (--i > 0);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      write(fd, buf, 1);
      if (a == 1 && b == 1)
        goto done;
    }
done:
  return i;
}

template <typename T> void templ(T n) {
  for (T i = 0; i < n; i++)
    write(fd, buf, 1);
}

int main() {
  fd = open("/dev/null", O_WRONLY);
  range_for({1, 2, -1, 3});
  try {
    throws_out(3);
  } catch (const std::exception &) {
  }
  Writer w(2);
  templ<int>(2);
  early_io(3);
  while_do_goto(3);
  auto each = [](int n) {
    for (int i = 0; i < n; i++)
      write(fd, buf, 1);
  };
  each(2);
  return 0;
}
