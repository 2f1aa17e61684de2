/* Every loop shape and way out of a loop, in C. */
#include "io_helper.h"
#include <fcntl.h>
#include <sys_io.h>
#include <unistd.h>

#define CHECK(x)                                                               \
  if ((x) < 0)                                                                 \
  _exit(2)

static int fd;
static char buf[4];

int read_all(void) {
  int n, total = 0;
  while ((n = read(fd, buf, 1)) > 0)
    total += n;
  return total;
}

void do_while(int n) {
  int i = 0;
  do
    write(fd, buf, 1);
  while (++i < n);
}

void goto_out(int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      write(fd, buf, 1);
      if (j == 1)
        goto next;
      if (i == 1)
        goto done;
    }
  next:;
  }
done:
  write(fd, buf, 1);
}

int return_io(int n) {
  for (int i = 0; i < n; i++)
    if (i == 1)
      return (int)write(fd, buf, 1);
  return -1;
}

int return_plain(int n) {
  for (int i = 0; i < n; i++) {
    write(fd, buf, 1);
    if (i == 1)
      return i;
  }
  return -1;
}

/* I/O on the way out of a loop happens outside it (after its exit). */
int early_io(int n) {
  for (int i = 0; i < n; i++) {
    write(fd, buf, 1);
    if (i == 1) {
      pwrite(fd, buf, 1, 0);
      break;
    }
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      write(fd, buf, 1);
      if (i == 1)
        return (int)pwrite(fd, buf, 1, j);
    }
  }
  return 0;
}

void switch_break(int n) {
  for (int i = 0; i < n; i++) {
    switch (i) {
    case 0:
      write(fd, buf, 1);
      break;
    default:
      pwrite(fd, buf, 1, i);
    }
  }
}

void macros(int n) {
  for (int i = 0; i < n; i++)
    WRITE_ONE(fd, buf);
  WRITE_STMT(fd, buf);
  CHECK(write(fd, buf, 1));
}

void via_header(int n) {
  for (int i = 0; i < n; i++)
    write_twice(fd, buf);
}

/* The same as the body of an if with an else: the block that wraps the loop
 * (and the label its early break jumps to) must stay one statement. */
void early_io_in_if(int n) {
  if (n > 0)
    for (int i = 0; i < n; i++) {
      write(fd, buf, 1);
      if (i == 1) {
        pwrite(fd, buf, 1, 0);
        break;
      }
    }
  else
    write(fd, buf, 1);
}

int main(void) {
  fd = open("/dev/null", O_RDWR);
  read_all();
  do_while(2);
  goto_out(3);
  return_io(3);
  return_plain(3);
  switch_break(3);
  early_io(3);
  macros(2);
  via_header(2);
  early_io_in_if(3);
  return 0;
}
