// Overhead of interception: ns per 1-byte pwrite to a hot-cache file, traced
// (through libsiotrace-rt's wrapper, which this binary links) against the raw
// system call, measured paired in one process by alternating blocks.
//
//   SIO_TRACE_FILE=/tmp/bench.sio.json build/bench/bin/sio-runtime-overhead-bench
//
// BM_PairedPwrite reports, per call, medians over blocks of this thread's CPU
// time: traced_ns, raw_ns, added_ns = traced_ns - raw_ns; added_mean_ns (the
// mean, which includes the buffer hand-offs); drain_ns, the drain thread's
// CPU time per traced call (conversion and compression, off the calling
// thread; with SIO_DRAIN_THREAD=0 that cost lands in added_mean_ns instead).
// BM_PairedLseek does the same around lseek, which is not a cancellation
// point and whose kernel path is short. BM_PairedLibcPwrite pairs glibc's own
// pwrite (no wrapper) with the raw system call: what glibc adds, which grows
// once the process has a second thread (cancellation bookkeeping).
//
// SIO_BENCH_IDLE_THREAD=1 starts a thread that only sleeps, so the process is
// multithreaded from the start as it is once the drain thread runs: with
// SIO_DRAIN_THREAD=0 and a buffer larger than the benchmark's records
// (SIO_BUFFER_RECORDS=1048576) that separates the cost of being a
// multithreaded process from that of handing records to the drain thread
// (bench/runtime-call-breakdown.sh).
#include "sio/siotrace_abi.h"

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <dlfcn.h>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

/// MPI is initialized around the benchmarks unless SIO_BENCH_NO_MPI=1 (a
/// POSIX-only process; the MPI benchmark is then skipped).
bool g_mpi = false;

std::string benchPath() {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/sio-overhead-bench." + std::to_string(getpid());
}

struct HotFile {
  std::string path = benchPath();
  int traced = -1; // opened through the wrapper: its calls are recorded
  int raw = -1;    // opened by a raw syscall: unknown to the runtime
  HotFile() {
    traced = open(path.c_str(), O_CREAT | O_RDWR, 0600);
    raw = int(syscall(SYS_openat, AT_FDCWD, path.c_str(), O_RDWR, 0600));
    char c = 'x';
    syscall(SYS_pwrite64, raw, &c, 1, 0); // hot page
  }
  ~HotFile() {
    close(traced);
    syscall(SYS_close, raw);
    syscall(SYS_unlinkat, AT_FDCWD, path.c_str(), 0);
  }
};

HotFile &hot() {
  static HotFile f;
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void BM_TracedPwrite(benchmark::State &state) {
  int fd = hot().traced;
  char c = 'a';
  for (auto _ : state)
    benchmark::DoNotOptimize(pwrite(fd, &c, 1, 0));
}
BENCHMARK(BM_TracedPwrite);

void BM_RawPwrite(benchmark::State &state) {
  int fd = hot().raw;
  char c = 'a';
  for (auto _ : state)
    benchmark::DoNotOptimize(syscall(SYS_pwrite64, fd, &c, 1, 0));
}
BENCHMARK(BM_RawPwrite);

// The wrapper on a descriptor whose open was not recorded (the pass-through
// path every unrelated call takes).
void BM_UntrackedPwrite(benchmark::State &state) {
  int fd = hot().raw;
  char c = 'a';
  for (auto _ : state)
    benchmark::DoNotOptimize(pwrite(fd, &c, 1, 0));
}
BENCHMARK(BM_UntrackedPwrite);

uint64_t cpuNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += x;
  return v.empty() ? 0 : s / double(v.size());
}

