// libsio-throttle.so: a preload library that makes directories behave like
// storage devices of a given bandwidth and latency, for benchmarks on one
// machine (prefetching, docs/prefetch.md; partitioning over storage targets,
// docs/partitioning.md). Not part of the tracing toolchain.
//
//   SIO_THROTTLE_REPORT=FILE  each process appends per device the bytes it moved
//                             and the time it slept, at exit
//   SIO_THROTTLE="DIR:RATE[:LATENCY_US][,DIR:RATE[:LATENCY_US]...]"
//     DIR         a directory; files below it (after symlinks) are throttled
//     RATE        bytes per second, with an optional K, M or G suffix (powers
//                 of 1024), shared by reads and writes
//     LATENCY_US  added to every read and write (default 0)
//
// Each directory is one device, shared by every process on the node that
// preloads the library: the time at which the device is next free lives in
// shared memory (/dev/shm, one object per directory and user), and a request
// of B bytes reserves B / RATE seconds of it, first come first served. The
// call then returns no earlier than the end of its reservation plus the
// latency, sleeping (not spinning) for what the real call did not take. So
// transfers of different processes queue as on one disk while latencies
// overlap, and a thread waiting for a device leaves the CPU to others. The
// 8-byte objects stay in /dev/shm for later runs (rm /dev/shm/sio-throttle-*).
//
// Intercepted: open, open64, openat, openat64, creat, creat64 (to learn which
// descriptors are throttled, by the path the kernel reports for them), close,
// read, pread, pread64, readv, preadv (and the fortified __read_chk,
// __pread_chk, __pread64_chk), write, pwrite, pwrite64, writev,
// pwritev. Results and errno of every call are the real call's. Not
// throttled: stdio streams' own buffering, mmap, O_DIRECT alignment effects.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Device {
  char dir[PATH_MAX] = {}; ///< canonical, no trailing slash
  double nsPerByte = 0;
  int64_t latencyNs = 0;
  std::atomic<int64_t> *nextFree = nullptr;                      ///< CLOCK_MONOTONIC ns, in shared memory
  std::atomic<uint64_t> readBytes{0}, writeBytes{0}, sleptNs{0}; ///< this process's
};

constexpr int kMaxFd = 1 << 16;
// Plain arrays: constant-initialized, so usable by the constructor below and
// by open() calls of other libraries' constructors that run before ours.
constexpr size_t kMaxDevices = 64;
Device g_devices[kMaxDevices];
size_t g_ndevices = 0;
/// fd -> 1 + device index; 0: not throttled.
std::atomic<uint8_t> g_fdDevice[kMaxFd];

template <class F> F real(const char *name) { return reinterpret_cast<F>(dlsym(RTLD_NEXT, name)); }

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "sio-throttle: %s\n", what.c_str());
  std::_Exit(2);
}

int64_t nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

bool parseRate(const std::string &s, double &bytesPerSecond) {
  char *end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || v <= 0)
    return false;
  std::string suffix(end);
  double scale = 1;
  if (suffix == "K" || suffix == "k")
    scale = 1024.0;
  else if (suffix == "M" || suffix == "m")
    scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (!suffix.empty())
    return false;
  bytesPerSecond = v * scale;
  return true;
}

std::atomic<int64_t> *sharedClock(const char *dir) {
  // One object per directory and user; the name hashes the canonical path.
  uint64_t h = 1469598103934665603ull;
  for (const char *c = dir; *c; ++c)
    h = (h ^ uint8_t(*c)) * 1099511628211ull;
  char name[64];
  std::snprintf(name, sizeof name, "/sio-throttle-%u-%016llx", unsigned(getuid()), (unsigned long long)h);
  int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(int64_t)) != 0)
    fail(std::string("cannot create the shared device clock ") + name + ": " + std::strerror(errno));
  void *p = mmap(nullptr, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  real<int (*)(int)>("close")(fd);
  if (p == MAP_FAILED)
    fail(std::string("cannot map ") + name + ": " + std::strerror(errno));
  return static_cast<std::atomic<int64_t> *>(p);
}

