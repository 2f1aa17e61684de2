/* REQUIRES: runtime, sio-signature
 * The files table has one entry "out.<i0>"; each iteration opens another
 * file: one signature per file (all alike), not one stream of stride 0.
 * RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cc-sig -O1 %s -o %t.exe
 * RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %t.exe
 * RUN: %sio-signature %t.json | FileCheck %s
 * RUN: %sio-signature --format json %t.json | FileCheck %s --check-prefix=JSON
 */
/* Issue 31: 16 different files, each written once (4096 bytes at 0). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static char buf[4096];

int main(void) {
  for (int i = 0; i < 16; i++) {
    char name[64];
    snprintf(name, sizeof name, "out.%d", i);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
      return 1;
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
      return 1;
    close(fd);
  }
  return 0;
}

// CHECK:      # file f0 "out.<i0>" (16 files alike, each), ranks 0, write, 1 access, 4096 bytes
// CHECK-NEXT: {WRITE, 0, 1, ([0, 4096, 0]), 1}
// CHECK-NEXT: {Write, <no spatial pattern>, <single occurrence>, <fixed size, small>, <no temporal pattern>}
// CHECK-NOT:  # file
// JSON:       "file_instances": 16,
