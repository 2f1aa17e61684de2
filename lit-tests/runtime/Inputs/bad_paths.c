/* Every intercepted call that takes a path, given a path the process cannot
 * read (a small integer, a PROT_NONE page, a name running into one) and
 * arguments the kernel rejects before it reads the path (open with invalid
 * flags, truncate to -1): one line per call with its result and errno, which
 * must be the same traced and untraced. Then a few valid calls on "ok.dat",
 * which the trace must hold. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void show(const char *what, const char *arg, long r) {
  printf("%s(%s)=%ld errno=%s\n", what, arg, r, r == -1 ? strerrorname_np(errno) : "-");
}

/* All path calls on one unreadable (or rejected) path `p`, named `arg`. */
static void all(const char *p, const char *arg) {
  struct stat st;
  struct statx stx;
  errno = 0;
  show("open", arg, open(p, O_RDONLY));
  show("open-creat", arg, open(p, O_CREAT | O_WRONLY, 0600));
  show("open-badflags", arg, open(p, O_TMPFILE | O_RDONLY, 0600));
  show("open64", arg, open64(p, O_RDONLY));
  show("openat", arg, openat(AT_FDCWD, p, O_RDONLY));
  show("creat", arg, creat(p, 0600));
  show("stat", arg, stat(p, &st));
  show("lstat", arg, lstat(p, &st));
  show("fstatat", arg, fstatat(AT_FDCWD, p, &st, 0));
  show("statx", arg, statx(AT_FDCWD, p, 0, STATX_SIZE, &stx));
  show("access", arg, access(p, R_OK));
  show("faccessat", arg, faccessat(AT_FDCWD, p, R_OK, 0));
  show("unlink", arg, unlink(p));
  show("unlinkat", arg, unlinkat(AT_FDCWD, p, 0));
  show("mkdir", arg, mkdir(p, 0700));
  show("mkdirat", arg, mkdirat(AT_FDCWD, p, 0700));
  show("rmdir", arg, rmdir(p));
  show("rename-from", arg, rename(p, "ok.dat.renamed"));
  show("rename-to", arg, rename("ok.dat", p));
  show("renameat", arg, renameat(AT_FDCWD, p, AT_FDCWD, "x"));
  show("truncate", arg, truncate(p, 10));
  show("truncate-neg", arg, truncate(p, -1));
  show("truncate64", arg, truncate64(p, 10));
  /* (opendir is left out: glibc's reads the name's first byte itself.) */
  FILE *f = fopen(p, "r");
  show("fopen", arg, f ? 0 : -1);
}

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (two == MAP_FAILED)
    return 2;
  mprotect(two + page, page, PROT_NONE);
  /* "ok.da" at the very end of the readable page: the name runs into the
   * PROT_NONE page before its NUL. */
  memcpy(two + page - 5, "ok.da", 5);
  int fd = open("ok.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  write(fd, "abc", 3);
  close(fd);
  all((const char *)1, "1");
  all(two + page, "prot_none");
  all(two + page - 5, "unterminated");
  /* Valid calls, recorded: */
  struct stat st;
  show("stat", "ok.dat", stat("ok.dat", &st));
  show("open", "missing", open("missing.dat", O_RDONLY));
  show("truncate-neg", "ok.dat", truncate("ok.dat", -1));
  show("open-badflags", "ok.dat", open("ok.dat", O_TMPFILE | O_RDONLY, 0600));
  show("unlink", "ok.dat", unlink("ok.dat"));
  return 0;
}