// Blocks of traced and raw calls alternate; each block is timed with this
// thread's CPU clock, so preemption by other processes on a shared machine
// does not count, and neither does the drain thread (reported apart as
// drain_ns: its CPU time per traced call).
//
// With `inMarkerLoop` each traced call is preceded by the plugin's iteration
// marker, as in a program built with sio-cxx: the drain thread's compressor
// then takes its steady-state path, which drain_ns shows.
//
// The traced and raw calls are given as callables of a descriptor.
template <class TracedCall, class RawCall>
void pairedCalls(benchmark::State &state, bool inMarkerLoop, TracedCall tracedCall, RawCall rawCall) {
  constexpr int kBlock = 512;
  constexpr uint64_t kLoop = 0x5107;
  int t = hot().traced, r = hot().raw;
  std::vector<double> traced, raw;
  uint64_t proc0 = cpuNs(CLOCK_PROCESS_CPUTIME_ID), self0 = cpuNs(CLOCK_THREAD_CPUTIME_ID);
  if (inMarkerLoop)
    __sio_loop_enter(kLoop);
  for (auto _ : state) {
    uint64_t a = cpuNs(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < kBlock; ++i) {
      if (inMarkerLoop)
        __sio_loop_iter(kLoop);
      benchmark::DoNotOptimize(tracedCall(t));
    }
    uint64_t b = cpuNs(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < kBlock; ++i)
      benchmark::DoNotOptimize(rawCall(r));
    uint64_t d = cpuNs(CLOCK_THREAD_CPUTIME_ID);
    traced.push_back(double(b - a) / kBlock);
    raw.push_back(double(d - b) / kBlock);
  }
  if (inMarkerLoop)
    __sio_loop_exit(kLoop);
  uint64_t others = (cpuNs(CLOCK_PROCESS_CPUTIME_ID) - proc0) - (cpuNs(CLOCK_THREAD_CPUTIME_ID) - self0);
  double mt = median(traced), mr = median(raw);
  state.counters["traced_ns"] = mt;
  state.counters["raw_ns"] = mr;
  state.counters["added_ns"] = mt - mr;
  state.counters["ratio"] = mr > 0 ? mt / mr : 0;
  state.counters["added_mean_ns"] = mean(traced) - mean(raw);
  state.counters["drain_ns"] = double(others) / double(traced.size() * kBlock);
  state.SetItemsProcessed(int64_t(state.iterations()) * 2 * kBlock);
}

void pairedPwrite(benchmark::State &state, bool inMarkerLoop) {
  static char c = 'a';
  pairedCalls(
      state, inMarkerLoop, [](int fd) { return pwrite(fd, &c, 1, 0); },
      [](int fd) { return syscall(SYS_pwrite64, fd, &c, 1, 0); });
}

void BM_PairedPwrite(benchmark::State &state) { pairedPwrite(state, false); }
BENCHMARK(BM_PairedPwrite)->Iterations(4000);

void BM_PairedPwriteInMarkerLoop(benchmark::State &state) { pairedPwrite(state, true); }
BENCHMARK(BM_PairedPwriteInMarkerLoop)->Iterations(4000);

// The same wrapper work around a system call whose kernel path is short and
// which glibc does not treat as a cancellation point (docs/runtime.md).
void BM_PairedLseek(benchmark::State &state) {
  pairedCalls(
      state, false, [](int fd) { return lseek(fd, 0, SEEK_SET); },
      [](int fd) { return syscall(SYS_lseek, fd, 0, SEEK_SET); });
}
BENCHMARK(BM_PairedLseek)->Iterations(4000);

