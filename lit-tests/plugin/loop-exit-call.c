// exit() inside a loop: the block calling it lies outside the loop, so the
// exit marker runs before exit().
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <stdlib.h>
#include <unistd.h>

void f(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    if (write(fd, b, 1) < 0)
      exit(1);
  }
}

// CHECK-LABEL: define {{.*}}void @f(
// CHECK:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O0:         call void @__sio_loop_exit(i64 [[L]])
// O0-NEXT:    call void @exit(i32 noundef 1)
// O0:         call void @__sio_loop_exit(i64 [[L]])
// O0-NEXT:    ret void
// O2:         call void @__sio_loop_exit(i64 [[L]])
// O2:         call void @__sio_loop_exit(i64 [[L]])
// O2-NEXT:    call void @exit(i32 noundef 1)
