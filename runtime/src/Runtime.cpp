// The runtime's life in a process: the state Runtime.h declares, start-up
// (settings, clock calibration, the marker that tells the programs a traced
// one starts what they are), MPI_Init, fork, and the registration of the
// instrumented modules' site and loop tables. The drain side is Drain.cpp,
// the trace RankTrace.cpp, its merge Merge.cpp, the other ends ExitTraces.cpp.
#include "RuntimeState.h"

#include "MpiIoEnv.h"
#include "Signals.h"
#include "Tools.h"
#include "TracePath.h"
#include "WriterProcess.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace sio::rt {

using namespace detail;

const CallInfo kCallInfo[kNumCalls] = {
#define SIO_IO_CALL(NAME, LAYER, OP, ...) {#NAME, #OP, sio::trace::Layer::LAYER},
#include "sio/IoCalls.def"
};

thread_local ThreadState tls __attribute__((tls_model("initial-exec")));
std::atomic<bool> g_active{false};
std::atomic<bool> g_countUnrecorded{false};
std::atomic<uint64_t> g_unrecorded{0};
std::atomic<bool> g_dropping{false};
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint32_t> g_inexact{0};
StreamMarks g_streamMarks[kMaxFd];
std::atomic<uint64_t> g_seq{0};
std::atomic<bool> g_manyThreads{false};
unsigned g_layers = kLayerAll;
std::atomic<int32_t> g_fdCode[kMaxFd];
std::atomic<int32_t> g_streamCode[kMaxFd];
std::atomic<int32_t> g_dirCode[kMaxFd];

namespace {

// ---- processes started by a traced one -------------------------------------------

/// "SIO_TRACING_PID=<pid>", put into the environment at start-up and updated
/// in place (no reallocation of environ once threads run): the process that
/// traces (it initialised MPI or recorded a file) names itself there, so the
/// programs it starts know they are its children.
constexpr size_t kTracingEnvPrefix = sizeof("SIO_TRACING_PID=") - 1;
char g_tracingEnv[48] = "SIO_TRACING_PID=";

void calibrate(State &s) {
#if defined(__x86_64__) || defined(__i386__)
  // (mono, tsc, mono) triples with a tight bracket, 2 ms apart.
  auto sample = [](uint64_t &ns, uint64_t &tsc) {
    for (int i = 0; i < 100; ++i) {
      timespec a, b;
      clock_gettime(CLOCK_MONOTONIC, &a);
      uint64_t t = __rdtsc();
      clock_gettime(CLOCK_MONOTONIC, &b);
      uint64_t na = uint64_t(a.tv_sec) * 1000000000ull + uint64_t(a.tv_nsec);
      uint64_t nb = uint64_t(b.tv_sec) * 1000000000ull + uint64_t(b.tv_nsec);
      if (nb - na < 2000 || i == 99) {
        ns = (na + nb) / 2;
        tsc = t;
        return;
      }
    }
  };
  uint64_t n0, c0, n1, c1;
  sample(n0, c0);
  do
    sample(n1, c1);
  while (n1 - n0 < 2000000);
  s.nsPerTick = c1 > c0 ? double(n1 - n0) / double(c1 - c0) : 1.0;
#else
  s.nsPerTick = 1.0;
#endif
}

bool printsWarnings() {
  // One warning per job: rank 0 only (Hydra/PMI set PMI_RANK before main).
  const char *r = std::getenv("PMI_RANK");
  if (!r)
    r = std::getenv("OMPI_COMM_WORLD_RANK");
  return !r || std::strcmp(r, "0") == 0;
}

// ---- fork ------------------------------------------------------------------------

// The runtime's locks are held across fork(), so the child's copy of the state
// is consistent (no thread was half-way through an update) and no lock is
// left held by a thread that does not exist in the child.
void forkPrepare() {
  ++tls.blocked;
  S().mu.lock();
  Q().mu.lock();
}

void forkParent() {
  Q().mu.unlock();
  S().mu.unlock();
  --tls.blocked;
}

void forkChild() {
  State &s = S();
  DrainQueue &q = Q();
  // The recursive mutex records the parent's thread id as its owner, which the
  // child's thread does not have: fresh locks instead of unlocking.
  new (&q.mu) std::mutex;
  new (&q.cv) std::condition_variable;
  new (&s.mu) std::recursive_mutex;
  --tls.blocked;
  // Only this thread exists: no drain thread, and the other threads' buffers
  // (and the queued ones) are the parent's records.
  q.started = false;
  q.filled = 0;
  s.pid = getpid();
  if (s.finished || !s.settings.traceChildren) {
    g_active.store(false);
    s.finished = true;
    return;
  }
  s.role = Role::Child;
  s.buffers = nullptr;
  tls.buf = nullptr;
  q.blocks.store(q.freeBlocks.size());
  s.nextSeq = g_seq.load();
  tls.depth = tls.mpiioOpen = tls.inTool = 0;
  s.comp = IntraRankCompressor();
  s.events = 0;
  s.capNotes.clear();
  g_dropped.store(0);
  g_inexact.store(0);
  g_dropping.store(false);
  s.mpiInitialized = false; // a child cannot use its parent's MPI
  s.mergeComm = MPI_COMM_NULL;
  s.rank = 0;
  s.nranks = 1;
  s.startTicks = ticks();
  s.mpiInitEndTicks = 0;
}

__attribute__((constructor(101))) void runtimeConstructor() { ensureInit(); }

} // namespace

