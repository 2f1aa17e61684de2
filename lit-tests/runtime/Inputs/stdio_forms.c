/* Every stdio and POSIX output form sio intercepts, each writing its own
 * file `<form>.out` once from offset 0, so that the bytes the trace records
 * for a file can be checked against its size on disk (check_disk_bytes.py).
 * Several calls are written the way compilers rewrite them at -O2: clang and
 * gcc turn fwrite("x", 1, 1, f) into fputc, fprintf(f, "const") into fwrite,
 * fprintf(f, "%s", s) into fputs, printf("x\n") into puts, printf("c") into
 * putchar; with -D_FORTIFY_SOURCE=2, gcc calls __fprintf_chk/__printf_chk.
 * Group `main` (argv[1]) has the forms that always reach the runtime;
 * `unlocked` the *_unlocked ones that glibc's <stdio.h> inlines at -O1 and
 * above (no call: the trace must then say it is not exact). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <wchar.h>

static FILE *out(const char *name) {
  char path[64];
  snprintf(path, sizeof path, "%s.out", name);
  return fopen(path, "w");
}

static int outFd(const char *name) {
  char path[64];
  snprintf(path, sizeof path, "%s.out", name);
  return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

static void myvfprintf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
}

static void myvprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
}

static void myvdprintf(int fd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdprintf(fd, fmt, ap);
  va_end(ap);
}

static void myvfwprintf(FILE *f, const wchar_t *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfwprintf(f, fmt, ap);
  va_end(ap);
}

static void groupMain(int n) {
  const char *word = n > 1 ? "many" : "one";
  FILE *f;
  int fd;

  f = out("fwrite");
  fwrite("abcdef", 1, 6, f);
  fwrite("x", 1, 1, f); /* fputc at -O2 */
  fclose(f);

  f = out("fputc");
  fputc('a', f);
  putc('b', f);
  fclose(f);

  f = out("fputs");
  fputs("hello world\n", f);
  fputs("x", f); /* fputc at -O2 */
  fputs(word, f);
  fclose(f);

  f = out("fprintf");
  fprintf(f, "%d-%s\n", 42 * n, word);
  fprintf(f, "constant text\n"); /* fwrite at -O2 */
  fprintf(f, "%s", word);        /* fputs at -O2 */
  fprintf(f, "%c", 'z');         /* fputc at -O2 */
  myvfprintf(f, "%05d|%s\n", n, word);
  fclose(f);

  fd = outFd("dprintf");
  dprintf(fd, "%d %s\n", 12345 * n, word);
  myvdprintf(fd, "[%s]\n", word);
  close(fd);

  fd = outFd("write");
  write(fd, "abc", 3);
  struct iovec iov[2] = {{(void *)"de", 2}, {(void *)"fgh", 3}};
  writev(fd, iov, 2);
  pwrite(fd, "ij", 2, 8);
  close(fd);

  f = out("wide");
  fputwc(L'a', f);
  putwc(L'b', f);
  fputws(L"wide\n", f);
  fwprintf(f, L"%d %ls\n", 7 * n, L"w");
  myvfwprintf(f, L"<%d>", n);
  fclose(f);

  /* A stream on a descriptor: fclose releases both. */
  fd = outFd("fdopen");
  f = fdopen(fd, "w");
  fprintf(f, "through fdopen %d\n", n);
  fputc('!', f);
  fclose(f);

  /* A stream that changes file. */
  f = out("freopen_a");
  fputs("aaa", f);
  f = freopen("freopen_b.out", "w", f);
  fputs("bbbbb", f);
  fprintf(f, "%d", n);
  fclose(f);

  /* stdout made a file: printf, puts, putchar go to it. */
  if (freopen("stdout.out", "w", stdout)) {
    printf("%d %s\n", n, word);
    printf("just a line\n"); /* puts */
    printf("c");             /* putchar */
    puts(word);
    putchar('\n');
    myvprintf("%x\n", 255 * n);
    fflush(stdout);
  }
}

static void groupUnlocked(int n) {
  FILE *f = out("unlocked");
  fputc_unlocked('a', f);
  putc_unlocked('b', f);
  fputs_unlocked("cd", f);
  fwrite_unlocked("efg", 1, 3, f);
  fprintf(f, "%d", n);
  fclose(f);
}

/* open + fdopen + fclose of many files: each fclose releases the stream's
 * and the descriptor's codes, so the codes stay the same in every iteration. */
static void groupFdLoop(int n) {
  for (int i = 0; i < 300 * n; ++i) {
    char name[32];
    snprintf(name, sizeof name, "fdloop_%d.dat", i);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    FILE *f = fdopen(fd, "w");
    fputs("line\n", f);
    fclose(f);
  }
}

int main(int argc, char **argv) {
  int n = argc > 2 ? argc : 1;
  if (argc > 1 && strcmp(argv[1], "unlocked") == 0)
    groupUnlocked(n);
  else if (argc > 1 && strcmp(argv[1], "fdloop") == 0)
    groupFdLoop(n);
  else
    groupMain(n);
  return 0;
}
