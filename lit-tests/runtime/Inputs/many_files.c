// Each rank opens, writes and closes N distinct files (argv[1]) in a
// directory of its own, under names that follow no format (a multiplicative
// hash of the index: the trace's file table keeps one entry per file), then
// prints its peak resident set size (VmHWM) after MPI_Finalize, when the
// tracer's finalize (compression, merge, trace writing) has run.
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long peakKiB(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0)
      kib = strtol(line + 6, NULL, 10);
  fclose(f);
  return kib;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30000;
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char dir[64], path[128], data[64];
  snprintf(dir, sizeof dir, "out.%d", rank);
  mkdir(dir, 0755);
  memset(data, 'x', sizeof data);
  for (int i = 0; i < n; ++i) {
    snprintf(path, sizeof path, "%s/%08x", dir, (unsigned)i * 2654435761u);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, data, sizeof data) != (ssize_t)sizeof data) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    close(fd);
  }
  MPI_Finalize();
  printf("rank %d files %d peak_kib %ld\n", rank, n, peakKiB());
  return 0;
}
