// Through MPICH's wrapper: MPICH_CC=clang mpicc -fplugin=siotrace.so. MPI-IO
// calls get site ids; the loop of collective writes gets its markers.
// REQUIRES: plugin
// RUN: %clang -O1 -I%srcroot/runtime/include -c %S/Inputs/marker_rt.c -o %t.rt.o
// RUN: env MPICH_CC=%clang %mpicc -fplugin=%siotrace -gline-tables-only -O2 %s %t.rt.o -o %t
// RUN: rm -f %t.dat
// RUN: %mpiexec -n 1 %t %t.dat | FileCheck %s
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_File fh;
  int buf[4] = {1, 2, 3, 4};
  MPI_Init(&argc, &argv);
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY,
                MPI_INFO_NULL, &fh);
  for (int i = 0; i < 3; i++)
    MPI_File_write_at_all(fh, (MPI_Offset)i * sizeof buf, buf, 4, MPI_INT,
                          MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

// CHECK:      site MPI_File_open main:14:3 loop=none
// CHECK-NEXT: enter main:16
// CHECK-NEXT: iter main:16
// CHECK-NEXT: site MPI_File_write_at_all main:17:5 loop=main:16
// CHECK-NEXT: iter main:16
// CHECK-NEXT: site MPI_File_write_at_all main:17:5 loop=main:16
// CHECK-NEXT: iter main:16
// CHECK-NEXT: site MPI_File_write_at_all main:17:5 loop=main:16
// CHECK-NEXT: exit main:16
// CHECK-NEXT: site MPI_File_close main:19:3 loop=none
// CHECK-NEXT: site MPI_Barrier main:20:3 loop=none
// CHECK-NOT:  {{.}}
