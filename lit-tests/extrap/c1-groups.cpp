// File identity across rank counts (issue 15 item 3): groups of 4 ranks share
// a file group_<rank/4>/part.<i0>.dat, one per time step, and every rank also
// writes a shared log. On 4 ranks there is one group, so the group name is a
// literal (group_0/...) and the file table lists the files in another order
// than at 8, 12 and 16 ranks; sio-extrap matches the files by the calls that
// use them and checks the literal against the format.
// REQUIRES: runtime, sio-extrap, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: %c1 --exe %t.exe --work %t.d --inputs 4,8,12,16 --targets 32 --replay --max-growth 1.1 | FileCheck %s
// RUN: %sio-trace dump %t.d/trace.4.json | FileCheck %s --check-prefix=AT4
// RUN: %sio-trace dump %t.d/trace.8.json | FileCheck %s --check-prefix=AT8
// CHECK: C1 32: equal
// CHECK: replay 32: equal
// CHECK: size 32/4: ok
// AT4: files:
// AT4-NEXT: f0 "group_0"
// AT4-NEXT: f1 "log.dat"
// AT4-NEXT: f2 "group_0/part.<i0>.dat"
// AT8: files:
// AT8-NEXT: f0 "log.dat"
// AT8-NEXT: f1 "group_<rank/4>"
// AT8-NEXT: f2 "group_<rank/4>/part.<i0>.dat"
#include <mpi.h>

#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char dir[64], name[128];
  std::snprintf(dir, sizeof dir, "group_%d", rank / 4);
  if (rank % 4 == 0)
    mkdir(dir, 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File log;
  MPI_File_open(MPI_COMM_WORLD, "log.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &log);
  char buf[512] = {};
  for (int step = 0; step < 4; step++) {
    std::snprintf(name, sizeof name, "group_%d/part.%d.dat", rank / 4, step);
    int fd = open(name, O_CREAT | O_WRONLY, 0644);
    pwrite(fd, buf, 256, 256 * (rank % 4));
    close(fd);
    MPI_File_write_at_all(log, 64 * rank + 4096 * step, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&log);
  MPI_Finalize();
}
