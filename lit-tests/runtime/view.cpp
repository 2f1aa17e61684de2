// A collective write through a file view: each rank's filetype is a vector
// of blocks interleaved with the other ranks', displaced by its rank.
// REQUIRES: runtime, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.4.json %mpiexec -n 4 %t.exe
// RUN: %sio-trace dump %t.4.json | FileCheck %s
// RUN: %python %S/Inputs/check_trace.py %t.4.json --complete --loop-iterations 2 \
// RUN:   --count MPI_File_set_view=1 --count MPI_File_write_all=1 --param MPI_File_set_view.disp=64*rank \
// RUN:   --param MPI_File_set_view.datarep=native --ranks MPI_File_write_all=0+1*[0..3]
// RUN: %python -c "import json,sys; t=json.load(open(sys.argv[1])); d=[x for x in t['datatypes'] if x['kind']=='vector'][0]; f=d['fields']; print('vector', f['count'], f['blocklength'], f['stride'], f['size'], f['extent'])" %t.4.json | FileCheck %s --check-prefix=TYPE
#include <mpi.h>

#include <cstdlib>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 1;
  MPI_Datatype filetype;
  MPI_Type_vector(4, 16, 16 * n, MPI_INT, &filetype);
  MPI_Type_commit(&filetype);
  int buf[64] = {};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "view.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, MPI_Offset(rank) * 16 * sizeof(int), MPI_INT, filetype, "native", MPI_INFO_NULL);
  for (int i = 0; i < 2 * iters; i++)
    MPI_File_write_all(fh, buf, 64, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&filetype);
  MPI_Finalize();
}

// CHECK: MPI_File_open(comm=0, file=f0 "view.dat", amode=5, info=0) -> fh=0
// CHECK: MPI_File_set_view(fh=0, disp=64*rank, etype={{[0-9]+}} MPI_INT, filetype={{[0-9]+}} vector, datarep="native", info=0)
// CHECK-NEXT: loop 2 iterations (i0){{.*}}:
// CHECK-NEXT: MPI_File_write_all(fh=0, count=64, datatype={{[0-9]+}} MPI_INT)
// CHECK: MPI_File_close(fh=0)
// The filetype described structurally: vector(4, 16, 16*4) of MPI_INT.
// TYPE: vector [4] [16] [64] [256] [832]
