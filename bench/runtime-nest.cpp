// Marker-less nest workload for bench/runtime-nest-overhead.sh (issue 15
// item 2): a time-step loop around a cell loop, cells interleaved by rank,
// each step after a header gap, nothing called between the steps, so without
// the plugin's markers the runtime sees one flat run it must refold.
//   runtime-nest <steps> <cells per step> <cell bytes> <dir>
// Prints rank 0's I/O phase (MPI_Wtime), its process CPU time (all threads,
// so the drain thread's compression is in it) over the phase, and its total
// process CPU time after MPI_Finalize (where the trace is merged and written).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

static double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const long steps = argc > 1 ? std::atol(argv[1]) : 64;
  const long cells = argc > 2 ? std::atol(argv[2]) : 1024;
  const long cell = argc > 3 ? std::atol(argv[3]) : 512;
  const std::string dir = argc > 4 ? argv[4] : ".";
  const long header = 4096, step = header + cells * n * cell;
  std::vector<char> buf(size_t(cell), char('a' + rank));
  std::string path = dir + "/nest.dat";

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), c0 = cpuSeconds();
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  for (long t = 0; t < steps; t++)
    for (long c = 0; c < cells; c++)
      if (pwrite(fd, buf.data(), size_t(cell), header + t * step + (c * n + rank) * cell) != cell)
        std::abort();
  close(fd);
  double c1 = cpuSeconds();
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  if (rank == 0) {
    std::printf("io_seconds %.6f\ncpu_seconds %.6f\n", t1 - t0, c1 - c0);
    unlink(path.c_str());
  }
  MPI_Finalize();
  if (rank == 0)
    std::printf("total_cpu_seconds %.6f\n", cpuSeconds());
}
