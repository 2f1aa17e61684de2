// I/O through same-module helpers (two levels deep) makes a loop
// instrumented; a loop calling a helper without I/O is not.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefix=CHECK
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefix=CHECK
#include <unistd.h>

static int fd;
__attribute__((noinline)) void leaf(const char *b) { write(fd, b, 1); }
__attribute__((noinline)) void middle(const char *b) { leaf(b); }
__attribute__((noinline)) int pure(int x) { return x * 3; }

void io_loop(const char *b, int n) {
  for (int i = 0; i < n; i++)
    middle(b);
}

int quiet_loop(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += pure(i);
  return s;
}

// CHECK-LABEL: define {{.*}}void @leaf(
// CHECK:       call void @__sio_site(
// CHECK-NEXT:  call i64 @write(
// CHECK-LABEL: define {{.*}}void @middle(
// CHECK-NOT:   call void @__sio
// CHECK-LABEL: define {{.*}}void @io_loop(
// CHECK:       call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// CHECK-DAG:   call void @__sio_loop_iter(i64 [[L]])
// CHECK-DAG:   call void @__sio_loop_exit(i64 [[L]])
// CHECK-LABEL: define {{.*}}i32 @quiet_loop(
// CHECK-NOT:   call void @__sio
// CHECK:       ret i32
