// End to end: the marker sequence of every loop shape is exact at -O0, -O2
// and -O3 (markers are inserted at pipeline start, before inlining, rotation
// and unrolling, as opaque calls), with every source-location mode:
// location tracking (-Rpass), -gline-tables-only, and none (the frontend's
// AST locations).
// REQUIRES: plugin
// RUN: %clang -O1 -I%srcroot/runtime/include -c %S/Inputs/marker_rt.c -o %t.rt.o
// RUN: %clang -fplugin=%siotrace -Rpass=siotrace -O0 %s %t.rt.o -o %t.O0 2>/dev/null
// RUN: %t.O0 | FileCheck %s
// RUN: %clang -fplugin=%siotrace -gline-tables-only -O2 %s %t.rt.o -o %t.O2
// RUN: %t.O2 | FileCheck %s
// RUN: %clang -fplugin=%siotrace -O3 %s %t.rt.o -o %t.O3
// RUN: %t.O3 | FileCheck %s
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static int fd;
static char buf[4];

static void helper(int k) { pwrite(fd, buf, 1, k); }

void for_loop(int n) {
  for (int i = 0; i < n; i++)
    write(fd, buf, 1);
}

void while_loop(int n) {
  int i = 0;
  while (i < n) {
    write(fd, buf, 1);
    i++;
  }
}

void do_loop(int n) {
  int i = 0;
  do {
    write(fd, buf, 1);
  } while (++i < n);
}

void break_continue(int n) {
  for (int i = 0; i < n; i++) {
    if (i == 1)
      continue;
    if (i == 3)
      break;
    write(fd, buf, 1);
  }
}

int early_return(int n) {
  for (int i = 0; i < n; i++) {
    if (i == 2)
      return i;
    write(fd, buf, 1);
  }
  return -1;
}

void nested(int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      write(fd, buf, 1);
}

void via_helper(int n) {
  for (int i = 0; i < n; i++)
    helper(i);
}

int no_io(int n) {
  volatile int s = 0;
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}

int main(void) {
  fd = open("/dev/null", O_WRONLY);
  for_loop(3);
  for_loop(0);
  while_loop(2);
  do_loop(2);
  break_continue(5);
  early_return(5);
  nested(2, 2);
  via_helper(2);
  no_io(10);
  for (int i = 0; i < 5; i++) {
    write(fd, buf, 1);
    if (i == 1)
      exit(0);
  }
  return 1;
}

