// Metadata benchmark (issue 15 item 1), in the style of mdtest: every rank
// makes its own directory dir.<rank> and files dir.<rank>/file.<rank>.<i>,
// stats, lists, renames, truncates and removes them. File names are formats
// in rank and loop index, one table entry per format, so the trace does not
// grow with the rank count; C1 and the replay round trip hold at 32 ranks.
// REQUIRES: runtime, sio-extrap, sio-trace
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-rt -O1 %s -o %t.exe
// RUN: %c1 --exe %t.exe --work %t.d --inputs 4,8,12,16 --targets 32 --replay --max-growth 1.1 | FileCheck %s
// RUN: %sio-trace dump %t.d/trace.32.json | FileCheck %s --check-prefix=DUMP
// CHECK: C1 32: equal
// CHECK: replay 32: equal
// CHECK: size 32/4: ok
// One entry per name format, whatever the rank count and the file count.
// DUMP: files:
// DUMP-NEXT: f0 "dir.<rank>"
// DUMP-NEXT: f1 "dir.<rank>/file.<rank>.<i0>"
// DUMP-NEXT: f2 "dir.<rank>/moved.<rank>.<i0>"
// DUMP-NEXT: ranks
#include <mpi.h>

#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int files = 6;
  char dir[64], name[128], moved[128];
  std::snprintf(dir, sizeof dir, "dir.%d", rank);
  mkdir(dir, 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  char buf[256] = {};
  for (int i = 0; i < files; i++) { // create
    std::snprintf(name, sizeof name, "dir.%d/file.%d.%d", rank, rank, i);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    write(fd, buf, 64 + 16 * i);
    fdatasync(fd);
    struct stat st;
    fstat(fd, &st);
    ftruncate(fd, 32);
    fsync(fd);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < files; i++) { // stat
    std::snprintf(name, sizeof name, "dir.%d/file.%d.%d", rank, rank, i);
    struct stat st;
    stat(name, &st);
    lstat(name, &st);
    access(name, R_OK);
    fstatat(AT_FDCWD, name, &st, 0);
    struct statx sx;
    statx(AT_FDCWD, name, 0, STATX_SIZE, &sx);
  }
  DIR *d = opendir(dir); // list
  while (readdir(d) != nullptr) {
  }
  closedir(d);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < files; i++) { // rename, truncate, remove
    std::snprintf(name, sizeof name, "dir.%d/file.%d.%d", rank, rank, i);
    std::snprintf(moved, sizeof moved, "dir.%d/moved.%d.%d", rank, rank, i);
    rename(name, moved);
    truncate(moved, 16);
    unlink(moved);
  }
  rmdir(dir);
  MPI_Finalize();
}
