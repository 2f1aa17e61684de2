// Nothing to instrument: no markers, no tables, no constructor.
// REQUIRES: plugin
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefix=CHECK
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O2 -S -emit-llvm -o - %s 2>/dev/null | FileCheck %s --check-prefix=CHECK
#include <stdio.h>

int sum(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s;
}
// printf is I/O (stdio, docs/runtime.md); formatting into memory is not.
void show(char *buf, int n) {
  for (int i = 0; i < n; i++)
    snprintf(buf, 16, "%d\n", i);
}

// CHECK-NOT: __sio
// CHECK-NOT: sio_
// CHECK-NOT: sio.module_ctor