// Path calls (docs/runtime.md, "What the runtime never does"): the path is
// read after the call. A stat that succeeds, or fails after the kernel's
// lookup (ENOENT), reads it directly, at no extra system call; one that
// fails before the kernel read the path (EINVAL: fstatat with an invalid
// flag) has it probed with process_vm_readv (PathProbe.cpp). Each against
// the raw system call.
void pairedStat(benchmark::State &state, const char *suffix, int flags) {
  static std::string path;
  static struct stat st;
  static int atFlags;
  path = hot().path + suffix;
  atFlags = flags;
  pairedCalls(
      state, false, [](int) { return fstatat(AT_FDCWD, path.c_str(), &st, atFlags); },
      [](int) { return syscall(SYS_newfstatat, AT_FDCWD, path.c_str(), &st, atFlags); });
}
void BM_PairedStat(benchmark::State &state) { pairedStat(state, "", 0); }
BENCHMARK(BM_PairedStat)->Iterations(4000);
void BM_PairedStatMissing(benchmark::State &state) { pairedStat(state, ".missing", 0); }
BENCHMARK(BM_PairedStatMissing)->Iterations(4000);
void BM_PairedStatBadFlags(benchmark::State &state) { pairedStat(state, "", 0x40000000); }
BENCHMARK(BM_PairedStatBadFlags)->Iterations(4000);

// glibc's pwrite itself, looked up in libc so the wrapper is not in the way.
void BM_PairedLibcPwrite(benchmark::State &state) {
  using PwriteFn = ssize_t (*)(int, const void *, size_t, off_t);
  static auto libcPwrite = reinterpret_cast<PwriteFn>(dlsym(dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD), "pwrite"));
  if (libcPwrite == nullptr) {
    state.SkipWithError("glibc's pwrite not found");
    return;
  }
  static char c = 'a';
  pairedCalls(
      state, false, [](int fd) { return libcPwrite(fd, &c, 1, 0); },
      [](int fd) { return syscall(SYS_pwrite64, fd, &c, 1, 0); });
}
BENCHMARK(BM_PairedLibcPwrite)->Iterations(4000);

// A stdio wrapper without a system call: fputc of one byte on a stream
// fopen'd through the wrapper (recorded), against glibc's own fputc (looked
// up in libc) on the same stream, so both pay the same buffer work and the
// same flushes; `ratio` is traced_ns / raw_ns.
void BM_PairedFputc(benchmark::State &state) {
  using FputcFn = int (*)(int, FILE *);
  static auto libcFputc = reinterpret_cast<FputcFn>(dlsym(dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD), "fputc"));
  // One stream per run of the benchmark (each repetition is a run); the
  // lambdas below cannot capture, so it lives in a static.
  static FILE *stream;
  std::string path = benchPath() + ".fputc";
  stream = fopen(path.c_str(), "w");
  if (libcFputc == nullptr || stream == nullptr) {
    state.SkipWithError("no stream or glibc's fputc not found");
    return;
  }
  pairedCalls(
      state, false, [](int) { return fputc('a', stream); }, [](int) { return libcFputc('a', stream); });
  fclose(stream);
  stream = nullptr;
  unlink(path.c_str());
}
BENCHMARK(BM_PairedFputc)->Iterations(4000);

// fgets of one short line, the other stdio input wrapper that calls into
// glibc twice more: it records the bytes read as the change of the stream
// position (ftello before and after, so a line with a NUL inside is counted
// right). Against glibc's own fgets (looked up in libc) on the same stream,
// reading consecutive 8-byte lines of one file, so both do the same buffer
// work and refills; the file holds a line for every call of the run.
void BM_PairedFgets(benchmark::State &state) {
  using FgetsFn = char *(*)(char *, int, FILE *);
  static auto libcFgets = reinterpret_cast<FgetsFn>(dlsym(dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD), "fgets"));
  static FILE *stream;
  static char line[64];
  constexpr int64_t kLines = 2 * 512 * 400 + 1024; // Iterations(400), blocks of 512 each side
  std::string path = benchPath() + ".fgets";
  {
    std::string lines;
    lines.reserve(size_t(kLines) * 8);
    for (int64_t i = 0; i < kLines; ++i)
      lines += "abcdefg\n";
    FILE *out = std::fopen(path.c_str(), "w");
    bool ok = out && std::fwrite(lines.data(), 1, lines.size(), out) == lines.size();
    if (out)
      ok = std::fclose(out) == 0 && ok;
    stream = ok ? fopen(path.c_str(), "r") : nullptr;
  }
  if (libcFgets == nullptr || stream == nullptr) {
    state.SkipWithError("no input file or glibc's fgets not found");
    unlink(path.c_str());
    return;
  }
  pairedCalls(
      state, false, [](int) { return fgets(line, sizeof line, stream); },
      [](int) { return libcFgets(line, sizeof line, stream); });
  fclose(stream);
  stream = nullptr;
  unlink(path.c_str());
}
BENCHMARK(BM_PairedFgets)->Iterations(400);

