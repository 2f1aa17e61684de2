// Multiple exits (break, the condition) and continue: one exit marker per
// exit edge, one iteration marker per body.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

void f(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    if (b[i] == 'c')
      continue;
    if (b[i] == 'b')
      break;
    write(fd, b + i, 1);
  }
}

// CHECK-LABEL: define {{.*}}void @f(
// O0:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O0-NEXT: br label %[[HDR:[0-9]+]]
// O0:      [[HDR]]:
// O0-NOT:  @__sio_loop
// O0:      br i1 %{{[0-9]+}}, label %[[BODY:[0-9]+]], label %[[CONDEXIT:[0-9]+]]
// O0:      [[CONDEXIT]]:
// O0-NEXT: call void @__sio_loop_exit(i64 [[L]])
// O0-NEXT: br label %[[END:[0-9]+]]
// The iteration marker precedes the continue and break tests.
// O0:      [[BODY]]:
// O0-NEXT: call void @__sio_loop_iter(i64 [[L]])
// O0-NOT:  call void @__sio_loop_iter
// O0:      call void @__sio_loop_exit(i64 [[L]])
// O0-NEXT: br label %[[END]]
// O0:      call void @__sio_site(
// O0-NEXT: call i64 @write(
// O0-NOT:  call void @__sio_loop
// O0:      [[END]]:
// O0-NEXT: ret void

// O2:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O2-DAG:  call void @__sio_loop_iter(i64 [[L]])
// O2-DAG:  call void @__sio_site(
// O2-DAG:  call void @__sio_loop_exit(i64 [[L]])
// O2:      ret void