__attribute__((constructor)) void init() {
  const char *spec = std::getenv("SIO_THROTTLE");
  if (spec == nullptr || *spec == '\0')
    return;
  std::string all(spec);
  size_t pos = 0;
  while (pos <= all.size()) {
    size_t comma = all.find(',', pos);
    std::string entry = all.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? all.size() + 1 : comma + 1;
    if (entry.empty())
      continue;
    std::vector<std::string> parts;
    for (size_t a = 0;;) {
      size_t colon = entry.find(':', a);
      parts.push_back(entry.substr(a, colon == std::string::npos ? std::string::npos : colon - a));
      if (colon == std::string::npos)
        break;
      a = colon + 1;
    }
    double rate = 0;
    if (parts.size() < 2 || parts.size() > 3 || !parseRate(parts[1], rate))
      fail("bad SIO_THROTTLE entry '" + entry + "': expected DIR:RATE[:LATENCY_US], RATE in bytes/s with K, M or G");
    if (g_ndevices == kMaxDevices)
      fail("SIO_THROTTLE lists more than " + std::to_string(kMaxDevices) + " directories");
    Device &d = g_devices[g_ndevices];
    char canonical[PATH_MAX];
    if (realpath(parts[0].c_str(), canonical) == nullptr)
      fail("SIO_THROTTLE directory '" + parts[0] + "': " + std::strerror(errno));
    std::strcpy(d.dir, canonical);
    d.nsPerByte = 1e9 / rate;
    if (parts.size() == 3) {
      char *end = nullptr;
      const long long us = std::strtoll(parts[2].c_str(), &end, 10);
      if (end == parts[2].c_str() || *end != '\0' || us < 0)
        fail("bad latency in SIO_THROTTLE entry '" + entry + "': expected microseconds");
      d.latencyNs = us * 1000;
    }
    d.nextFree = sharedClock(d.dir);

    ++g_ndevices;
  }
}

