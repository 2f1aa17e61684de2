// Overhead of interception: ns per 1-byte pwrite to a hot-cache file, traced
// (through libsiotrace-rt's wrapper, which this binary links) against the raw
// system call, measured paired in one process by alternating blocks.
//
//   SIO_TRACE_FILE=/tmp/bench.sio.json build/bin/sio-runtime-overhead-bench
//
// BM_PairedPwrite reports, per call, medians over blocks of this thread's CPU
// time: traced_ns, raw_ns, added_ns = traced_ns - raw_ns; added_mean_ns (the
// mean, which includes the buffer hand-offs); drain_ns, the drain thread's
// CPU time per traced call (conversion and compression, off the calling
// thread; with SIO_DRAIN_THREAD=0 that cost lands in added_mean_ns instead).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace {

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
void BM_PairedPwrite(benchmark::State &state) {
  constexpr int kBlock = 512;
  int t = hot().traced, r = hot().raw;
  char c = 'a';
  std::vector<double> traced, raw;
  uint64_t proc0 = cpuNs(CLOCK_PROCESS_CPUTIME_ID), self0 = cpuNs(CLOCK_THREAD_CPUTIME_ID);
  for (auto _ : state) {
    uint64_t a = cpuNs(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < kBlock; ++i)
      benchmark::DoNotOptimize(pwrite(t, &c, 1, 0));
    uint64_t b = cpuNs(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < kBlock; ++i)
      benchmark::DoNotOptimize(syscall(SYS_pwrite64, r, &c, 1, 0));
    uint64_t d = cpuNs(CLOCK_THREAD_CPUTIME_ID);
    traced.push_back(double(b - a) / kBlock);
    raw.push_back(double(d - b) / kBlock);
  }
  uint64_t others = (cpuNs(CLOCK_PROCESS_CPUTIME_ID) - proc0) - (cpuNs(CLOCK_THREAD_CPUTIME_ID) - self0);
  double mt = median(traced), mr = median(raw);
  state.counters["traced_ns"] = mt;
  state.counters["raw_ns"] = mr;
  state.counters["added_ns"] = mt - mr;
  state.counters["added_mean_ns"] = mean(traced) - mean(raw);
  state.counters["drain_ns"] = double(others) / double(traced.size() * kBlock);
  state.SetItemsProcessed(int64_t(state.iterations()) * 2 * kBlock);
}
BENCHMARK(BM_PairedPwrite)->Iterations(4000);

} // namespace

BENCHMARK_MAIN();
