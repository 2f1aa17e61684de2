// Barriers and collectives are recorded without payload; a communicator from
// MPI_Comm_split is described by its rule (color, key) in the comm table.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.json --complete --count MPI_Comm_split=1 --count MPI_Barrier=2 \
// RUN:   --count MPI_Allreduce=1 --count MPI_Bcast=1 --param MPI_Bcast.root=0 --param MPI_Comm_split.key=rank
// RUN: %python -c "import json,sys; t=json.load(open(sys.argv[1])); print(sorted((c['kind'], str(c.get('fields',{}).get('color'))) for c in t['comms']))" %t.json | FileCheck %s --check-prefix=COMMS
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Barrier(half);
  int x = rank, sum = 0;
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, half);
  MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&half);
  MPI_Finalize();
}

// CHECK: ranks 0-3:
// CHECK: MPI_Comm_split(comm=0, color=(rank % 2), key=rank, newcomm=2)
// CHECK: MPI_Barrier(comm=2)
// CHECK: MPI_Allreduce(comm=2)
// CHECK: MPI_Bcast(root=0, comm=0)
// CHECK: MPI_Barrier(comm=0)
// CHECK: MPI_Comm_free(comm=2)
// One split made by every rank: one entry, its color a function of rank.
// COMMS: [('self', 'None'), ('split', "['(rank % 2)']"), ('world', 'None')]