namespace detail {

void markTracingProcess(State &s) {
  s.marked = true;
  if (s.role != Role::Root)
    return; // its own children count as the tracer's
  std::snprintf(g_tracingEnv + kTracingEnvPrefix, sizeof g_tracingEnv - kTracingEnvPrefix, "%ld", long(s.pid));
}

} // namespace detail

uint64_t ticksToNs(uint64_t t) { return uint64_t(double(t) * S().nsPerTick); }

void ensureInit() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (s.initialized)
    return;
  s.initialized = true;
  s.settings = parseSettingsFromEnvironment(s.warnings);
  openMessageFd();
  if (printsWarnings())
    for (const auto &w : s.warnings)
      message(w);
  if (s.settings.disable)
    return;
  s.pid = getpid();
  s.launchSlot = launchSlotFromEnvironment();
  // A program a traced process started (system("cat ..."), a script) inherits
  // LD_PRELOAD and SIO_TRACE_FILE: it must not write over that trace.
  const char *tracer = std::getenv("SIO_TRACING_PID");
  if (tracer && *tracer && std::strtol(tracer, nullptr, 10) != long(s.pid))
    s.role = s.settings.traceChildren ? Role::Child : Role::Silent;
  if (isLauncher(exeBaseName()))
    s.role = Role::Silent; // records nothing of its own, and the ranks it starts trace as the program
  std::snprintf(g_tracingEnv + kTracingEnvPrefix, sizeof g_tracingEnv - kTracingEnvPrefix, "%s", tracer ? tracer : "");
  putenv(g_tracingEnv); // updated in place from now on (markTracingProcess)
  if (const char *pred = std::getenv(kExecPredecessorVar)) {
    // "<pid>:<generation>:<trace path>", set by this process's previous
    // image just before its exec (prepareExec); a program it starts is
    // another process and ignores it.
    char *rest = nullptr;
    const long pid = std::strtol(pred, &rest, 10);
    const unsigned long generation = *rest == ':' ? std::strtoul(rest + 1, &rest, 10) : 0;
    if (pid == long(s.pid) && s.role != Role::Silent && *rest == ':') {
      s.execPredecessor = rest + 1;
      s.execGeneration = unsigned(generation);
    }
    unsetenv(kExecPredecessorVar); // the application's environment as untraced
  }
  g_layers = s.settings.layers;
  findToolLibraries();
  Q().blockRecords = size_t(s.settings.bufferRecords);
  pthread_atfork(forkPrepare, forkParent, forkChild);
  calibrate(s);
  s.startTicks = ticks();
  char buf[64];
  std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  s.startTime = buf;
  // The trace goes where the user started the program, even if it chdirs
  // (a replay works inside its replay root).
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd))
    s.startDirectory = std::string(cwd) + "/";
  installSignalHandlers();
  std::atexit(finishNoMpi);
  g_active.store(true);
}

void onMpiInitialized() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  s.mpiInitialized = true;
  if (s.role == Role::Silent)
    s.role = Role::Root; // an MPI rank started by a traced launcher
  markTracingProcess(s);
  PMPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &s.nranks);
  // A private communicator: the merge's messages never meet the program's.
  PMPI_Comm_dup(MPI_COMM_WORLD, &s.mergeComm);
  // ROMIO reads these at each MPI_File_open; a program may set them itself
  // before MPI_Init (ROMIO's syshints test sets ROMIO_HINTS), so they are
  // read now rather than at start-up.
  s.mpiIoEnv.clear();
  s.romioHintsContents.reset();
  for (std::string_view name : kMpiIoEnv)
    if (const char *value = getenv(std::string(name).c_str())) {
      s.mpiIoEnv.emplace_back(name, value);
      if (name == "ROMIO_HINTS")
        s.romioHintsContents = readRomioHintsFile(value);
    }
  if (toolBeforeTracer())
    noteInexact(Inexact::ToolFirst);
  s.mpiInitEndTicks = ticks();
}

void registerTables(const void *sb, const void *se, const void *lb, const void *le) {
  RegisteredTables rt{static_cast<const SioSiteDesc *>(sb), static_cast<const SioSiteDesc *>(se),
                      static_cast<const SioLoopDesc *>(lb), static_cast<const SioLoopDesc *>(le)};
  // Module constructors may run before ours: S() is created on first use.
  State &s = S();
  std::lock_guard lk(s.mu);
  s.tables.push_back(rt);
}

} // namespace sio::rt
