// An early return from inside the loop: the return block is outside the loop,
// so the edge to it carries the exit marker.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

int f(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    if (write(fd, b + i, 1) < 0)
      return i;
  }
  return n;
}

// CHECK-LABEL: define {{.*}}i32 @f(
// O0:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O0:      call void @__sio_loop_iter(i64 [[L]])
// O0:      call void @__sio_site(
// O0-NEXT: call i64 @write(
// O0-NEXT: icmp
// O0-NEXT: br i1 %{{[0-9]+}}, label %[[RET:[0-9]+]], label
// O0:      [[RET]]:
// O0-NEXT: call void @__sio_loop_exit(i64 [[L]])
// O0:      br label %[[RETURN:[0-9]+]]
// O0:      call void @__sio_loop_exit(i64 [[L]])
// O0:      br label %[[RETURN]]
// O0:      [[RETURN]]:
// O0-NOT:  call void @__sio_loop
// O0:      ret i32

// O2:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O2-DAG:  call void @__sio_loop_iter(i64 [[L]])
// O2-DAG:  call void @__sio_loop_exit(i64 [[L]])
// O2:      ret i32