/// After a successful open: is the file below a throttled directory?
void learn(int fd) {
  if (fd < 0 || fd >= kMaxFd || g_ndevices == 0)
    return;
  char link[64], target[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  uint8_t device = 0;
  if (n > 0) {
    target[n] = '\0';
    for (size_t i = 0; i < g_ndevices; ++i) {
      const char *dir = g_devices[i].dir;
      const size_t len = std::strlen(dir);
      if (std::strncmp(target, dir, len) == 0 && (target[len] == '/' || len == 1)) {
        device = uint8_t(i + 1);
        break;
      }
    }
  }
  g_fdDevice[fd].store(device, std::memory_order_relaxed);
}

/// Reserves the device for `bytes` and returns when the transfer would have
/// ended; `started` is when the real call began.
void charge(int fd, ssize_t bytes, int64_t started, bool isWrite) {
  if (fd < 0 || fd >= kMaxFd || bytes < 0)
    return;
  const uint8_t d = g_fdDevice[fd].load(std::memory_order_relaxed);
  if (d == 0)
    return;
  Device &dev = g_devices[d - 1];
  (isWrite ? dev.writeBytes : dev.readBytes).fetch_add(uint64_t(bytes), std::memory_order_relaxed);
  const int64_t duration = int64_t(double(bytes) * dev.nsPerByte);
  int64_t free = dev.nextFree->load(std::memory_order_relaxed);
  int64_t begin;
  do {
    begin = free > started ? free : started;
  } while (!dev.nextFree->compare_exchange_weak(free, begin + duration, std::memory_order_relaxed));
  const int64_t done = begin + duration + dev.latencyNs;
  const int saved = errno;
  const int64_t now = nowNs();
  if (done > now)
    dev.sleptNs.fetch_add(done - now, std::memory_order_relaxed);
  timespec until{time_t(done / 1000000000), long(done % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
  }
  errno = saved;
}

/// Runs the real call and charges the device for what it moved.
template <class F, class... A> ssize_t timed(bool isWrite, F fn, int fd, A... a) {
  const int64_t started = nowNs();
  ssize_t r = fn(fd, a...);
  if (r >= 0)
    charge(fd, r, started, isWrite);
  return r;
}

int opened(int fd) {
  if (fd >= 0)
    learn(fd);
  return fd;
}

/// With SIO_THROTTLE_REPORT=FILE, each process appends one line per device:
/// the bytes it charged and the time it slept.
__attribute__((destructor)) void report() {
  const char *path = std::getenv("SIO_THROTTLE_REPORT");
  if (path == nullptr || *path == '\0')
    return;
  FILE *f = std::fopen(path, "a");
  if (f == nullptr)
    return;
  for (size_t i = 0; i < g_ndevices; ++i) {
    const Device &d = g_devices[i];
    std::fprintf(f, "sio-throttle: pid %d dir %s read_bytes %llu write_bytes %llu slept_s %.6f\n", int(getpid()), d.dir,
                 (unsigned long long)d.readBytes.load(), (unsigned long long)d.writeBytes.load(),
                 double(d.sleptNs.load()) / 1e9);
  }
  std::fclose(f);
}

} // namespace

// The mode of open-like calls is read only when the flags say it is there.
#define SIO_THROTTLE_OPEN(NAME, PARAMS, ARGS)                                                                          \
  int NAME PARAMS {                                                                                                    \
    static auto fn = real<int(*) PARAMS>(#NAME);                                                                       \
    mode_t mode = 0;                                                                                                   \
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                                                       \
      va_list ap;                                                                                                      \
      va_start(ap, flags);                                                                                             \
      mode = mode_t(va_arg(ap, int));                                                                                  \
      va_end(ap);                                                                                                      \
    }                                                                                                                  \
    return opened(fn ARGS);                                                                                            \
  }
#define SIO_THROTTLE_UNPAREN(...) __VA_ARGS__
#define SIO_THROTTLE_IO(NAME, IS_WRITE, PARAMS, ARGS)                                                                  \
  ssize_t NAME PARAMS {                                                                                                \
    static auto fn = real<ssize_t(*) PARAMS>(#NAME);                                                                   \
    return timed(IS_WRITE, fn, SIO_THROTTLE_UNPAREN ARGS);                                                             \
  }

extern "C" {

SIO_THROTTLE_OPEN(open, (const char *path, int flags, ...), (path, flags, mode))
SIO_THROTTLE_OPEN(open64, (const char *path, int flags, ...), (path, flags, mode))
SIO_THROTTLE_OPEN(openat, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode))
SIO_THROTTLE_OPEN(openat64, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode))

int creat(const char *path, mode_t mode) {
  static auto fn = real<int (*)(const char *, mode_t)>("creat");
  return opened(fn(path, mode));
}
int creat64(const char *path, mode_t mode) {
  static auto fn = real<int (*)(const char *, mode_t)>("creat64");
  return opened(fn(path, mode));
}
int close(int fd) {
  static auto fn = real<int (*)(int)>("close");
  if (fd >= 0 && fd < kMaxFd)
    g_fdDevice[fd].store(0, std::memory_order_relaxed);
  return fn(fd);
}

SIO_THROTTLE_IO(read, false, (int fd, void *b, size_t n), (fd, b, n))
SIO_THROTTLE_IO(pread, false, (int fd, void *b, size_t n, off_t o), (fd, b, n, o))
SIO_THROTTLE_IO(pread64, false, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o))
SIO_THROTTLE_IO(readv, false, (int fd, const struct iovec *v, int c), (fd, v, c))
SIO_THROTTLE_IO(preadv, false, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o))
SIO_THROTTLE_IO(__read_chk, false, (int fd, void *b, size_t n, size_t bl), (fd, b, n, bl))
SIO_THROTTLE_IO(__pread_chk, false, (int fd, void *b, size_t n, off_t o, size_t bl), (fd, b, n, o, bl))
SIO_THROTTLE_IO(__pread64_chk, false, (int fd, void *b, size_t n, off64_t o, size_t bl), (fd, b, n, o, bl))
SIO_THROTTLE_IO(write, true, (int fd, const void *b, size_t n), (fd, b, n))
SIO_THROTTLE_IO(pwrite, true, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
SIO_THROTTLE_IO(pwrite64, true, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o))
SIO_THROTTLE_IO(writev, true, (int fd, const struct iovec *v, int c), (fd, v, c))
SIO_THROTTLE_IO(pwritev, true, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o))

} // extern "C"