// An MPI-IO call: blocks of MPI_File_write_at (the wrapper, with ROMIO's
// inner pwrite recorded as an inner event) alternate with blocks of
// PMPI_File_write_at (no MPI-level record; ROMIO's pwrite still passes the
// pwrite wrapper and is recorded, as a call outside any loop, so added_ns
// leaves out the cost of one pwrite record), on a page-cache file. Each
// traced block is one marker loop of kBlock iterations, as a loop of an
// application built with sio-cxx. Wall time, since the copy into the
// page cache is what a real call costs; medians over blocks. The transfer
// size is the argument: at 64 KiB the copy evicts the wrapper's data from
// the caches between calls, which the 1-byte case does not show.
void BM_PairedMpiWriteAt(benchmark::State &state) {
  if (!g_mpi) {
    state.SkipWithError("SIO_BENCH_NO_MPI is set");
    return;
  }
  constexpr int kBlock = 64;
  constexpr uint64_t kLoop = 0x5108;
  const int xfer = int(state.range(0));
  std::vector<char> buf(size_t(xfer), 'm');
  std::string path = benchPath() + ".mpi";
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) !=
      MPI_SUCCESS) {
    state.SkipWithError("MPI_File_open failed");
    return;
  }
  auto wall = [] { return cpuNs(CLOCK_MONOTONIC); };
  std::vector<double> traced, raw;
  for (auto _ : state) {
    uint64_t a = wall();
    __sio_loop_enter(kLoop);
    for (int i = 0; i < kBlock; ++i) {
      __sio_loop_iter(kLoop);
      MPI_File_write_at(fh, MPI_Offset(i) * xfer, buf.data(), xfer, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    __sio_loop_exit(kLoop);
    uint64_t b = wall();
    for (int i = 0; i < kBlock; ++i)
      PMPI_File_write_at(fh, MPI_Offset(i) * xfer, buf.data(), xfer, MPI_BYTE, MPI_STATUS_IGNORE);
    uint64_t d = wall();
    traced.push_back(double(b - a) / kBlock);
    raw.push_back(double(d - b) / kBlock);
  }
  MPI_File_close(&fh);
  PMPI_File_delete(path.c_str(), MPI_INFO_NULL);
  state.counters["traced_ns"] = median(traced);
  state.counters["raw_ns"] = median(raw);
  state.counters["added_ns"] = median(traced) - median(raw);
  state.counters["added_pct"] = 100.0 * (median(traced) - median(raw)) / median(raw);
  state.SetItemsProcessed(int64_t(state.iterations()) * 2 * kBlock);
}
BENCHMARK(BM_PairedMpiWriteAt)->Arg(1)->Arg(4096)->Arg(65536)->Arg(1 << 20)->Iterations(300);

} // namespace

// MPI is initialized around the benchmarks (the runtime traces MPI-IO only
// between MPI_Init and MPI_Finalize, as in an application).
int main(int argc, char **argv) {
  g_mpi = std::getenv("SIO_BENCH_NO_MPI") == nullptr;
  // PMPI_File_write_at is the untraced baseline of BM_PairedMpiWriteAt: the
  // runtime records PMPI_ calls unless told they are not the program's.
  __sio_pmpi_unrecorded();
  if (const char *idle = std::getenv("SIO_BENCH_IDLE_THREAD"); idle && std::strcmp(idle, "1") == 0)
    std::thread([] {
      for (;;)
        pause();
    }).detach();
  if (g_mpi)
    MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_mpi)
    MPI_Finalize();
  return 0;
}
