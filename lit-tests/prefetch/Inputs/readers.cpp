// Read patterns for the prefetch tests (Byna et al. SC08 §VI: PIO-Bench
// simple, nested and segmented strided, BTIO and tile I/O). Every read is
// compared with the bytes the file holds: byte(offset, version).
//   readers PATTERN [--compute-us N]
// PATTERN: simple nested segmented btio tile vector iread rewrite random turn shared
//          selfwrite selfwrite-c selfwrite-ordered selfwrite-ishared iwrite-wait iwrite-all-wait
// Rank 0 creates data.bin in the working directory (POSIX, before a barrier).
// READERS_HINTS="key=value;key=value" opens the file with those MPI_Info hints.
// READERS_SETTLE_US=N: each rank sleeps N µs after the open (and after btio's
// set_view) before its first read, so a prefetcher that knows the first
// accesses from the signature has them cached by then.
// Prints "PATTERN: R reads, W wrong bytes" from rank 0; exits 1 on wrong bytes.
#include <mpi.h>

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
int computeUs = 300;
long reads = 0, wrong = 0;
const char *kFile = "data.bin";

unsigned char byteAt(int64_t o, int version) {
  return (unsigned char)(((uint64_t(o) * 2654435761u) >> 11) + version * 37u);
}

void create(int64_t size, int version) {
  if (rank == 0) {
    std::vector<unsigned char> buf(static_cast<size_t>(size));
    for (int64_t o = 0; o < size; ++o)
      buf[size_t(o)] = byteAt(o, version);
    int fd = open(kFile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf.data(), buf.size()) != ssize_t(buf.size())) {
      perror("data.bin");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void compute() {
  if (computeUs > 0)
    usleep(useconds_t(computeUs));
}

// The buffer must hold byteAt(o) for each file offset o in `offsets`.
void check(const unsigned char *buf, const std::vector<int64_t> &offsets, int version = 0) {
  ++reads;
  for (size_t i = 0; i < offsets.size(); ++i)
    if (buf[i] != byteAt(offsets[i], version))
      ++wrong;
}

std::vector<int64_t> range(int64_t off, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = off + i;
  return v;
}

void checkStatus(MPI_Status &st, MPI_Datatype t, int expected) {
  int n = -1;
  MPI_Get_count(&st, t, &n);
  if (n != expected) {
    std::fprintf(stderr, "rank %d: MPI_Get_count says %d, expected %d\n", rank, n, expected);
    ++wrong;
  }
}

void settle() {
  if (const char *us = std::getenv("READERS_SETTLE_US"))
    usleep(useconds_t(std::atoi(us)));
}

// PIO-Bench simple strided: 48 reads of S bytes, P*S apart, from r*S.
void simple(MPI_File fh, int version = 0) {
  const int S = 4096;
  std::vector<unsigned char> buf(S);
  for (int i = 0; i < 48; ++i) {
    const int64_t off = (int64_t(i) * nranks + rank) * S;
    MPI_Status st;
    MPI_File_read_at(fh, off, buf.data(), S, MPI_BYTE, &st);
    checkStatus(st, MPI_BYTE, S);
    check(buf.data(), range(off, S), version);
    compute();
  }
}

// Nested strided: 12 groups of 4 reads 2S apart; groups P*8S apart.
void nested(MPI_File fh) {
  const int S = 2048;
  std::vector<unsigned char> buf(S);
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t off = (int64_t(i) * nranks + rank) * 8 * S + j * 2 * S;
      MPI_File_read_at(fh, off, buf.data(), S, MPI_BYTE, MPI_STATUS_IGNORE);
      check(buf.data(), range(off, S));
      compute();
    }
}

// Segmented: each rank reads its own contiguous segment with the individual
// file pointer, in 48 requests of S bytes.
void segmented(MPI_File fh) {
  const int S = 3000; // not block aligned
  std::vector<unsigned char> buf(S);
  const int64_t seg = int64_t(48) * S;
  MPI_File_seek(fh, rank * seg, MPI_SEEK_SET);
  for (int i = 0; i < 48; ++i) {
    MPI_Status st;
    MPI_File_read(fh, buf.data(), S, MPI_BYTE, &st);
    checkStatus(st, MPI_BYTE, S);
    check(buf.data(), range(rank * seg + int64_t(i) * S, S));
    compute();
  }
  MPI_Offset pos = 0;
  MPI_File_get_position(fh, &pos);
  if (pos != rank * seg + 48 * S) {
    std::fprintf(stderr, "rank %d: file pointer at %lld, expected %lld\n", rank, (long long)pos,
                 (long long)(rank * seg + 48 * S));
    ++wrong;
  }
}

// BTIO-style: a 3-d array of doubles {8, 4P, 32}, rank r owns {8, 4, 32} at
// {0, 4r, 0}; one subarray view, 16 time steps read with MPI_File_read_all.
void btio(MPI_File fh) {
  const int sizes[3] = {8, 4 * nranks, 32}, subs[3] = {8, 4, 32}, starts[3] = {0, 4 * rank, 0};
  MPI_Datatype ft;
  MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
  MPI_Type_commit(&ft);
  MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
  settle();
  const int n = 8 * 4 * 32;
  const int64_t step = int64_t(8) * sizes[1] * 32 * 8;
  std::vector<unsigned char> buf(size_t(n) * 8);
  for (int t = 0; t < 16; ++t) {
    MPI_Status st;
    MPI_File_read_all(fh, buf.data(), n, MPI_DOUBLE, &st);
    checkStatus(st, MPI_DOUBLE, n);
    std::vector<int64_t> offs;
    for (int z = 0; z < 8; ++z)
      for (int y = 0; y < 4; ++y)
        for (int64_t b = 0; b < 32 * 8; ++b)
          offs.push_back(t * step + ((int64_t(z) * sizes[1] + 4 * rank + y) * 32) * 8 + b);
    check(buf.data(), offs);
    compute();
  }
  MPI_Type_free(&ft);
}

// Tile I/O: frames of a {32, 64P} array of ints; rank r reads its {32, 64}
// tile of each of 12 frames with MPI_File_read_at_all at explicit offsets.
void tile(MPI_File fh) {
  const int sizes[2] = {32, 64 * nranks}, subs[2] = {32, 64}, starts[2] = {0, 64 * rank};
  MPI_Datatype ft;
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  const int64_t disp = 4096; // a header before the frames
  MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL);
  const int n = 32 * 64;
  const int64_t frame = int64_t(sizes[0]) * sizes[1] * 4;
  std::vector<unsigned char> buf(size_t(n) * 4);
  for (int t = 0; t < 12; ++t) {
    MPI_File_read_at_all(fh, MPI_Offset(t) * n, buf.data(), n, MPI_INT, MPI_STATUS_IGNORE);
    std::vector<int64_t> offs;
    for (int y = 0; y < 32; ++y)
      for (int64_t b = 0; b < 64 * 4; ++b)
        offs.push_back(disp + t * frame + (int64_t(y) * sizes[1] + 64 * rank) * 4 + b);
    check(buf.data(), offs);
    compute();
  }
  MPI_Type_free(&ft);
}

