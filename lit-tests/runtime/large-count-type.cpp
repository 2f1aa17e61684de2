// A datatype made by a large-count constructor with a count beyond int is
// not described with a cut count (3,000,000,000 read as -1,294,967,296
// before): its table entry keeps the kind, size and extent only (the replay
// approximates such a type and says so). One whose counts fit is described
// in full. (MPICH 4.0's ROMIO cannot use `_c` types as file views, so the
// program only makes and frees them.)
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 1 %t.exe
// RUN: %sio-trace dump %t.json | FileCheck %s
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1]))['datatypes']; print(*[sorted(e['fields']) for e in d if e['kind']=='contiguous'], sep='\n')" %t.json | FileCheck %s --check-prefix=TABLE
// CHECK: MPI_Type_contiguous(count=3000000000,
// CHECK: MPI_Type_contiguous(count=3000,
// TABLE: ['combiner', 'extent', 'lb', 'size']
// TABLE-NEXT: ['count', 'extent', 'lb', 'oldtype', 'size']
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype big, small;
  MPI_Type_contiguous_c(MPI_Count(3000000000LL), MPI_BYTE, &big);
  MPI_Type_contiguous_c(MPI_Count(3000), MPI_BYTE, &small);
  MPI_Type_free(&big);
  MPI_Type_free(&small);
  MPI_Finalize();
  return 0;
}
