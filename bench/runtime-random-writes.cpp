// Random small writes (issue 20): each rank does N one-byte pwrite()s at
// random offsets within 100 kB of its own file, the stream no loop model
// compresses. Prints, per rank, the I/O phase's wall and CPU (user + system)
// time and the peak RSS after MPI_Finalize (which includes writing the
// trace). CPU time is what other processes on a loaded host disturb least.
//   random-writes [calls, default 1000000] [dir, default .]
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

/// This process's user + system CPU time.
static double cpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  const std::string dir = argc > 2 ? argv[2] : ".";
  const std::string path = dir + "/random-writes." + std::to_string(rank) + ".dat";
  int fd = open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  uint64_t x = 88172645463325252ull + static_cast<uint64_t>(rank); // xorshift64
  const char byte = 'x';
  MPI_Barrier(MPI_COMM_WORLD);
  double c0 = cpuSeconds();
  double t0 = MPI_Wtime();
  for (long i = 0; i < calls; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if (pwrite(fd, &byte, 1, static_cast<off_t>(x % 100000)) != 1) {
      std::perror("pwrite");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  double t1 = MPI_Wtime();
  double c1 = cpuSeconds();
  close(fd);
  unlink(path.c_str());
  MPI_Finalize();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("rank %d io_seconds %.6f maxrss_kb %ld io_cpu_seconds %.6f\n", rank, t1 - t0, ru.ru_maxrss, c1 - c0);
  return 0;
}
