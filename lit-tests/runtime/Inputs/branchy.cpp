// Loops whose iterations differ in structure, chosen by data (a branch on a
// pseudo-random number): the calls an iteration makes are not those of the
// one before. One pattern per mode, N iterations each (default 20000):
//   choice    each iteration reads or writes 8 bytes at offset 8*i
//   optional  each iteration writes 1 byte at a random offset, one in three
//             also reads it back
//   inner     each iteration writes 0 to 3 blocks (an inner loop whose trip
//             count is random, 0 included)
//   three     each iteration reads, writes or seeks, or makes no call at all
//   timesteps 50 steps of an outer loop around `choice` with N/50 iterations
// Prints, per rank, the calls and bytes it made, for checking against the
// trace, and the seconds its loops took.
//   branchy MODE [iterations] [dir]
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace {

struct Counts {
  long long reads = 0, writes = 0, seeks = 0, bytesRead = 0, bytesWritten = 0;
};

/// xorshift64: the branch each iteration takes, different on every rank.
struct Random {
  uint64_t x;
  uint64_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

char buf[64];

void choice(int fd, long n, Random &r, Counts &c) {
  for (long i = 0; i < n; ++i) {
    if (r.next() % 2) {
      c.bytesRead += pread(fd, buf, 8, off_t(8 * i));
      ++c.reads;
    } else {
      c.bytesWritten += pwrite(fd, buf, 8, off_t(8 * i));
      ++c.writes;
    }
  }
}

void optional(int fd, long n, Random &r, Counts &c) {
  for (long i = 0; i < n; ++i) {
    uint64_t v = r.next();
    off_t at = off_t(v % 100000);
    c.bytesWritten += pwrite(fd, buf, 1, at);
    ++c.writes;
    if (v / 100000 % 3 == 0) {
      c.bytesRead += pread(fd, buf, 1, at);
      ++c.reads;
    }
  }
}

void inner(int fd, long n, Random &r, Counts &c) {
  for (long i = 0; i < n; ++i) {
    long blocks = long(r.next() % 4);
    for (long b = 0; b < blocks; ++b) {
      c.bytesWritten += pwrite(fd, buf, 16, off_t(64 * i + 16 * b));
      ++c.writes;
    }
  }
}

void three(int fd, long n, Random &r, Counts &c) {
  for (long i = 0; i < n; ++i) {
    switch (r.next() % 4) {
    case 0:
      c.bytesRead += pread(fd, buf, 4, off_t(4 * i));
      ++c.reads;
      break;
    case 1:
      c.bytesWritten += pwrite(fd, buf, 4, off_t(4 * i));
      ++c.writes;
      break;
    case 2:
      lseek(fd, off_t(4 * i), SEEK_SET);
      ++c.seeks;
      break;
    default: // no call
      break;
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string mode = argc > 1 ? argv[1] : "choice";
  const long n = argc > 2 ? std::atol(argv[2]) : 20000;
  const std::string dir = argc > 3 ? argv[3] : ".";
  const std::string path = dir + "/branchy." + std::to_string(rank) + ".dat";
  int fd = open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::memset(buf, 'x', sizeof buf);
  Random r{88172645463325252ull + 7919ull * uint64_t(rank)};
  Counts c;
  const double t0 = MPI_Wtime();
  if (mode == "choice")
    choice(fd, n, r, c);
  else if (mode == "optional")
    optional(fd, n, r, c);
  else if (mode == "inner")
    inner(fd, n, r, c);
  else if (mode == "three")
    three(fd, n, r, c);
  else if (mode == "timesteps")
    for (int step = 0; step < 50; ++step)
      choice(fd, n / 50, r, c);
  else {
    std::fprintf(stderr, "branchy: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double seconds = MPI_Wtime() - t0;
  close(fd);
  unlink(path.c_str());
  std::printf("rank %d reads %lld writes %lld seeks %lld bytes_read %lld bytes_written %lld io_seconds %.6f\n", rank,
              c.reads, c.writes, c.seeks, c.bytesRead, c.bytesWritten, seconds);
  MPI_Finalize();
  return 0;
}