// A vector view (blocks of 1000 bytes, one per rank in turn); each read takes
// one block through the individual file pointer; `nonblocking`: MPI_File_iread.
void vector(MPI_File fh, bool nonblocking) {
  const int B = 1000, blocks = 48;
  MPI_Datatype ft;
  MPI_Type_vector(blocks, B, B * nranks, MPI_BYTE, &ft);
  MPI_Type_commit(&ft);
  MPI_File_set_view(fh, int64_t(rank) * B, MPI_BYTE, ft, "native", MPI_INFO_NULL);
  std::vector<unsigned char> buf(B);
  for (int i = 0; i < blocks; ++i) {
    MPI_Status st;
    if (nonblocking) {
      MPI_Request req;
      MPI_File_iread(fh, buf.data(), B, MPI_BYTE, &req);
      MPI_Wait(&req, &st);
    } else {
      MPI_File_read(fh, buf.data(), B, MPI_BYTE, &st);
    }
    checkStatus(st, MPI_BYTE, B);
    check(buf.data(), range((int64_t(i) * nranks + rank) * B, B));
    compute();
  }
  MPI_Type_free(&ft);
}

// Another rank rewrites the file between two passes of simple strided reads,
// with the MPI consistency steps (sync, barrier, sync) before and after the
// write: the new bytes are seen.
void rewrite(MPI_File fh, int64_t size) {
  simple(fh, 0);
  // Every rank has finished its first pass before the writer starts (without
  // this, a rank still in its first pass under load reads the new bytes).
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  const int writer = nranks - 1;
  if (rank == writer) {
    std::vector<unsigned char> buf(static_cast<size_t>(size));
    for (int64_t o = 0; o < size; ++o)
      buf[size_t(o)] = byteAt(o, 1);
    MPI_File_write_at(fh, 0, buf.data(), int(size), MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  simple(fh, 1);
}

enum class WriteForm { At, AtLargeCount, Ordered, SharedNonblocking };

// Each rank overwrites the bytes it reads between two passes of simple
// strided reads, no sync: a process sees its own writes (MPI-4 §14.6.1).
// The forms: MPI_File_write_at, the large-count MPI_File_write_at_c,
// MPI_File_write_ordered and MPI_File_iwrite_shared (ranks take turns, so
// the shared pointer lands every rank's block where its reads are).
void selfwrite(MPI_File fh, WriteForm form) {
  simple(fh, 0);
  const int S = 4096;
  std::vector<unsigned char> buf(S);
  if (form == WriteForm::Ordered || form == WriteForm::SharedNonblocking)
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  for (int i = 0; i < 48; ++i) {
    const int64_t off = (int64_t(i) * nranks + rank) * S;
    for (int b = 0; b < S; ++b)
      buf[size_t(b)] = byteAt(off + b, 1);
    switch (form) {
    case WriteForm::At:
      MPI_File_write_at(fh, off, buf.data(), S, MPI_BYTE, MPI_STATUS_IGNORE);
      break;
    case WriteForm::AtLargeCount:
      MPI_File_write_at_c(fh, off, buf.data(), MPI_Count(S), MPI_BYTE, MPI_STATUS_IGNORE);
      break;
    case WriteForm::Ordered:
      MPI_File_write_ordered(fh, buf.data(), S, MPI_BYTE, MPI_STATUS_IGNORE);
      break;
    case WriteForm::SharedNonblocking:
      for (int turn = 0; turn < nranks; ++turn) {
        if (turn == rank) {
          MPI_Request req;
          MPI_File_iwrite_shared(fh, buf.data(), S, MPI_BYTE, &req);
          MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
      }
      break;
    }
  }
  simple(fh, 1);
}

// Nonblocking writes completed late: in one pass of simple strided reads,
// step i starts MPI_File_iwrite_at (`collective`: MPI_File_iwrite_at_all,
// which ROMIO carries out as MPI_Wait progresses it) of access i+2
// (version 1), reads access i
// (which has the prefetch thread load the blocks ahead, access i+2's among
// them, perhaps before the write reached the file), then MPI_Wait: access
// i+2, read two steps later, must hold version 1 (MPI-4 §14.6.1: the write is
// visible to this process once the request completed).
void iwriteWait(MPI_File fh, bool collective) {
  const int S = 4096, n = 48;
  std::vector<unsigned char> in(S), out(S);
  auto at = [](int i) { return (int64_t(i) * nranks + rank) * S; };
  for (int i = 0; i < n; ++i) {
    MPI_Request req = MPI_REQUEST_NULL;
    if (i + 2 < n) {
      for (int b = 0; b < S; ++b)
        out[size_t(b)] = byteAt(at(i + 2) + b, 1);
      if (collective)
        MPI_File_iwrite_at_all(fh, at(i + 2), out.data(), S, MPI_BYTE, &req);
      else
        MPI_File_iwrite_at(fh, at(i + 2), out.data(), S, MPI_BYTE, &req);
    }
    MPI_Status st;
    MPI_File_read_at(fh, at(i), in.data(), S, MPI_BYTE, &st);
    checkStatus(st, MPI_BYTE, S);
    check(in.data(), range(at(i), S), i >= 2 ? 1 : 0);
    compute();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
}

// 96 reads of 512 bytes at scattered offsets.
void random(MPI_File fh, int64_t size) {
  const int S = 512;
  std::vector<unsigned char> buf(S);
  uint64_t x = 88172645463325252ull + uint64_t(rank);
  for (int i = 0; i < 96; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t off = int64_t(x % uint64_t(size - S));
    MPI_File_read_at(fh, off, buf.data(), S, MPI_BYTE, MPI_STATUS_IGNORE);
    check(buf.data(), range(off, S));
  }
}

// A pattern that turns: 8 simple strided reads (the online detector becomes
// stable), then 152 random reads past the first 128 KiB, where the strided
// reads and their prefetched blocks were (its predictions miss).
void turn(MPI_File fh, int64_t size) {
  const int S = 512;
  std::vector<unsigned char> buf(S);
  uint64_t x = 88172645463325252ull + uint64_t(rank);
  for (int i = 0; i < 160; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t off = i < 8 ? (int64_t(i) * nranks + rank) * 4096 : 131072 + int64_t(x % uint64_t(size - 131072 - S));
    MPI_File_read_at(fh, off, buf.data(), S, MPI_BYTE, MPI_STATUS_IGNORE);
    check(buf.data(), range(off, S));
  }
}

// The shared file pointer: 8 reads of S bytes each, in rank order.
void shared(MPI_File fh) {
  const int S = 1024;
  std::vector<unsigned char> buf(S);
  for (int i = 0; i < 8; ++i) {
    MPI_Status st;
    MPI_File_read_ordered(fh, buf.data(), S, MPI_BYTE, &st);
    check(buf.data(), range((int64_t(i) * nranks + rank) * S, S));
  }
}

MPI_Info hints() {
  MPI_Info info = MPI_INFO_NULL;
  const char *env = std::getenv("READERS_HINTS");
  if (!env || !*env)
    return info;
  MPI_Info_create(&info);
  std::string all = env;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(';', start);
    if (end == std::string::npos)
      end = all.size();
    const std::string kv = all.substr(start, end - start);
    const size_t eq = kv.find('=');
    if (eq != std::string::npos)
      MPI_Info_set(info, kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str());
    start = end + 1;
  }
  return info;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 2) {
    std::fprintf(stderr, "usage: readers PATTERN [--compute-us N]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string pattern = argv[1];
  if (argc > 3 && std::strcmp(argv[2], "--compute-us") == 0)
    computeUs = std::atoi(argv[3]);
  // Large enough for every pattern at this rank count, plus a margin so that
  // read-ahead past a rank's last read stays inside the file.
  const int64_t size = int64_t(nranks) * 64 * 4096 * 2 + 65536;
  create(size, 0);
  MPI_File fh;
  const int amode =
      pattern.rfind("rewrite", 0) == 0 || pattern.rfind("selfwrite", 0) == 0 || pattern.rfind("iwrite", 0) == 0
          ? MPI_MODE_RDWR
          : MPI_MODE_RDONLY;
  MPI_Info info = hints();
  if (MPI_File_open(MPI_COMM_WORLD, kFile, amode, info, &fh) != MPI_SUCCESS) {
    std::fprintf(stderr, "cannot open %s\n", kFile);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  settle();
  if (pattern == "simple")
    simple(fh);
  else if (pattern == "nested")
    nested(fh);
  else if (pattern == "segmented")
    segmented(fh);
  else if (pattern == "btio")
    btio(fh);
  else if (pattern == "tile")
    tile(fh);
  else if (pattern == "vector")
    vector(fh, false);
  else if (pattern == "iread")
    vector(fh, true);
  else if (pattern == "rewrite")
    rewrite(fh, size);
  else if (pattern == "random")
    random(fh, size);
  else if (pattern == "turn")
    turn(fh, size);
  else if (pattern == "selfwrite")
    selfwrite(fh, WriteForm::At);
  else if (pattern == "selfwrite-c")
    selfwrite(fh, WriteForm::AtLargeCount);
  else if (pattern == "selfwrite-ordered")
    selfwrite(fh, WriteForm::Ordered);
  else if (pattern == "selfwrite-ishared")
    selfwrite(fh, WriteForm::SharedNonblocking);
  else if (pattern == "iwrite-wait")
    iwriteWait(fh, false);
  else if (pattern == "iwrite-all-wait")
    iwriteWait(fh, true);
  else if (pattern == "shared")
    shared(fh);
  else {
    std::fprintf(stderr, "unknown pattern %s\n", pattern.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_File_close(&fh);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  long totals[2] = {reads, wrong}, sums[2] = {0, 0};
  MPI_Reduce(totals, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s: %ld reads, %ld wrong bytes\n", pattern.c_str(), sums[0], sums[1]);
  MPI_Finalize();
  return sums[1] == 0 ? 0 : 1;
}
