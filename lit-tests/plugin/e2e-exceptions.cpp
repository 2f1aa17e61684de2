// End to end: exceptions that leave a loop emit its exit marker, with and
// without a landing pad in the function; a handler inside the loop does not.
// REQUIRES: plugin
// RUN: %clang -O1 -I%srcroot/runtime/include -c %S/Inputs/marker_rt.c -o %t.rt.o
// RUN: %clangxx -fplugin=%siotrace -gline-tables-only -O0 %s %t.rt.o -o %t.O0
// RUN: %t.O0 | FileCheck %s
// RUN: %clangxx -fplugin=%siotrace -gline-tables-only -O2 %s %t.rt.o -o %t.O2
// RUN: %t.O2 | FileCheck %s
// RUN: %clangxx -fplugin=%siotrace -O3 %s %t.rt.o -o %t.O3
// RUN: %t.O3 | FileCheck %s
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

static int fd;
static char buf[1];

__attribute__((noinline)) void maybe_throw(int i) {
  if (i == 1)
    throw std::runtime_error("stop");
}

void no_pad(int n) {
  for (int i = 0; i < n; i++) {
    write(fd, buf, 1);
    maybe_throw(i);
  }
}

void with_pad(int n) {
  for (int i = 0; i < n; i++) {
    std::string s(40, 'x');
    write(fd, buf, 1);
    maybe_throw(i);
  }
}

void handled(int n) {
  for (int i = 0; i < n; i++) {
    try {
      maybe_throw(i);
    } catch (const std::exception &) {
      write(fd, buf, 1);
    }
  }
}

int main() {
  fd = open("/dev/null", O_WRONLY);
  try {
    no_pad(5);
  } catch (...) {
    write(fd, buf, 1);
  }
  try {
    with_pad(5);
  } catch (...) {
  }
  handled(3);
  return 0;
}

// CHECK:      site open main:
// CHECK-NEXT: enter _Z6no_padi:[[#NP:]]
// CHECK-NEXT: iter _Z6no_padi:[[#NP]]
// CHECK-NEXT: site write _Z6no_padi:[[#NP+1]]:5 loop=_Z6no_padi:[[#NP]]
// CHECK-NEXT: iter _Z6no_padi:[[#NP]]
// CHECK-NEXT: site write _Z6no_padi:[[#NP+1]]:5 loop=_Z6no_padi:[[#NP]]
// CHECK-NEXT: exit _Z6no_padi:[[#NP]]
// CHECK-NEXT: site write main:[[#]]:5 loop=none
// CHECK-NEXT: enter _Z8with_padi:[[#WP:]]
// CHECK-NEXT: iter _Z8with_padi:[[#WP]]
// CHECK-NEXT: site write _Z8with_padi:[[#WP+2]]:5 loop=_Z8with_padi:[[#WP]]
// CHECK-NEXT: iter _Z8with_padi:[[#WP]]
// CHECK-NEXT: site write _Z8with_padi:[[#WP+2]]:5 loop=_Z8with_padi:[[#WP]]
// CHECK-NEXT: exit _Z8with_padi:[[#WP]]
// CHECK-NEXT: enter _Z7handledi:[[#H:]]
// CHECK-NEXT: iter _Z7handledi:[[#H]]
// CHECK-NEXT: iter _Z7handledi:[[#H]]
// CHECK-NEXT: site write _Z7handledi:[[#H+4]]:7 loop=_Z7handledi:[[#H]]
// CHECK-NEXT: iter _Z7handledi:[[#H]]
// CHECK-NEXT: exit _Z7handledi:[[#H]]
// CHECK-NOT:  {{.}}
