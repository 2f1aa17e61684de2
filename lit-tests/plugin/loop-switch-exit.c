// A switch whose cases leave the loop through one shared edge (repeated
// successor): one exit marker on that edge, not one per case.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s
#include <unistd.h>

int f(int fd, const char *b, int n) {
  int i = 0;
  for (;;) {
    switch (b[i]) {
    case 'a':
    case 'b':
      goto out;
    default:
      write(fd, b + i, 1);
    }
    i++;
  }
out:
  return i;
}

// CHECK-LABEL: define {{.*}}i32 @f(
// CHECK:       call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// CHECK:       call void @__sio_loop_exit(i64 [[L]])
// CHECK-NOT:   call void @__sio_loop_exit(
// CHECK:       ret i32
