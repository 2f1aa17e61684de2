// A do-while loop: bottom-tested, so the header is the body.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

void f(int fd, const char *b, int n) {
  int i = 0;
  do {
    write(fd, b, 1);
  } while (++i < n);
}

// CHECK-LABEL: define {{.*}}void @f(
// CHECK:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O0-NEXT:    br label %[[BODY:[0-9]+]]
// O0:         [[BODY]]:
// O0-NEXT:    call void @__sio_loop_iter(i64 [[L]])
// O2:         call void @__sio_loop_iter(i64 [[L]])
// CHECK:      call void @__sio_site(i64 [[S:-?[0-9]+]])
// CHECK-NEXT: call i64 @write(
// CHECK-NOT:  call void @__sio_loop_iter
// CHECK:      call void @__sio_loop_exit(i64 [[L]])
// CHECK-NOT:  call void @__sio_loop
// CHECK:      ret void
