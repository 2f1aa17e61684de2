// End to end: loop conditions that call I/O or combine tests. The iteration
// count is the number of executed bodies; I/O in a condition is reported once
// more than the bodies it guards.
// REQUIRES: plugin
// RUN: %clang -O1 -I%srcroot/runtime/include -c %S/Inputs/marker_rt.c -o %t.rt.o
// RUN: %clang -fplugin=%siotrace -O0 %s %t.rt.o -o %t.O0
// RUN: %t.O0 %t.dat | FileCheck %s
// RUN: %clang -fplugin=%siotrace -O2 %s %t.rt.o -o %t.O2
// RUN: %t.O2 %t.dat | FileCheck %s
#include <fcntl.h>
#include <unistd.h>

static int out;

__attribute__((noinline)) static int ok(int i) { return i < 2; }

void copy(int in) {
  char b[1];
  long n;
  while ((n = read(in, b, 1)) > 0)
    write(out, b, n);
}

void both(int n) {
  for (int i = 0; i < n && ok(i); i++)
    write(out, "x", 1);
}

void mid_exit(int in) {
  char b[1];
  for (;;) {
    if (read(in, b, 1) <= 0)
      break;
    write(out, b, 1);
  }
}

int main(int argc, char **argv) {
  out = open("/dev/null", O_WRONLY);
  int f = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
  write(f, "abc", 3);
  lseek(f, 0, SEEK_SET);
  copy(f);
  both(5);
  lseek(f, 0, SEEK_SET);
  mid_exit(f);
  return 0;
}

// CHECK:      site lseek main:
// copy: 4 reads, 3 bodies
// CHECK-NEXT: enter copy:[[#C:]]
// CHECK-NEXT: site read copy:[[#C]]:15 loop=copy:[[#C]]
// CHECK-NEXT: iter copy:[[#C]]
// CHECK-NEXT: site write copy:[[#C+1]]:5 loop=copy:[[#C]]
// CHECK-NEXT: site read copy:[[#C]]:15 loop=copy:[[#C]]
// CHECK-NEXT: iter copy:[[#C]]
// CHECK-NEXT: site write copy:[[#C+1]]:5 loop=copy:[[#C]]
// CHECK-NEXT: site read copy:[[#C]]:15 loop=copy:[[#C]]
// CHECK-NEXT: iter copy:[[#C]]
// CHECK-NEXT: site write copy:[[#C+1]]:5 loop=copy:[[#C]]
// CHECK-NEXT: site read copy:[[#C]]:15 loop=copy:[[#C]]
// CHECK-NEXT: exit copy:[[#C]]
// both: i < n && ok(i) holds twice
// CHECK-NEXT: enter both:[[#B:]]
// CHECK-NEXT: iter both:[[#B]]
// CHECK-NEXT: site write both:[[#B+1]]:5 loop=both:[[#B]]
// CHECK-NEXT: iter both:[[#B]]
// CHECK-NEXT: site write both:[[#B+1]]:5 loop=both:[[#B]]
// CHECK-NEXT: exit both:[[#B]]
// mid_exit: for (;;) has no condition block; the exit test at the top of the
// body is its condition, so the read precedes each iteration marker.
// CHECK-NEXT: site lseek main:
// CHECK-NEXT: enter mid_exit:[[#M:]]
// CHECK-NEXT: site read mid_exit:[[#M+1]]:9 loop=mid_exit:[[#M]]
// CHECK-NEXT: iter mid_exit:[[#M]]
// CHECK-NEXT: site write mid_exit:[[#M+3]]:5 loop=mid_exit:[[#M]]
// CHECK-NEXT: site read mid_exit:[[#M+1]]:9 loop=mid_exit:[[#M]]
// CHECK-NEXT: iter mid_exit:[[#M]]
// CHECK-NEXT: site write mid_exit:[[#M+3]]:5 loop=mid_exit:[[#M]]
// CHECK-NEXT: site read mid_exit:[[#M+1]]:9 loop=mid_exit:[[#M]]
// CHECK-NEXT: iter mid_exit:[[#M]]
// CHECK-NEXT: site write mid_exit:[[#M+3]]:5 loop=mid_exit:[[#M]]
// CHECK-NEXT: site read mid_exit:[[#M+1]]:9 loop=mid_exit:[[#M]]
// CHECK-NEXT: exit mid_exit:[[#M]]
// CHECK-NOT:  {{.}}
