// Exceptions leaving a loop emit the exit marker: a may-throw call without a
// landing pad becomes an invoke whose cleanup pad emits the exit markers and
// resumes; an existing landing pad outside the loop gets them on the unwind
// path; a handler inside the loop does not.
// REQUIRES: plugin
// RUN: %clangxx -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clangxx -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,O2
#include <unistd.h>

void may_throw(int);
struct Guard {
  ~Guard();
};

void plain(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    write(fd, b, 1);
    may_throw(i);
  }
}

void raii(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    Guard g;
    write(fd, b, 1);
    may_throw(i);
  }
}

void shared(int fd, const char *b, int n) {
  Guard g;
  may_throw(-1);
  for (int i = 0; i < n; i++) {
    write(fd, b, 1);
    may_throw(i);
  }
}

void caught(int fd, const char *b, int n) {
  for (int i = 0; i < n; i++) {
    try {
      may_throw(i);
    } catch (...) {
      write(fd, b, 1);
    }
  }
}

// CHECK-LABEL: define {{.*}}void @_Z5plainiPKci(
// CHECK-SAME:  personality ptr @__gxx_personality_v0
// CHECK:       call void @__sio_loop_enter(i64 [[P:-?[0-9]+]])
// O0:          invoke i64 @write(
// O0-NEXT:     to label %{{[0-9]+}} unwind label %[[PAD:[0-9]+]]
// CHECK:       invoke void @_Z9may_throwi(
// O0-NEXT:     to label %{{[0-9]+}} unwind label %[[PAD]]
// O2-NEXT:     to label %{{[0-9]+}} unwind label %[[PAD:[0-9]+]]
// CHECK:       [[PAD]]:
// CHECK-NEXT:  landingpad { ptr, i32 }
// CHECK-NEXT:  cleanup
// CHECK-NEXT:  call void @__sio_loop_exit(i64 [[P]])
// CHECK-NEXT:  resume

// CHECK-LABEL: define {{.*}}void @_Z4raiiiPKci(
// CHECK:       call void @__sio_loop_enter(i64 [[R:-?[0-9]+]])
// CHECK:       invoke void @_Z9may_throwi(
// CHECK-NEXT:  to label %{{[0-9]+}} unwind label %[[LP:[0-9]+]]
// CHECK:       [[LP]]:
// CHECK-NEXT:  landingpad { ptr, i32 }
// CHECK-NEXT:  cleanup
// CHECK-NEXT:  call void @__sio_loop_exit(i64 [[R]])

// A landing pad shared by invokes inside and outside the loop is split: only
// the loop's invokes reach the exit marker.
// CHECK-LABEL: define {{.*}}void @_Z6sharediPKci(
// CHECK:       invoke void @_Z9may_throwi(i32 noundef -1)
// CHECK-NEXT:  to label %{{[0-9]+}} unwind label %[[OUTSIDE:[0-9]+]]
// O0:          call void @__sio_loop_enter(i64 [[SH:-?[0-9]+]])
// O0:          invoke void @_Z9may_throwi(
// O0-NEXT:     to label %{{[0-9]+}} unwind label %[[INSIDE:[0-9]+]]
// O0:          [[INSIDE]]:
// O0-NEXT:     landingpad { ptr, i32 }
// O0-NEXT:     cleanup
// O0-NEXT:     call void @__sio_loop_exit(i64 [[SH]])
// O0:          [[OUTSIDE]]:
// O0-NEXT:     landingpad { ptr, i32 }
// O0-NEXT:     cleanup
// O0-NOT:      call void @__sio_loop_exit
// O0:          phi { ptr, i32 }
// O2:          [[OUTSIDE]]:
// O2-NEXT:     landingpad { ptr, i32 }
// O2-NEXT:     cleanup
// O2-NOT:      call void @__sio_loop_exit
// O2:          invoke void @_Z9may_throwi(
// O2-NEXT:     to label %{{[0-9]+}} unwind label %[[INSIDE:[0-9]+]]
// O2:          [[INSIDE]]:
// O2-NEXT:     landingpad { ptr, i32 }
// O2-NEXT:     cleanup
// O2-NEXT:     call void @__sio_loop_exit(
// O2:          phi { ptr, i32 }

// The handler is inside the loop: no exit marker on that unwind edge.
// CHECK-LABEL: define {{.*}}void @_Z6caughtiPKci(
// CHECK:       call void @__sio_loop_enter(i64 [[C:-?[0-9]+]])
// CHECK:       invoke void @_Z9may_throwi(
// CHECK-NEXT:  to label %{{[0-9]+}} unwind label %[[H:[0-9]+]]
// CHECK:       [[H]]:
// CHECK-NEXT:  landingpad { ptr, i32 }
// CHECK-NEXT:  catch ptr null
// CHECK-NOT:   call void @__sio_loop_exit
// CHECK:       call ptr @__cxa_begin_catch(
