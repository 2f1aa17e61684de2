/* Output calls that fail: every stdio output form on a stream opened for
 * reading (EBADF, nothing written), and dprintf on a read-only descriptor.
 * glibc's fputs, fputws and dprintf succeed on an empty text, so a replay
 * that repeated "0 bytes" would succeed where the application failed.
 * Prints what each call returned. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <wchar.h>

static const char *err(int failed) { return failed ? (errno == EBADF ? "EBADF" : "other") : "ok"; }

int main(void) {
  FILE *make = fopen("input.txt", "w");
  if (!make || fputs("0123456789\n", make) < 0 || fclose(make) != 0)
    return 3;
  FILE *in = fopen("input.txt", "r");
  if (!in)
    return 3;
  printf("fputc=%s", err(fputc('x', in) == EOF));
  printf(" fputs=%s", err(fputs("hello", in) == EOF));
  printf(" fprintf=%s", err(fprintf(in, "v=%d", 42) < 0));
  printf(" fwrite=%s", err(fwrite("abcd", 1, 4, in) != 4));
  clearerr(in);
  printf(" fgets=%s", err(fgets((char[16]){0}, 16, in) == NULL));
  fclose(in);
  FILE *wide = fopen("input.txt", "r");
  printf(" fputws=%s", err(!wide || fputws(L"wide", wide) < 0));
  fclose(wide);
  int fd = open("input.txt", O_RDONLY);
  printf(" dprintf=%s\n", err(dprintf(fd, "n=%d", 7) < 0));
  close(fd);
  return 0;
}
