// Nested loops: both levels are instrumented, the inner one records its
// parent; the loop without I/O between them is not.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

void f(int fd, const char *b, int n, int m) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      pwrite(fd, b, 1, (long)i * m + j);
  }
}

// The inner loop's table entry names the outer loop as parent.
// CHECK: @__sio_loop_table = private constant [2 x {{.*}}] [{{.*}} { i64 [[OUT:-?[0-9]+]], i64 0, {{.*}}, i32 9, i32 3 }, {{.*}} { i64 [[IN:-?[0-9]+]], i64 [[OUT]], {{.*}}, i32 10, i32 5 }], section "sio_loops"

// CHECK-LABEL: define {{.*}}void @f(
// O0:      call void @__sio_loop_enter(i64 [[OUT]])
// O0:      call void @__sio_loop_iter(i64 [[OUT]])
// O0:      call void @__sio_loop_enter(i64 [[IN]])
// O0:      call void @__sio_loop_iter(i64 [[IN]])
// O0:      call void @__sio_site(
// O0-NEXT: call i64 @pwrite(
// O0:      call void @__sio_loop_exit(i64 [[IN]])
// O0:      call void @__sio_loop_exit(i64 [[OUT]])

// O2-DAG:  call void @__sio_loop_enter(i64 [[OUT]])
// O2-DAG:  call void @__sio_loop_iter(i64 [[OUT]])
// O2-DAG:  call void @__sio_loop_enter(i64 [[IN]])
// O2-DAG:  call void @__sio_loop_iter(i64 [[IN]])
// O2-DAG:  call void @__sio_loop_exit(i64 [[IN]])
// O2-DAG:  call void @__sio_loop_exit(i64 [[OUT]])
// O2:      ret void
