// Read phases for the prefetch benchmark (bench/prefetch.sh, docs/prefetch.md):
// PIO-Bench-style simple and nested strided reads and a BTIO-style read phase
// (Byna et al. SC08 §VI), plus random reads, with "computation" between reads.
//   prefetch-pio create FILE MIB
//   prefetch-pio run FILE PATTERN [--compute-us N] [--fadvise] [--scale K]
// run: rank 0 evicts FILE's pages (fdatasync + POSIX_FADV_DONTNEED), barrier,
// then every rank reads; computation is modelled by sleeping (the benchmark
// machine's cores are shared; spinning would measure CPU contention, not
// overlap). --fadvise: the application itself issues POSIX_FADV_WILLNEED for
// its next 8 accesses before each read. Prints from rank 0:
//   total_s io_s compute_s reads  (total: slowest rank; io: mean over ranks)
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

int rank = 0, nranks = 1;

struct Plan {
  std::vector<std::pair<int64_t, int64_t>> accesses; ///< file offset, bytes (for --fadvise)
};

double now() { return MPI_Wtime(); }

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 4) {
    if (rank == 0)
      std::fprintf(stderr, "usage: prefetch-pio create FILE MIB | run FILE PATTERN "
                           "[--compute-us N] [--fadvise] [--scale K]\n");
    MPI_Finalize();
    return 2;
  }
  const std::string cmd = argv[1], file = argv[2];
  if (cmd == "create") {
    if (rank == 0) {
      const int64_t mib = std::atoll(argv[3]);
      std::vector<char> buf(1 << 20);
      int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      for (int64_t m = 0; m < mib && fd >= 0; ++m) {
        for (size_t i = 0; i < buf.size(); ++i)
          buf[i] = char((m * 131 + int64_t(i) * 7) & 0xff);
        if (write(fd, buf.data(), buf.size()) != ssize_t(buf.size()))
          MPI_Abort(MPI_COMM_WORLD, 2);
      }
      if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
      fsync(fd);
      close(fd);
    }
    MPI_Finalize();
    return 0;
  }
  const std::string pattern = argv[3];
  int computeUs = 0, scale = 1;
  bool fadvise = false;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--compute-us") && i + 1 < argc)
      computeUs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--scale") && i + 1 < argc)
      scale = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--fadvise"))
      fadvise = true;
  }

  if (rank == 0) {
    int fd = open(file.c_str(), O_RDONLY);
    if (fd < 0) {
      perror(file.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  const int adviseFd = fadvise ? open(file.c_str(), O_RDONLY) : -1;
  double io = 0, computeTotal = 0;
  long reads = 0;
  std::vector<char> buf;
  auto compute = [&] {
    if (computeUs > 0) {
      const double t = now();
      usleep(useconds_t(computeUs));
      computeTotal += now() - t;
    }
  };
  auto advise = [&](const std::vector<std::pair<int64_t, int64_t>> &next) {
    for (const auto &[off, len] : next)
      posix_fadvise(adviseFd, off, len, POSIX_FADV_WILLNEED);
  };

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  if (pattern == "simple" || pattern == "nested" || pattern == "random") {
    // simple: 16 KiB requests, stride P*64 KiB (rank r starts at r*64 KiB).
    // nested: groups of 4 requests of 16 KiB, 32 KiB apart; groups P*256 KiB
    // apart. random: 16 KiB requests at random offsets in the rank's part of
    // the file. The gaps keep the kernel's sequential read-ahead out of the
    // no-prefetching runs.
    std::vector<std::pair<int64_t, int64_t>> acc;
    const int n = 128 * scale;
    uint64_t x = 88172645463325252ull + uint64_t(rank);
    for (int i = 0; i < n; ++i) {
      if (pattern == "simple")
        acc.push_back({(int64_t(i) * nranks + rank) * 262144, 65536});
      else if (pattern == "nested")
        acc.push_back({(int64_t(i / 4) * nranks + rank) * 1048576 + (i % 4) * 131072, 65536});
      else {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const int64_t span = int64_t(n) * 262144;
        acc.push_back({int64_t(rank) * span + int64_t(x % uint64_t(span / 16384)) * 16384, 16384});
      }
    }
    buf.resize(65536);
    for (int i = 0; i < n; ++i) {
      if (fadvise && pattern != "random") {
        std::vector<std::pair<int64_t, int64_t>> next;
        for (int k = (i == 0 ? 0 : 8); k <= 8 && i + k < n; ++k)
          next.push_back(acc[size_t(i + k)]);
        advise(next);
      }
      const double t = now();
      MPI_File_read_at(fh, acc[size_t(i)].first, buf.data(), int(acc[size_t(i)].second), MPI_BYTE, MPI_STATUS_IGNORE);
      io += now() - t;
      ++reads;
      compute();
    }
  } else if (pattern == "btio-mem") {
    // BTIO as its solver holds the data (issue 31): the same subarray view
    // and 40*scale steps, each read with MPI_File_read_all into the interior
    // of a ghost-celled {18, 18, 514} array (a subarray memory type), every
    // byte compared with the file's (exit 3 on a wrong one).
    const int sizes[3] = {16, 16 * nranks, 512}, subs[3] = {16, 16, 512}, starts[3] = {0, 16 * rank, 0};
    const int gsizes[3] = {18, 18, 514}, gstarts[3] = {1, 1, 1};
    MPI_Datatype ft, mt;
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_create_subarray(3, gsizes, subs, gstarts, MPI_ORDER_C, MPI_DOUBLE, &mt);
    MPI_Type_commit(&mt);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    const int64_t step = int64_t(16) * sizes[1] * 512 * 8;
    buf.resize(size_t(18 * 18 * 514) * 8);
    const int steps = 40 * scale;
    for (int t = 0; t < steps; ++t) {
      const double t0 = now();
      MPI_File_read_all(fh, buf.data(), 1, mt, MPI_STATUS_IGNORE);
      io += now() - t0;
      ++reads;
      for (int z = 0; z < 16; ++z)
        for (int y = 0; y < 16; ++y) {
          const int64_t off = t * step + (int64_t(z) * sizes[1] + 16 * rank + y) * 512 * 8;
          const char *row = buf.data() + ((size_t(z + 1) * 18 + size_t(y + 1)) * 514 + 1) * 8;
          for (int64_t i = 0; i < 512 * 8; ++i) {
            const int64_t o = off + i;
            if (row[i] != char(((o >> 20) * 131 + (o & 0xfffff) * 7) & 0xff)) {
              std::fprintf(stderr, "rank %d: wrong byte at file offset %lld\n", rank, (long long)o);
              MPI_Abort(MPI_COMM_WORLD, 3);
            }
          }
        }
      compute();
    }
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
  } else if (pattern == "btio" || pattern == "btio16") {
    // A 3-d array of doubles {16, 16P, 512} per time step; rank r owns
    // {16, 16, 512} at {0, 16r, 0}: 16 runs of 64 KiB, P*64 KiB apart. One
    // subarray view; 40*scale steps (btio: BTIO class B's 40 time steps, its
    // signature [42450944, 5308416, 40] in Byna et al. SC08 §VI) or 16*scale
    // (btio16, the benchmark's first shape) read with MPI_File_read_all.
    const int sizes[3] = {16, 16 * nranks, 512}, subs[3] = {16, 16, 512}, starts[3] = {0, 16 * rank, 0};
    MPI_Datatype ft;
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    const int elems = 16 * 16 * 512;
    const int64_t step = int64_t(16) * sizes[1] * 512 * 8;
    buf.resize(size_t(elems) * 8);
    const int steps = (pattern == "btio" ? 40 : 16) * scale;
    auto stepPieces = [&](int t) {
      std::vector<std::pair<int64_t, int64_t>> v;
      for (int z = 0; z < 16; ++z)
        v.push_back({t * step + (int64_t(z) * sizes[1] + 16 * rank) * 512 * 8, 16 * 512 * 8});
      return v;
    };
    for (int t = 0; t < steps; ++t) {
      if (fadvise)
        for (int k = (t == 0 ? 0 : 2); k <= 2 && t + k < steps; ++k) // 2 steps = 32 requests ahead
          advise(stepPieces(t + k));
      const double t0 = now();
      MPI_File_read_all(fh, buf.data(), elems, MPI_DOUBLE, MPI_STATUS_IGNORE);
      io += now() - t0;
      ++reads;
      compute();
    }
    MPI_Type_free(&ft);
  } else {
    if (rank == 0)
      std::fprintf(stderr, "unknown pattern %s\n", pattern.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double total = now() - start;
  MPI_File_close(&fh);
  if (adviseFd >= 0)
    close(adviseFd);
  double mine[2] = {io, computeTotal}, sums[2] = {0, 0}, slowest = 0;
  MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&total, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%.4f %.4f %.4f %ld\n", slowest, sums[0] / nranks, sums[1] / nranks, reads);
  MPI_Finalize();
  return 0;
}
