/* Data sio sees moving but cannot count, one case per argv[1]: the trace
 * must then say `exact: no` with the reason (exactness.test). `none` and
 * `excluded` must stay exact; `read` reads a file back through every stdio
 * input form (the bytes read must be the file's size). */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

static int make(const char *name, int bytes) {
  int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
  char buf[256];
  memset(buf, 'd', sizeof buf);
  if (write(fd, buf, (size_t)bytes) != bytes)
    exit(3);
  return fd;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "none";
  if (strcmp(mode, "none") == 0) {
    close(make("plain.dat", 100));
  } else if (strcmp(mode, "mmap") == 0) {
    int fd = make("mapped.dat", 100);
    char *p = mmap(NULL, 100, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
      return 3;
    memcpy(p, "written through memory", 22);
    munmap(p, 100);
    close(fd);
  } else if (strcmp(mode, "sendfile") == 0) {
    int in = make("src.dat", 100), out = make("dst.dat", 0);
    off_t off = 0;
    if (sendfile(out, in, &off, 100) != 100)
      return 3;
    close(in);
    close(out);
  } else if (strcmp(mode, "copy") == 0) {
    int in = make("src.dat", 100), out = make("dst.dat", 0);
    off64_t off = 0;
    if (copy_file_range(in, &off, out, NULL, 100, 0) < 0)
      return 3;
    close(in);
    close(out);
  } else if (strcmp(mode, "aio") == 0) {
    int fd = make("aio.dat", 0);
    static char data[64] = "asynchronous";
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = data;
    cb.aio_nbytes = sizeof data;
    if (aio_write(&cb) != 0)
      return 3;
    while (aio_error(&cb) == EINPROGRESS)
      usleep(1000);
    close(fd);
  } else if (strcmp(mode, "inherited") == 0) {
    /* Descriptor 3 was opened by the shell, before the runtime. */
    if (write(3, "before the runtime\n", 19) != 19)
      return 3;
    close(make("plain.dat", 10)); /* a process with no recorded call writes no trace */
  } else if (strcmp(mode, "reused") == 0) {
    /* A write on a closed descriptor fails (EBADF); fopen then gets that
     * number, and bytes written through it bypass the stream: the trace
     * misses them whatever the failed write left behind. */
    int fd = make("plain.dat", 10);
    close(fd);
    if (write(fd, "x", 1) != -1 || errno != EBADF)
      return 3;
    FILE *f = fopen("reused.dat", "w");
    if (f == NULL || fileno(f) != fd)
      return 5;
    if (write(fileno(f), "unrecorded", 10) != 10)
      return 3;
    fclose(f);
  } else if (strcmp(mode, "ungetc") == 0) {
    /* ungetc of a character other than the one read moves the read pointer
     * into glibc's pushback area: no byte moved without a call. */
    close(make("pushback.dat", 100));
    FILE *f = fopen("pushback.dat", "r");
    int c1 = fgetc(f);
    /* glibc mallocs the pushback area (128 bytes): with free chunks of that
     * size used up it lies above the buffer, where the old check took its
     * read pointer for bytes read without a call. */
    static void *drain[64];
    for (int i = 0; i < 64; ++i)
      drain[i] = malloc(128);
    if (ungetc('Z', f) != 'Z')
      return 3;
    int c2 = fgetc(f), c3 = fgetc(f);
    char rest[200];
    size_t n = fread(rest, 1, sizeof rest, f);
    fclose(f);
    return c1 == 'd' && c2 == 'Z' && c3 == 'd' && n == 98 ? 0 : 4;
  } else if (strcmp(mode, "excluded") == 0) {
    /* A file under SIO_EXCLUDE_PATHS: not recorded, on purpose. */
    FILE *f = fopen(argv[2], "w");
    fprintf(f, "excluded %d\n", 1);
    fclose(f);
    close(make("plain.dat", 10));
  } else if (strcmp(mode, "streamfd") == 0) {
    /* The descriptor under a stream closed behind its back: the stream's
       buffered bytes are lost and fclose fails (EBADF). */
    FILE *f = fopen("streamfd.dat", "w");
    fputs("buffered", f);
    close(fileno(f));
    return fclose(f) == EOF && errno == EBADF ? 0 : 4;
  } else if (strcmp(mode, "nul") == 0) {
    /* fgets of a line holding a NUL byte consumes the whole line (6 bytes),
       more than the string's length (2): 9 bytes in all. */
    FILE *f = fopen("nul.txt", "w");
    fwrite("ab\0cd\nxy\n", 1, 9, f);
    fclose(f);
    f = fopen("nul.txt", "r");
    char buf[16];
    int lines = 0;
    while (fgets(buf, sizeof buf, f))
      ++lines;
    fclose(f);
    return lines == 2 ? 0 : 4;
  } else if (strcmp(mode, "lines") == 0) {
    /* fgets over lines of 0 to 299 bytes, some holding NUL bytes, and a few
       of 5000 (longer than the stream's buffer), with n from 1 to 600 and an
       ungetc now and then: the line is in the buffer (the read pointer's
       advance), crosses its end (the stream position), or starts in the
       pushback area. Prints the fgets calls and the bytes they consumed,
       which the trace must count the same. */
    unsigned x = 12345;
#define NEXT() (x = x * 1103515245u + 12345u, (x >> 8) & 0xffff)
    FILE *f = fopen("lines.txt", "w");
    for (int i = 0; i < 3000; ++i) {
      int len = i % 700 == 350 ? 5000 : (int)(NEXT() % 300);
      for (int j = 0; j < len; ++j)
        fputc(NEXT() % 50 == 0 ? 0 : 'a' + j % 26, f);
      fputc('\n', f);
    }
    fclose(f);
    f = fopen("lines.txt", "r");
    char buf[600];
    long calls = 0, bytes = 0;
    for (;;) {
      if (NEXT() % 40 == 0) {
        int c = fgetc(f);
        if (c == EOF)
          break;
        ungetc(c, f);
      }
      int n = 1 + (int)(NEXT() % 600);
      long before = ftell(f);
      char *r = fgets(buf, n, f);
      ++calls;
      bytes += ftell(f) - before;
      if (!r && feof(f))
        break;
    }
    fclose(f);
    printf("expect: fgets %ld %ld\n", calls, bytes);
#undef NEXT
  } else if (strcmp(mode, "read") == 0) {
    /* 5 lines of 10 bytes, then 7 bytes without a line end: 57 bytes. */
    FILE *f = fopen("input.txt", "w");
    for (int i = 0; i < 5; ++i)
      fprintf(f, "line %04d\n", i);
    fputs("tail 42", f);
    fclose(f);
    f = fopen("input.txt", "r");
    char buf[64], *line = NULL;
    size_t cap = 0;
    int c1 = fgetc(f), c2 = getc(f); /* "li" */
    if (!fgets(buf, sizeof buf, f))  /* "ne 0000\n" */
      return 3;
    getline(&line, &cap, f);          /* "line 0001\n" */
    getdelim(&line, &cap, ' ', f);    /* "line " */
    int v = 0;
    if (fscanf(f, "%d", &v) != 1)     /* "0002" */
      return 3;
    if (fread(buf, 1, 11, f) != 11)   /* "\nline 0003\n" */
      return 3;
    while (fgets(buf, sizeof buf, f)) /* "line 0004\n", "tail 42", then end of file */
      ;
    fgetc(f); /* end of file: no error */
    free(line);
    fclose(f);
    return c1 == 'l' && c2 == 'i' && v == 2 ? 0 : 4;
  }
  return 0;
}
