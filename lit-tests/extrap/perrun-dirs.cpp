// Per-run directories (issue 15 item 4): the program writes to an absolute
// path under its working directory, and each rank count ran in a directory
// of its own (run4, run8, ...), so the inputs name the file differently.
// sio-extrap says so and names the --path-map that maps them to one name;
// with it, the extrapolation equals the 32-rank trace mapped the same way.
// REQUIRES: runtime, sio-extrap, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: %expect-exit 3 %c1 --exe %t.exe --work %t.d --inputs 4,8,12,16 --targets 32 > %t.refused
// RUN: FileCheck %s --check-prefix=REFUSED < %t.refused
// REFUSED: C1 32: sio-extrap failed:
// REFUSED-NEXT: sio-extrap: error: cannot extrapolate the file name of file f0 "{{.*}}/run16/out.dat": the inputs name it in different directories, a per-run directory that differs between the runs:
// REFUSED-NEXT: N=4: {{.*}}/run4
// REFUSED-NEXT: N=8: {{.*}}/run8
// REFUSED: name them alike, e.g. --path-map {{.*}}/run4={{.*}}/RUN --path-map {{.*}}/run8={{.*}}/RUN
// RUN: %sio-extrap %t.d/trace.4.json %t.d/trace.8.json %t.d/trace.12.json %t.d/trace.16.json --ranks 32 \
// RUN:   --path-map %t.d/run4=%t.d/RUN --path-map %t.d/run8=%t.d/RUN --path-map %t.d/run12=%t.d/RUN \
// RUN:   --path-map %t.d/run16=%t.d/RUN -o %t.x32.json
// RUN: mkdir -p %t.d/run32 && cd %t.d/run32 && env SIO_TRACE_FILE=%t.32.json %mpiexec -n 32 %t.exe
// RUN: %sio-extrap %t.32.json --path-map %t.d/run32=%t.d/RUN -o %t.32.mapped.json
// RUN: %sio-trace diff %t.x32.json %t.32.mapped.json
// RUN: %sio-trace dump %t.x32.json | FileCheck %s
// CHECK: f0 "{{.*}}/RUN/out.dat"
#include <mpi.h>

#include <string>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char cwd[4096];
  std::string path = std::string(getcwd(cwd, sizeof cwd)) + "/out.dat";
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  char buf[128] = {};
  for (int i = 0; i < 3; i++)
    MPI_File_write_at(fh, 128 * rank + 4096 * i, buf, 128, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Finalize();
}
