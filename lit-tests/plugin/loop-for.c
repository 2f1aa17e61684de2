// A for loop: enter before the header, iteration at the start of the body
// (not in the header, which runs n+1 times), exit on the exit edge; the site
// id immediately before the I/O call; one table entry each, registered by a
// module constructor.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

void f(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++)
    write(fd, b, 1);
}

// CHECK: @.sio.str = private unnamed_addr constant {{.*}} c"loop-for.c\00"
// CHECK: @.sio.str.1 = private unnamed_addr constant {{.*}} c"f\00"
// CHECK: @.sio.str.2 = private unnamed_addr constant {{.*}} c"write\00"
// CHECK: @__sio_site_table = private constant [1 x {{.*}}] [{{.*}} { i64 [[S:-?[0-9]+]], i64 [[L:-?[0-9]+]], ptr @.sio.str, ptr @.sio.str.1, ptr @.sio.str.2, i32 12, i32 5 }], section "sio_sites", align 8
// CHECK: @__sio_loop_table = private constant [1 x {{.*}}] [{{.*}} { i64 [[L]], i64 0, ptr @.sio.str, ptr @.sio.str.1, i32 11, i32 3 }], section "sio_loops", align 8
// CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @sio.module_ctor, ptr null }]

// CHECK-LABEL: define {{.*}}void @f(
// O0:      call void @__sio_loop_enter(i64 [[L]])
// O0-NEXT: br label %[[HDR:[0-9]+]]
// O0:      [[HDR]]:
// O0-NOT:  @__sio
// O0:      br i1 %{{[0-9]+}}, label %[[BODY:[0-9]+]], label %[[END:[0-9]+]]
// O0:      [[BODY]]:
// O0-NEXT: call void @__sio_loop_iter(i64 [[L]])
// O0-NOT:  br
// O0:      call void @__sio_site(i64 [[S]])
// O0-NEXT: call i64 @write(
// O0:      [[END]]:
// O0-NEXT: call void @__sio_loop_exit(i64 [[L]])
// O0-NEXT: ret void

// After rotation the markers are still one per event.
// O2:      call void @__sio_loop_enter(i64 [[L]])
// O2:      call void @__sio_loop_exit(i64 [[L]])
// O2:      call void @__sio_loop_iter(i64 [[L]])
// O2-NEXT: call void @__sio_site(i64 [[S]])
// O2-NEXT: call i64 @write(
// O2-NOT:  call void @__sio_loop

// CHECK-LABEL: define internal void @sio.module_ctor()
// CHECK-NEXT:  call void @__sio_register_tables(i32 1, ptr {{.*}}@__sio_site_table, ptr {{.*}}@__sio_site_table, {{.*}}, ptr {{.*}}@__sio_loop_table, ptr {{.*}}@__sio_loop_table, {{.*}})
