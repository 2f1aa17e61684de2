/* A program that does I/O, then replaces itself with exec, or starts a
 * child with vfork (docs/runtime.md, Processes). Not MPI: traced preloaded.
 *   exec_io exec     writes 100 B to first.dat, then execs itself as
 *                    `exec_io second`, which writes 300 B to second.dat.
 *   exec_io execfail writes 100 B to first.dat, execs a program that does not
 *                    exist, prints exec's errno, writes 10 B more.
 *   exec_io vfork    writes 10 B to parent.dat; a vfork child writes 50 B to
 *                    child.dat and _exits; the parent writes 10 B more.
 *   exec_io fds N    opens N files and prints the descriptors it was given.
 * Prints what it did; the output is the same traced and untraced. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *name, int flags, size_t bytes) {
  char buf[512];
  memset(buf, 'x', sizeof buf);
  int fd = open(name, O_WRONLY | O_CREAT | flags, 0644);
  if (fd < 0 || write(fd, buf, bytes) != (ssize_t)bytes) {
    perror(name);
    exit(3);
  }
  close(fd);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "exec") == 0) {
    put("first.dat", O_TRUNC, 100);
    fflush(stdout);
    execl(argv[0], argv[0], "second", (char *)NULL);
    perror("execl");
    return 1;
  }
  if (strcmp(mode, "second") == 0) {
    put("second.dat", O_TRUNC, 300);
    printf("second image wrote 300 B\n");
    return 0;
  }
  if (strcmp(mode, "execfail") == 0) {
    put("first.dat", O_TRUNC, 100);
    int r = execl("/nonexistent/sio-test-program", "x", (char *)NULL);
    printf("exec returned %d, errno %s\n", r, errno == ENOENT ? "ENOENT" : strerror(errno));
    put("first.dat", O_APPEND, 10);
    return 0;
  }
  if (strcmp(mode, "vfork") == 0) {
    put("parent.dat", O_TRUNC, 10);
    pid_t pid = vfork();
    if (pid == 0) {
      put("child.dat", O_TRUNC, 50);
      _exit(7);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    printf("child exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    put("parent.dat", O_APPEND, 10);
    return 0;
  }
  if (strcmp(mode, "fds") == 0) {
    int n = argc > 2 ? atoi(argv[2]) : 0, last = -1, gaps = 0;
    for (int i = 0; i < n; i++) {
      int fd = open("/dev/null", O_RDONLY);
      if (fd < 0) {
        printf("open %d failed: %s\n", i, strerror(errno));
        return 1;
      }
      if (last >= 0 && fd != last + 1)
        printf("descriptor %d after %d\n", fd, last), gaps++;
      last = fd;
    }
    printf("%d descriptors, last %d, %d gaps\n", n, last, gaps);
    return 0;
  }
  fprintf(stderr, "usage: exec_io exec|execfail|vfork|fds N\n");
  return 2;
}
