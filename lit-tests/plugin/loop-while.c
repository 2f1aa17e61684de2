// A while loop whose condition calls I/O: the read in the header belongs to
// the condition (n+1 calls), the iteration marker to the body (n).
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

void copy(int in, int out, char *b) {
  long n;
  while ((n = read(in, b, 64)) > 0)
    write(out, b, n);
}

// CHECK-LABEL: define {{.*}}void @copy(
// O0:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O0-NEXT: br label %[[HDR:[0-9]+]]
// O0:      [[HDR]]:
// O0-NOT:  @__sio_loop
// O0:      call void @__sio_site(i64 [[R:-?[0-9]+]])
// O0-NEXT: call i64 @read(
// O0:      br i1 %{{[0-9]+}}, label %[[BODY:[0-9]+]], label %[[END:[0-9]+]]
// O0:      [[BODY]]:
// O0-NEXT: call void @__sio_loop_iter(i64 [[L]])
// O0:      call void @__sio_site(i64 [[W:-?[0-9]+]])
// O0-NEXT: call i64 @write(
// O0:      [[END]]:
// O0-NEXT: call void @__sio_loop_exit(i64 [[L]])

// O2:      call void @__sio_loop_enter(i64 [[L:-?[0-9]+]])
// O2-NEXT: call void @__sio_site(i64 [[R:-?[0-9]+]])
// O2-NEXT: call i64 @read(
// O2:      call void @__sio_loop_iter(i64 [[L]])
// O2-NEXT: call void @__sio_site(i64 [[W:-?[0-9]+]])
// O2-NEXT: call i64 @write(
// O2-NEXT: call void @__sio_site(i64 [[R]])
// O2-NEXT: call i64 @read(
// O2:      call void @__sio_loop_exit(i64 [[L]])
// O2-NOT:  call void @__sio_loop