// CHECK:      site open main:[[#]]:[[#]] loop=none
// for_loop(3)
// CHECK-NEXT: enter for_loop:[[#FOR:]]
// CHECK-NEXT: iter for_loop:[[#FOR]]
// CHECK-NEXT: site write for_loop:[[#FOR+1]]:5 loop=for_loop:[[#FOR]]
// CHECK-NEXT: iter for_loop:[[#FOR]]
// CHECK-NEXT: site write for_loop:[[#FOR+1]]:5 loop=for_loop:[[#FOR]]
// CHECK-NEXT: iter for_loop:[[#FOR]]
// CHECK-NEXT: site write for_loop:[[#FOR+1]]:5 loop=for_loop:[[#FOR]]
// CHECK-NEXT: exit for_loop:[[#FOR]]
// for_loop(0): entered, no body
// CHECK-NEXT: enter for_loop:[[#FOR]]
// CHECK-NEXT: exit for_loop:[[#FOR]]
// while_loop(2)
// CHECK-NEXT: enter while_loop:[[#WHILE:]]
// CHECK-NEXT: iter while_loop:[[#WHILE]]
// CHECK-NEXT: site write while_loop:[[#WHILE+1]]:5 loop=while_loop:[[#WHILE]]
// CHECK-NEXT: iter while_loop:[[#WHILE]]
// CHECK-NEXT: site write while_loop:[[#WHILE+1]]:5 loop=while_loop:[[#WHILE]]
// CHECK-NEXT: exit while_loop:[[#WHILE]]
// do_loop(2)
// CHECK-NEXT: enter do_loop:[[#DO:]]
// CHECK-NEXT: iter do_loop:[[#DO]]
// CHECK-NEXT: site write do_loop:[[#DO+1]]:5 loop=do_loop:[[#DO]]
// CHECK-NEXT: iter do_loop:[[#DO]]
// CHECK-NEXT: site write do_loop:[[#DO+1]]:5 loop=do_loop:[[#DO]]
// CHECK-NEXT: exit do_loop:[[#DO]]
// break_continue(5): bodies i=0,1,2,3 (continue at 1, break at 3)
// CHECK-NEXT: enter break_continue:[[#BC:]]
// CHECK-NEXT: iter break_continue:[[#BC]]
// CHECK-NEXT: site write break_continue:[[#BC+5]]:5 loop=break_continue:[[#BC]]
// CHECK-NEXT: iter break_continue:[[#BC]]
// CHECK-NEXT: iter break_continue:[[#BC]]
// CHECK-NEXT: site write break_continue:[[#BC+5]]:5 loop=break_continue:[[#BC]]
// CHECK-NEXT: iter break_continue:[[#BC]]
// CHECK-NEXT: exit break_continue:[[#BC]]
// early_return(5): bodies i=0,1,2, return in the third
// CHECK-NEXT: enter early_return:[[#ER:]]
// CHECK-NEXT: iter early_return:[[#ER]]
// CHECK-NEXT: site write early_return:[[#ER+3]]:5 loop=early_return:[[#ER]]
// CHECK-NEXT: iter early_return:[[#ER]]
// CHECK-NEXT: site write early_return:[[#ER+3]]:5 loop=early_return:[[#ER]]
// CHECK-NEXT: iter early_return:[[#ER]]
// CHECK-NEXT: exit early_return:[[#ER]]
// nested(2, 2)
// CHECK-NEXT: enter nested:[[#OUT:]]
// CHECK-NEXT: iter nested:[[#OUT]]
// CHECK-NEXT: enter nested:[[#OUT+1]]
// CHECK-NEXT: iter nested:[[#OUT+1]]
// CHECK-NEXT: site write nested:[[#OUT+2]]:7 loop=nested:[[#OUT+1]]
// CHECK-NEXT: iter nested:[[#OUT+1]]
// CHECK-NEXT: site write nested:[[#OUT+2]]:7 loop=nested:[[#OUT+1]]
// CHECK-NEXT: exit nested:[[#OUT+1]]
// CHECK-NEXT: iter nested:[[#OUT]]
// CHECK-NEXT: enter nested:[[#OUT+1]]
// CHECK-NEXT: iter nested:[[#OUT+1]]
// CHECK-NEXT: site write nested:[[#OUT+2]]:7 loop=nested:[[#OUT+1]]
// CHECK-NEXT: iter nested:[[#OUT+1]]
// CHECK-NEXT: site write nested:[[#OUT+2]]:7 loop=nested:[[#OUT+1]]
// CHECK-NEXT: exit nested:[[#OUT+1]]
// CHECK-NEXT: exit nested:[[#OUT]]
// via_helper(2): the helper's site has no loop of its own
// CHECK-NEXT: enter via_helper:[[#VH:]]
// CHECK-NEXT: iter via_helper:[[#VH]]
// CHECK-NEXT: site pwrite helper:[[#]]:29 loop=none
// CHECK-NEXT: iter via_helper:[[#VH]]
// CHECK-NEXT: site pwrite helper:[[#]]:29 loop=none
// CHECK-NEXT: exit via_helper:[[#VH]]
// no_io(10): nothing. exit() inside main's loop: exit marker before exit().
// CHECK-NEXT: enter main:[[#MAIN:]]
// CHECK-NEXT: iter main:[[#MAIN]]
// CHECK-NEXT: site write main:[[#MAIN+1]]:5 loop=main:[[#MAIN]]
// CHECK-NEXT: iter main:[[#MAIN]]
// CHECK-NEXT: site write main:[[#MAIN+1]]:5 loop=main:[[#MAIN]]
// CHECK-NEXT: exit main:[[#MAIN]]
// CHECK-NOT:  {{.}}
