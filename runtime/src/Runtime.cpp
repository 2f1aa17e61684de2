// Runtime lifecycle and the drain side: settings, per-thread buffers, record
// conversion into the IntraRankCompressor, the rank's trace, the binomial
// merge at MPI_Finalize, partial traces (the signals that ask for them are
// Signals.cpp's), the trace file.
#include "Runtime.h"

#include "compress/InterRank.h"
#include "compress/IntraRank.h"
#include "MemoryBudget.h"
#include "MpiIoEnv.h"
#include "RomioNames.h"
#include "Signals.h"
#include "Tools.h"
#include "TracePath.h"
#include "WriterProcess.h"
#include "sio/siotrace_abi.h"
#include "sio/trace/AtomicFile.h"
#include "sio/trace/Json.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <pthread.h>
#include <thread>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#ifndef SIO_VERSION
#define SIO_VERSION "0.1.0"
#endif

namespace sio::rt {

using namespace sio::trace;

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


struct RegisteredTables {
  const SioSiteDesc *sb, *se;
  const SioLoopDesc *lb, *le;
};

/// Everything the drain and finalize side owns. Heap-allocated and never
/// destroyed: atexit handlers and signal handlers may run after static
/// destructors.
/// Who this process is among the processes a traced one starts: the traced
/// program (or an MPI rank), a child with a trace of its own
/// (SIO_TRACE_CHILDREN=1), or a child that writes nothing.
enum class Role { Root, Child, Silent };

struct State {
  std::recursive_mutex mu;
  Settings settings;
  std::string startDirectory; ///< cwd at start-up (with '/'): relative trace paths resolve against it
  Role role = Role::Root;
  /// One of several processes of a launch (PMI_RANK/PMI_SIZE at start-up):
  /// without MPI they cannot merge, so each names its own trace.
  std::optional<LaunchSlot> launchSlot;
  pid_t pid = 0;
  bool marked = false; ///< SIO_TRACING_PID names this process
  std::vector<std::string> warnings;
  bool initialized = false;
  bool finished = false;
  bool mpiInitialized = false;
  int rank = 0;
  int nranks = 1;
  MPI_Comm mergeComm = MPI_COMM_NULL;
  IntraRankCompressor comp;
  uint64_t events = 0;
  std::vector<std::string> capNotes;
  ThreadBuffer *buffers = nullptr;
  std::vector<std::string> files;
  std::unordered_map<std::string, int64_t> fileIds;
  std::vector<std::string> strings;
  std::unordered_map<std::string, int64_t> stringIds;
  /// What the tables hold, and what the files will take at finalize: both
  /// count against SIO_MEMORY_CAP (MemoryBudget.h).
  InternedTableBytes fileBytes, stringBytes;
  size_t freshSinceCapCheck = 0;
  /// Calls of this rank and of the ranks whose traces it merged (recorded
  /// and dropped): what a parent counts as dropped if it cannot take them.
  uint64_t subtreeCalls = 0;
  uint64_t startTicks = 0;
  /// When MPI_Init returned: the first gap after it starts there, since a
  /// replay runs its own MPI_Init before it (MPI_Init is not an event).
  uint64_t mpiInitEndTicks = 0;
  std::string startTime;
  /// The MPI-IO variables of the environment at MPI_Init (MpiIoEnv.h), name and value.
  std::vector<std::pair<std::string, std::string>> mpiIoEnv;
  /// The contents of the file ROMIO_HINTS names, when it could be recorded.
  std::optional<std::string> romioHintsContents;
  double nsPerTick = 1.0;
  std::vector<RegisteredTables> tables;
  /// The next sequence number to convert, and how long it has been missing
  /// (a call that took it has not published yet).
  uint64_t nextSeq = 0;
  uint64_t gapSeq = UINT64_MAX;
  double gapSinceMs = 0;
  uint64_t gapsSkipped = 0;
  int finalWaits = 0;
  uint64_t convertedSinceCapCheck = 0;
  /// This image was started by exec from a traced image of the same process,
  /// whose calls are in `execPredecessor` (ProcessImage.cpp); its generation
  /// numbers the partial traces of a chain of execs.
  std::string execPredecessor;
  unsigned execGeneration = 0;
};

/// Block storage and the drain thread's wake-ups. Its own lock, held only for
/// the free list and the wake-up count, so a thread starting a block never
/// waits for conversion.
struct DrainQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Block *> freeBlocks;
  size_t blockRecords = 0;
  bool started = false;
  uint64_t filled = 0;           ///< blocks filled since the drain thread looked
  std::atomic<size_t> blocks{0}; ///< blocks allocated (memory held)
};
DrainQueue &Q() {
  static DrainQueue *q = new DrainQueue;
  return *q;
}
constexpr uint64_t kMaxQueued = 16; // blocks a thread may have unconverted before it converts itself

State &S() {
  static State *s = new State;
  return *s;
}


// ---- the runtime's own descriptor for messages ---------------------------------

/// A duplicate of the standard error the process started with, at the top of
/// the descriptor range (the soft RLIMIT_NOFILE, at most kMaxFd), close-on-
/// exec: a program that closes fd 2 and opens a data file there never
/// receives the runtime's messages, and the descriptors a program gets are
/// the ones it gets untraced (POSIX hands out the lowest free one; a fixed
/// low duplicate such as 512 shifted every later one by one).
int g_msgFd = -1;
bool g_msgTried = false;
dev_t g_msgDev = 0;
ino_t g_msgIno = 0;

void openMessageFd() {
  struct stat st;
  if (g_msgTried)
    return;
  g_msgTried = true;
  if (fstat(2, &st) != 0)
    return;
  struct rlimit lim;
  long top = kMaxFd; // the kernel sizes the descriptor table to the highest one: no higher
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    top = std::min<long>(top, long(lim.rlim_cur));
  int fd = -1;
  // The highest free descriptor: F_DUPFD takes the lowest free one >= its
  // argument, so walk down from the top past any the program already holds.
  for (long want = top - 1; fd < 0 && want >= 3 && want >= top - 64; --want)
    fd = fcntl(2, F_DUPFD_CLOEXEC, int(want));
  if (fd < 0)
    return;
  g_msgFd = fd;
  g_msgDev = st.st_dev;
  g_msgIno = st.st_ino;
}

// ---- processes started by a traced one -------------------------------------------

/// "SIO_TRACING_PID=<pid>", put into the environment at start-up and updated
/// in place (no reallocation of environ once threads run): the process that
/// traces (it initialised MPI or recorded a file) names itself there, so the
/// programs it starts know they are its children.
constexpr size_t kTracingEnvPrefix = sizeof("SIO_TRACING_PID=") - 1;
char g_tracingEnv[48] = "SIO_TRACING_PID=";

void markTracingProcess(State &s) {
  s.marked = true;
  if (s.role != Role::Root)
    return; // its own children count as the tracer's
  std::snprintf(g_tracingEnv + kTracingEnvPrefix, sizeof g_tracingEnv - kTracingEnvPrefix, "%ld",
                long(s.pid));
}

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

std::string exeBaseName() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "program";
  buf[n] = 0;
  const char *slash = std::strrchr(buf, '/');
  return slash ? slash + 1 : buf;
}

std::vector<std::string> commandLine() {
  std::vector<std::string> args;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0'))
    args.push_back(arg);
  return args;
}

std::string tracePath(const State &s) {
  if (s.role == Role::Child) // next to the application's trace, never in its place
    return childTracePath(s.settings.traceFile, s.startDirectory, exeBaseName(), long(s.pid));
  // MPI ranks merge into one trace: the launch's slot names only a process
  // that never initialised MPI.
  const auto slot = s.mpiInitialized ? std::nullopt : s.launchSlot;
  return chooseTracePath(s.settings.traceFile, s.startDirectory, defaultTraceName(exeBaseName(), s.nranks, slot), slot);
}

void convert(State &s, ThreadBuffer *b, const Record &r) {
  if (r.iter)
    s.comp.loopIter(r.iter);
  switch (r.kind) {
  case RecKind::LoopEnter: s.comp.loopEnter(r.id); return;
  case RecKind::LoopExit: s.comp.loopExit(r.id); return;
  case RecKind::Void:
    return;
  case RecKind::Event: break;
  }
  const CallInfo &ci = kCallInfo[r.call];
  RawParam params[kMaxSlots]; // the first r.nslots are filled
  for (int i = 0; i < r.nslots; ++i)
    params[i] = {r.slots[i].name, nullptr, r.slots[i].value};
  for (unsigned mask = r.strMask; mask; mask &= mask - 1) { // text slots (file names, modes): rare
    int i = __builtin_ctz(mask);
    int64_t id = r.slots[i].value;
    static const std::string kNoString;
    params[i].text = id >= 0 && size_t(id) < s.strings.size() ? &s.strings[size_t(id)] : &kNoString;
  }
  RawEvent ev;
  ev.op = ci.op;
  ev.layer = ci.layer;
  ev.site = r.id;
  ev.inner = r.inner != 0;
  ev.params = params;
  ev.nparams = r.nslots;
  // Compute time: since the previous event of this thread, or since MPI_Init
  // returned if that is later; inner events count from the start of their
  // MPI-IO call or the previous inner event.
  uint64_t &ref = r.inner ? b->lastInnerRef : b->lastEnd;
  if (ref == 0)
    ref = s.startTicks;
  if (s.mpiInitEndTicks && ref < s.mpiInitEndTicks && r.t0 >= s.mpiInitEndTicks)
    ref = s.mpiInitEndTicks;
  const double nsPerTick = s.nsPerTick;
  ev.computeNs = r.t0 > ref ? uint64_t(double(r.t0 - ref) * nsPerTick) : 0;
  ev.durationNs = r.t1 > r.t0 ? uint64_t(double(r.t1 - r.t0) * nsPerTick) : 0;
  if (r.inner) {
    ref = r.t1;
  } else {
    b->lastEnd = r.t1;
    b->lastInnerRef = r.t0;
  }
  s.comp.event(ev);
  ++s.events;
}

size_t blockBytes(const DrainQueue &q) {
  return (sizeof(Block) + q.blockRecords * sizeof(Record) + 63) / 64 * 64;
}

double nowMs();

/// The memory the cap counts while the rank traces: compressor state,
/// record blocks, the file and string tables, and what the file table will
/// take at finalize (reserved now, so that finalize fits too).
size_t heldBytes(State &s) {
  size_t b = s.comp.approxBytes() + Q().blocks.load(std::memory_order_relaxed) * blockBytes(Q()) +
             s.fileBytes.heldBytes() + s.fileBytes.finalizeBytes() + s.stringBytes.heldBytes();
  // Heap fragmentation: the tables freed at finalize leave holes the trace
  // does not fill exactly (measured: up to ~1/10 of the heap in RSS).
  return b + b / 8;
}

void checkCap(State &s) {
  if (g_dropping.load())
    return;
  if (heldBytes(s) > s.settings.memoryCap) {
    g_dropping.store(true);
    s.capNotes.push_back("memory cap SIO_MEMORY_CAP=" + std::to_string(s.settings.memoryCap) +
                         " bytes reached after " + std::to_string(s.events) + " events on rank " +
                         std::to_string(s.rank) + " (file table: " + std::to_string(s.fileBytes.entries()) +
                         " names, string table: " + std::to_string(s.stringBytes.entries()) +
                         "); later events were dropped");
  }
}

/// A block for a thread's stream: from the free list, or new.
Block *takeBlock(DrainQueue &q) {
  {
    std::lock_guard lk(q.mu);
    if (!q.freeBlocks.empty()) {
      Block *b = q.freeBlocks.back();
      q.freeBlocks.pop_back();
      b->next.store(nullptr, std::memory_order_relaxed);
      return b;
    }
  }
  void *mem = std::aligned_alloc(64, blockBytes(q));
  if (!mem)
    return nullptr;
  q.blocks.fetch_add(1, std::memory_order_relaxed);
  return new (mem) Block;
}

/// Gives the blocks no thread uses back to the system (at finalize: a thread
/// that calls on starts a block of its own).
void freeSpareBlocks(DrainQueue &q) {
  std::lock_guard lk(q.mu);
  for (Block *b : q.freeBlocks) {
    b->~Block();
    std::free(b);
  }
  q.blocks.fetch_sub(q.freeBlocks.size(), std::memory_order_relaxed);
  std::vector<Block *>().swap(q.freeBlocks);
}

void recycle(DrainQueue &q, Block *block) {
  std::lock_guard lk(q.mu);
  q.freeBlocks.push_back(block);
}

/// The record at the drain side's position in b's stream, moving on to the
/// next block (and giving the finished one back) at a block's end. The
/// caller checked that the position is below `published`.
Record *headRecord(DrainQueue &q, ThreadBuffer *b) {
  uint64_t off = b->consumed - b->rdBlock->base;
  if (off == q.blockRecords) {
    // Published past this block's end: the thread linked the next one first.
    Block *nx = b->rdBlock->next.load(std::memory_order_acquire);
    recycle(q, b->rdBlock);
    b->recycled.fetch_add(1, std::memory_order_relaxed);
    b->rdBlock = nx;
    off = 0;
  }
  return b->rdBlock->records() + off;
}

/// Converts the call at b's position and the inner events that follow it,
/// then b's next calls for as long as each is the rank's next in sequence
/// order (every call of a rank that records on one thread), without going
/// back to the search over all threads' buffers.
void convertRun(State &s, DrainQueue &q, ThreadBuffer *b) {
  Record *h = headRecord(q, b);
  while (true) {
    uint64_t seq = h->seq;
    convert(s, b, *h);
    ++b->consumed;
    Record *next = nullptr;
    while (b->consumed < b->seen) {
      Record *r = headRecord(q, b);
      if ((r->kind != RecKind::Event && r->kind != RecKind::Void) || !r->inner) {
        next = r;
        break;
      }
      convert(s, b, *r);
      ++b->consumed;
    }
    if (seq >= s.nextSeq)
      s.nextSeq = seq + 1;
    if (++s.convertedSinceCapCheck >= q.blockRecords || g_dropping.load(std::memory_order_relaxed)) {
      s.convertedSinceCapCheck = 0;
      checkCap(s);
    }
    writerProgress(); // a partial trace's conversion moves on (WriterProcess.h)
    if (!next || next->open || next->seq > s.nextSeq)
      return;
    h = next;
  }
}

/// Converts what all threads have published, in the rank's sequence order:
/// the call holding the next number, wherever it is (calls that published
/// after a later one, which only a signal handler interrupting a call can
/// cause, right away). A number taken by a call that has not published yet
/// is waited for: by the drain thread for up to a second (it comes back
/// later), at the end (`final`) up to ~200 ms in all; then it is skipped
/// and counted. False if stopped at such a gap. Caller holds State::mu.
bool convertPublished(State &s, bool final) {
  DrainQueue &q = Q();
  ThreadBuffer *last = nullptr;
  while (true) {
    ThreadBuffer *hit = nullptr;
    uint64_t minSeq = UINT64_MAX;
    bool any = false;
    auto consider = [&](ThreadBuffer *b) {
      // `published` is read only when what was seen of it is used up: each
      // read pulls the cache line from the writing thread.
      if (b->consumed >= b->seen && b->consumed >= (b->seen = b->published.load(std::memory_order_acquire)))
        return false;
      Record *h = headRecord(q, b);
      if (h->open)
        return false; // interrupted by a signal whose handler's call published
      any = true;
      if (h->seq <= s.nextSeq) {
        hit = b;
        return true;
      }
      minSeq = std::min(minSeq, h->seq);
      return false;
    };
    if (!last || !consider(last))
      for (ThreadBuffer *b = s.buffers; b && !hit; b = b->next)
        if (b != last)
          consider(b);
    if (hit) {
      convertRun(s, q, hit);
      last = hit;
      continue;
    }
    if (!any)
      return true;
    if (final) {
      if (s.finalWaits < 200) {
        ++s.finalWaits;
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, nullptr);
        continue;
      }
    } else {
      double now = nowMs();
      if (s.gapSeq != s.nextSeq) {
        s.gapSeq = s.nextSeq;
        s.gapSinceMs = now;
      }
      if (now - s.gapSinceMs < 1000)
        return false;
    }
    s.gapsSkipped += minSeq - s.nextSeq;
    s.nextSeq = minSeq;
  }
}

void drainThreadMain() {
  ++tls.blocked; // nothing this thread does is the application's
  // A process-directed SIGTERM must reach a thread that can write the
  // partial trace: on this one (blocked) the handler would skip it.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  State &s = S();
  DrainQueue &q = Q();
  bool stalled = false;
  while (true) {
    {
      std::unique_lock lk(q.mu);
      if (stalled)
        q.cv.wait_for(lk, std::chrono::milliseconds(1), [&] { return q.filled > 0; });
      else
        q.cv.wait(lk, [&] { return q.filled > 0; });
      q.filled = 0;
    }
    std::lock_guard lk(s.mu);
    stalled = !s.finished && !convertPublished(s, false);
  }
}

void drainAll(State &s) { convertPublished(s, true); }

void collectIds(const std::vector<Node> &nodes, std::set<uint64_t> &sites, std::set<uint64_t> &loops) {
  for (const Node &n : nodes) {
    if (n.isEvent()) {
      if (n.event().site)
        sites.insert(n.event().site);
    } else {
      if (n.loop().id)
        loops.insert(n.loop().id);
      collectIds(n.loop().body, sites, loops);
    }
  }
}

/// Site and loop descriptors of the ids the trace uses (and their parents),
/// so the tables do not grow with the program.
void fillSiteTables(State &s, Trace &t) {
  std::set<uint64_t> sites, loops;
  collectIds(t.body, sites, loops);
  const std::vector<RegisteredTables> &all = s.tables;
  std::unordered_map<uint64_t, const SioLoopDesc *> loopById;
  for (const auto &rt : all)
    for (const SioLoopDesc *l = rt.lb; l && l < rt.le; ++l)
      loopById.emplace(l->id, l);
  for (const auto &rt : all)
    for (const SioSiteDesc *d = rt.sb; d && d < rt.se; ++d)
      if (sites.erase(d->id)) {
        t.sites.push_back({d->id, d->file ? d->file : "", d->line, d->column, d->function ? d->function : "",
                           d->callee ? d->callee : "", d->loop_id});
        if (d->loop_id)
          loops.insert(d->loop_id);
      }
  std::set<uint64_t> done;
  std::vector<uint64_t> todo(loops.begin(), loops.end());
  while (!todo.empty()) {
    uint64_t id = todo.back();
    todo.pop_back();
    if (!done.insert(id).second)
      continue;
    auto it = loopById.find(id);
    if (it == loopById.end())
      continue;
    const SioLoopDesc *l = it->second;
    t.loops.push_back({l->id, l->file ? l->file : "", l->line, l->column, l->function ? l->function : "",
                       l->parent_id});
    if (l->parent_id)
      todo.push_back(l->parent_id);
  }
  std::sort(t.sites.begin(), t.sites.end(), [](auto &a, auto &b) { return a.id < b.id; });
  std::sort(t.loops.begin(), t.loops.end(), [](auto &a, auto &b) { return a.id < b.id; });
}

/// This rank's trace: header, tables, compressed body.
Trace buildRankTrace(State &s) {
  drainAll(s);
  writerProgress();
  Trace t;
  t.header.version = kFormatVersion;
  t.header.generator = "sio-runtime " SIO_VERSION;
  t.header.program = exeBaseName();
  t.header.commandLine = commandLine();
  t.header.nranks = s.nranks;
  t.header.droppedEvents = g_dropped.load();
  t.header.complete = t.header.droppedEvents == 0;
  t.header.inexact = inexactReasons(g_inexact.load());
  for (const auto &n : s.capNotes)
    t.header.notes.push_back(n);
  if (!s.execPredecessor.empty())
    // This program's calls are all here; the process's earlier ones are not.
    t.header.notes.push_back("this program was started by exec from a traced program of the same process; "
                             "the calls made before the exec are in " +
                             s.execPredecessor);
  if (g_inexact.load() & uint32_t(Inexact::ToolFirst)) {
    // Reads the tool served are missing: the trace must not say complete.
    t.header.complete = false;
    t.header.notes.push_back("libsio-prefetch.so intercepted MPI-IO before the tracer: the application's MPI-IO "
                             "calls it served are not in this trace");
  }
  if (toolBehindTracer())
    // The application's calls are as made; what MPI did under them is not
    // what it would do without the tool.
    t.header.notes.push_back("MPI calls went through libsio-prefetch.so (loaded after the tracer): the "
                             "application's calls are recorded as made; the inner POSIX calls under them are "
                             "what MPI did for the prefetcher, which served some reads from its cache");
  if (s.gapsSkipped)
    t.header.notes.push_back(std::to_string(s.gapsSkipped) + " calls on rank " + std::to_string(s.rank) +
                             " were still in progress at the end; calls of different threads around them "
                             "may be out of order");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  t.header.metadata["hostname"] = host;
  t.header.metadata["start_time"] = s.startTime;
  for (const auto &[name, value] : s.mpiIoEnv)
    t.header.metadata[std::string(kMpiIoEnvPrefix) + name] = value;
  if (s.romioHintsContents)
    t.header.metadata[std::string(kRomioHintsContentsKey)] = *s.romioHintsContents;
  // The names move into the trace and the runtime's tables are freed: no
  // name is held twice at finalize (MemoryBudget.h counts it so). Nothing is
  // recorded after this (s.finished).
  std::unordered_map<std::string, int64_t>().swap(s.fileIds); // first: the peak is lower
  t.files.reserve(s.files.size());
  for (size_t i = 0; i < s.files.size(); ++i) {
    FileEntry f;
    f.id = int64_t(i);
    markRomioTemporary(s.files[i]);
    f.name.push_back(FileNamePart{std::move(s.files[i]), std::nullopt, 0});
    t.files.push_back(std::move(f));
  }
  std::vector<std::string>().swap(s.files);
  std::vector<std::string>().swap(s.strings);
  std::unordered_map<std::string, int64_t>().swap(s.stringIds);
  freeSpareBlocks(Q());
  writerProgress();
  fillObjectTables(t, s.rank);
  t.body = s.comp.finish(s.rank, s.nranks);
  seedRankTiming(t.body, s.rank); // per-rank timing for the merge, from the stats the calls added to
  writerProgress();
  formatLoopFileNames(t, s.rank); // dir.<rank>/file.<rank>.<i0>: one entry per format
  return t;
}

/// Testing hook: SIO_TEST_FINALIZE_FAULT=stall-in-signal:RANK makes the
/// partial write of a signal handler stop moving for good, as a lock of libc
/// held by the interrupted code would: the handler must end the writer
/// process (WriterProcess.h) and go on to the signal's action.
void testStallInSignal(const State &s) {
  static const char *spec = std::getenv("SIO_TEST_FINALIZE_FAULT");
  if (spec == nullptr || "stall-in-signal:" + std::to_string(s.rank) != spec)
    return;
  const struct timespec second = {1, 0};
  while (true)
    nanosleep(&second, nullptr);
}

/// Testing hook: SIO_TEST_FINALIZE_FAULT=term-in-write:RANK (kill-in-write)
/// sends the process SIGTERM (SIGKILL) once the first piece of the final
/// trace is written, as a batch system's kill landing then would.
void testSignalInWrite(const State &s) {
  static const char *spec = std::getenv("SIO_TEST_FINALIZE_FAULT");
  static bool sent = false;
  if (spec == nullptr || sent)
    return;
  const std::string rank = ":" + std::to_string(s.rank);
  if (spec == "term-in-write" + rank) {
    sent = true;
    kill(getpid(), SIGTERM);
  } else if (spec == "kill-in-write" + rank) {
    sent = true;
    kill(getpid(), SIGKILL);
  }
}

/// Writes a trace file (streamed, through a temporary: AtomicFile.h). Outside
/// a signal handler a SIGTERM is held until the file is in place; inside
/// one (in the writer process), every piece tells the handler the write is
/// moving. `final`: the
/// run's trace, after which temporaries that killed runs left beside it go.
bool writeTrace(State &s, Trace &t, const std::string &path, bool fromSignal, bool final) {
  std::optional<HeldTermination> hold;
  if (!fromSignal)
    hold.emplace();
  try {
    writeFileAtomically(path, [&](const TextSink &sink) {
      writeTraceTo(
          [&](std::string_view piece) {
            writerProgress();
            sink(piece);
            if (final)
              testSignalInWrite(s);
          },
          t);
    });
    if (final)
      removeStaleTemporaries(path);
    if (s.settings.verbose)
      message("sio: rank " + std::to_string(s.rank) + " wrote " + path);
    return true;
  } catch (const std::exception &e) {
    message(std::string("sio: warning: could not write the trace: ") + e.what());
    return false;
  }
}

/// The one line at exit that says where the trace went and whether it is
/// whole (docs/runtime.md, "At exit"): a dropped-events trace must not look
/// like a good one. Off with SIO_QUIET=1. `what`: "trace" or "partial trace".
void reportTrace(const State &s, const Trace &t, const std::string &path, const char *what) {
  if (s.settings.quiet)
    return;
  std::string state = "complete";
  if (!t.header.complete) {
    state = "INCOMPLETE: ";
    // Any rank's cap note (merged into the header) names the cause.
    const bool cap = std::any_of(t.header.notes.begin(), t.header.notes.end(),
                                 [](const std::string &n) { return n.find("SIO_MEMORY_CAP") != std::string::npos; });
    if (t.header.droppedEvents)
      state += std::to_string(t.header.droppedEvents) + " events dropped" + (cap ? " past SIO_MEMORY_CAP" : "") + "; ";
    else if (!t.header.notes.empty())
      state += t.header.notes.back() + "; ";
    state += "see sio-trace stats";
  }
  message(std::string("sio: ") + what + " written to " + path + " (" + state + ")");
}

// ---- merge over PMPI point-to-point -------------------------------------------

/// Testing hook (docs/runtime.md, "Testing hooks"): SIO_TEST_FINALIZE_FAULT=
/// STAGE:RANK makes that rank fail at that stage of finalize (build, send,
/// recv, finish), as a failed allocation would, so the tests can check that
/// the application still ends normally.
void testFault(const State &s, const char *stage) {
  static const char *spec = std::getenv("SIO_TEST_FINALIZE_FAULT");
  if (spec == nullptr)
    return;
  const std::string want = std::string(stage) + ":" + std::to_string(s.rank);
  if (want == spec)
    throw std::runtime_error(std::string("injected fault at ") + stage + " (SIO_TEST_FINALIZE_FAULT)");
}


constexpr int kTagHead = 0x510, kTagData = 0x511, kTagGo = 0x512;

/// The trace goes up as compact JSON: first its size and the subtree's call
/// count; the parent answers whether it has room for it under the cap; if
/// so, the text follows in pieces of ~64 KiB as the writer makes them (it
/// is never held whole on this side: the size comes from a first pass
/// that only counts).
///
/// Whatever fails on this side, the parent receives exactly the bytes
/// announced (the protocol must end, or the parent waits forever in
/// MPI_Finalize): a trace that cannot be measured is sent as an empty one
/// that says why; a text that fails half-way is padded, and the parent,
/// which cannot read it, notes the merge failure and counts the calls dropped.
void sendTrace(State &s, const Trace &t, int to) {
  unsigned long long head[2] = {0, s.subtreeCalls};
  const Trace *send = &t;
  Trace stand;
  try {
    writeTraceTo([&](std::string_view piece) { head[0] += piece.size(); }, t, /*pretty=*/false);
  } catch (const std::exception &e) {
    stand.header = t.header;
    stand.header.complete = false;
    stand.header.notes.push_back("rank " + std::to_string(s.rank) + " could not send its trace: " + e.what());
    send = &stand;
    head[0] = 0;
    writeTraceTo([&](std::string_view piece) { head[0] += piece.size(); }, stand, /*pretty=*/false);
  }
  PMPI_Send(head, 2, MPI_UNSIGNED_LONG_LONG, to, kTagHead, s.mergeComm);
  int go = 0;
  PMPI_Recv(&go, 1, MPI_INT, to, kTagGo, s.mergeComm, MPI_STATUS_IGNORE);
  if (!go)
    return;
  unsigned long long sent = 0;
  auto sendPiece = [&](const char *data, size_t n) {
    // Pieces are far below INT_MAX bytes (one table entry past 64 KiB).
    PMPI_Send(data, int(n), MPI_CHAR, to, kTagData, s.mergeComm);
    sent += n;
  };
  try {
    writeTraceTo(
        [&](std::string_view piece) {
          testFault(s, "send");
          const size_t n = std::min<unsigned long long>(piece.size(), head[0] - sent);
          if (n > 0)
            sendPiece(piece.data(), n);
        },
        *send, /*pretty=*/false);
  } catch (const std::exception &e) {
    message("sio: warning: rank " + std::to_string(s.rank) + " could not send its whole trace: " + e.what());
  }
  static const std::string kPad(64 << 10, ' ');
  while (sent < head[0])
    sendPiece(kPad.data(), std::min<unsigned long long>(kPad.size(), head[0] - sent));
}

/// A child's trace, or nullopt when it does not fit under the cap next to
/// what this rank holds (`held`); `calls` and `textBytes` say what it was.
std::optional<Trace> recvTrace(State &s, int from, size_t held, uint64_t &calls, size_t &textBytes) {
  unsigned long long head[2] = {0, 0};
  PMPI_Recv(head, 2, MPI_UNSIGNED_LONG_LONG, from, kTagHead, s.mergeComm, MPI_STATUS_IGNORE);
  textBytes = size_t(head[0]);
  calls = head[1];
  int go = held + mergeInputBytes(textBytes) <= s.settings.memoryCap ? 1 : 0;
  PMPI_Send(&go, 1, MPI_INT, from, kTagGo, s.mergeComm);
  if (!go)
    return std::nullopt;
  // The child sends exactly textBytes (sendTrace); whatever fails here, all
  // of them are received before the error goes on, or the child would wait
  // forever in its MPI_Finalize.
  std::string text;
  size_t received = 0;
  std::string failure;
  try {
    testFault(s, "recv");
    text.reserve(textBytes); // exactly: no doubling
  } catch (const std::exception &e) {
    failure = e.what();
  }
  std::vector<char> discard;
  while (received < textBytes) {
    MPI_Status st;
    PMPI_Probe(from, kTagData, s.mergeComm, &st);
    int n = 0;
    PMPI_Get_count(&st, MPI_CHAR, &n);
    char *into = nullptr;
    if (failure.empty() && n > 0 && received + size_t(n) <= textBytes) {
      text.resize(received + size_t(n));
      into = text.data() + received;
    } else {
      if (failure.empty())
        failure = "rank " + std::to_string(from) + " sent more than the " + std::to_string(textBytes) +
                  " bytes it announced";
      discard.resize(size_t(std::max(n, 1)));
      into = discard.data();
    }
    PMPI_Recv(into, n, MPI_CHAR, from, kTagData, s.mergeComm, MPI_STATUS_IGNORE);
    received += size_t(std::max(n, 0));
    if (n <= 0)
      break; // not the protocol: nothing more will come that counts
  }
  if (!failure.empty())
    throw std::runtime_error(failure);
  return deserializeTrace(std::move(text));
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// At exit, after MPI_Finalize wrote the trace: the calls the program made
/// once recording had ended (a results file written after MPI_Finalize,
/// another thread's I/O during the merge) are not in it, so it must not
/// say complete. Rank 0 wrote the trace and marks it incomplete with the
/// count; every rank says so on stderr.
void reportUnrecorded(State &s) {
  const uint64_t n = g_unrecorded.load();
  const std::string path = tracePath(s);
  std::string marked;
  if (s.rank == 0 && s.mpiInitialized) {
    try {
      Trace t = readTraceFile(path);
      t.header.complete = false;
      t.header.notes.push_back("rank 0 did I/O during or after MPI_Finalize that is not in this trace (" +
                               std::to_string(n) + " calls opening or using files; recording ends at MPI_Finalize)");
      if (writeTrace(s, t, path, false, false))
        marked = "; the trace is marked incomplete";
    } catch (const std::exception &e) {
      marked = std::string("; the trace could not be marked incomplete: ") + e.what();
    }
  }
  message("sio: warning: rank " + std::to_string(s.rank) + " did I/O during or after MPI_Finalize (" +
          std::to_string(n) + " calls opening or using files), which is not in " + path + marked);
}

void finishNoMpi() {
  // exit() from a signal handler that interrupted the runtime on this thread
  // (its state may be half-updated; the recursive lock would let us in): no
  // trace rather than a crash in the program's exit (said only with
  // SIO_VERBOSE: the program's stderr stays its own).
  if (tls.blocked) {
    if (S().settings.verbose)
      message("sio: warning: the program exited from a signal handler that interrupted the runtime; no trace "
              "written");
    return;
  }
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (s.finished && g_unrecorded.load() > 0) {
    reportUnrecorded(s);
    return;
  }
  if (s.finished || !s.initialized || s.settings.disable)
    return;
  if (s.mpiInitialized) {
    // MPI_Finalize never came: the other ranks may be gone, no merge.
    writePartial("the program exited without MPI_Finalize", false);
    return;
  }
  g_active.store(false);
  s.finished = true;
  drainAll(s);
  if (s.events == 0 || s.role == Role::Silent)
    return; // helper processes (shells, mpiexec) and untraced children leave no trace
  Trace t = buildRankTrace(s);
  t.header.metadata["merge_rounds"] = "0";
  finalizeMerged(t);
  fillSiteTables(s, t);
  const std::string path = tracePath(s);
  if (writeTrace(s, t, path, false, true))
    reportTrace(s, t, path, "trace");
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

uint64_t ticksToNs(uint64_t t) { return uint64_t(double(t) * S().nsPerTick); }

namespace {
/// Writes `n` bytes to the runtime's message descriptor: system calls only.
void writeMessage(const char *p, size_t left) {
  if (g_msgFd < 0)
    return;
  struct stat st;
  // The program may have closed our descriptor and opened a file there.
  if (fstat(g_msgFd, &st) != 0 || st.st_dev != g_msgDev || st.st_ino != g_msgIno)
    return;
  while (left > 0) {
    ssize_t n = ::syscall(SYS_write, g_msgFd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    p += n;
    left -= size_t(n);
  }
}
} // namespace

void message(const std::string &line) {
  if (!g_msgTried)
    openMessageFd(); // a module constructor ran before ours
  Blocked blk;
  std::string text = line + "\n";
  writeMessage(text.data(), text.size());
}

void messageSignalSafe(const char *text) {
  const int saved = errno;
  Blocked blk;
  writeMessage(text, std::strlen(text));
  errno = saved;
}

ThreadBuffer *createThreadBuffer() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  auto *b = new ThreadBuffer;
  if (Block *first = takeBlock(Q())) {
    b->block = b->rdBlock = first;
    first->base = 0;
    b->begin = b->cur = first->records();
    b->end = b->begin + Q().blockRecords;
    b->linked = 1;
  }
  if (s.buffers)
    g_manyThreads.store(true);
  b->next = s.buffers;
  s.buffers = b;
  return b;
}

namespace {

void linkNextBlock(ThreadBuffer *b) {
  State &s = S();
  DrainQueue &q = Q();
  Blocked blk;
  if (s.finished) {
    b->cur = b->begin; // events after the end are dropped silently
    return;
  }
  if (!b->block) {
    std::lock_guard lk(s.mu); // the first block could not be had: the drain side reads rdBlock
    if (Block *first = takeBlock(q)) {
      first->base = 0;
      b->block = b->rdBlock = first;
      b->begin = b->cur = first->records();
      b->end = b->begin + q.blockRecords;
      b->linked = 1;
    }
    return;
  }
  Block *fresh = takeBlock(q);
  if (!fresh)
    return; // no memory: this call is not recorded
  fresh->base = b->base + q.blockRecords;
  b->block->next.store(fresh, std::memory_order_release);
  b->block = fresh;
  b->base = fresh->base;
  b->begin = b->cur = fresh->records();
  b->end = b->begin + q.blockRecords;
  ++b->linked;
  bool tooMany = b->linked - b->recycled.load(std::memory_order_relaxed) > kMaxQueued;
  if (!s.settings.drainThread || tooMany) {
    // No drain thread (the default), or it falls behind: convert here, which
    // keeps memory bounded.
    std::lock_guard lk(s.mu);
    if (!s.finished)
      convertPublished(s, false);
    return;
  }
  bool start = false;
  {
    std::lock_guard lk(q.mu);
    ++q.filled;
    start = !q.started;
    q.started = true;
  }
  if (start) {
    // Started on first need: processes that trace little never get a thread.
    try {
      std::thread(drainThreadMain).detach();
    } catch (...) {
      s.settings.drainThread = false;
    }
  }
  q.cv.notify_one();
}

} // namespace

void nextBlock(ThreadBuffer *b) {
  // Converting here, or waiting for the lock while the drain thread does, can
  // take milliseconds: a SIGTERM landing then waits for the end (onSignal).
  ++tls.converting;
  linkNextBlock(b);
  --tls.converting;
  if (int sig = tls.deferredSignal) {
    // A signal that landed during the batch (onSignal): handled now, outside
    // the runtime's lock, as if it had arrived here.
    tls.deferredSignal = 0;
    handleDeferredSignal(sig);
  }
}

void drainPublished() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (!s.finished)
    drainAll(s);
}

namespace {

/// Lowest-free small integers without locks or allocation (opens and closes
/// may come from any thread, and from signal-interrupted code): a bitmap of
/// the first 4096 codes; beyond it, codes are handed out in sequence.
class CodePool {
public:
  int32_t acquire() {
    for (size_t w = 0; w < kWords; ++w) {
      uint64_t v = words_[w].load(std::memory_order_relaxed);
      while (v != ~uint64_t(0)) {
        uint64_t bit = ~v & (v + 1); // lowest clear bit
        if (words_[w].compare_exchange_weak(v, v | bit, std::memory_order_acq_rel))
          return int32_t(w * 64 + __builtin_ctzll(bit));
      }
    }
    return overflow_.fetch_add(1, std::memory_order_relaxed);
  }
  void release(int32_t code) {
    if (code >= 0 && size_t(code) < kWords * 64)
      words_[code / 64].fetch_and(~(uint64_t(1) << (code % 64)), std::memory_order_acq_rel);
  }

private:
  static constexpr size_t kWords = 64;
  std::atomic<uint64_t> words_[kWords] = {};
  std::atomic<int32_t> overflow_{int32_t(kWords * 64)};
};

CodePool g_fdCodes, g_streamCodes, g_dirCodes;

} // namespace

int32_t newFdCode() { return g_fdCodes.acquire(); }
int32_t newStreamCode() { return g_streamCodes.acquire(); }
void releaseFdCode(int32_t code) { g_fdCodes.release(code); }
void releaseStreamCode(int32_t code) { g_streamCodes.release(code); }
int32_t newDirCode() { return g_dirCodes.acquire(); }
void releaseDirCode(int32_t code) { g_dirCodes.release(code); }

std::vector<std::string> inexactReasons(uint32_t bits) {
  static constexpr const char *kWhy[kNumInexact] = {
      "data moved through a file descriptor or stream whose open was not recorded (opened before the "
      "runtime started, or inherited)",
      "a recorded file was memory-mapped (mmap): bytes read or written through memory are not recorded",
      "sendfile, copy_file_range or splice moved data of a recorded file inside the kernel: not recorded",
      "POSIX asynchronous I/O (aio_read, aio_write, lio_listio) on a recorded file: not recorded",
      "inline getc_unlocked/putc_unlocked-style buffer access (glibc <stdio.h> at -O1 and above) on a "
      "recorded stream: the bytes moved inside the stream buffer are not recorded",
      "a scanf-family or wide-character stdio call on a stream without a position: the bytes it moved are "
      "not known",
      "libsio-prefetch.so was loaded before the tracer and interposes MPI-IO first: the trace holds the MPI "
      "calls it passed on (reads it served from its cache are missing or have count 0), not the "
      "application's; preload libsiotrace-rt.so first (docs/runtime.md, \"Other tools in the same process\")"};
  std::vector<std::string> v;
  for (int i = 0; i < kNumInexact; ++i)
    if (bits & (1u << i))
      v.emplace_back(kWhy[i]);
  return v;
}

namespace {
std::atomic<uint8_t> g_untrackedSeen[kMaxFd];
}

void noteUntrackedData(int fd) {
  if (unsigned(fd) >= unsigned(kMaxFd) || g_untrackedSeen[fd].exchange(1, std::memory_order_relaxed))
    return;
  Blocked blk; // fstat/readlink below are the runtime's, never traced
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return; // a pipe, socket, terminal, device: no bytes on disk to miss
  char link[64], path[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n > 0) {
    path[n] = 0;
    if (pathExcluded(path))
      return;
  }
  noteInexact(Inexact::Untracked);
}

void forgetUntracked(int fd) {
  if (unsigned(fd) < unsigned(kMaxFd))
    g_untrackedSeen[fd].store(0, std::memory_order_relaxed);
}

bool pathExcluded(const char *path) {
  for (const std::string &p : S().settings.excludePaths)
    if (std::strncmp(path, p.data(), p.size()) == 0)
      return true;
  return false;
}

/// The id of `name` in one of the rank's name tables (files, strings), the
/// next id if it is new; past the memory cap the table no longer grows and
/// a new name gets -1 (its call is then counted as dropped). Under s.mu.
int64_t intern(State &s, std::unordered_map<std::string, int64_t> &ids, std::vector<std::string> &names,
               InternedTableBytes &bytes, const char *name) {
  if (g_dropping.load(std::memory_order_relaxed)) {
    auto it = ids.find(name);
    return it == ids.end() ? -1 : it->second;
  }
  auto [it, fresh] = ids.try_emplace(name, int64_t(names.size()));
  if (fresh) {
    names.emplace_back(name);
    bytes.add(names.back().size());
    if (++s.freshSinceCapCheck >= 64) {
      s.freshSinceCapCheck = 0;
      checkCap(s);
    }
  }
  return it->second;
}

int64_t fileId(const char *path) {
  State &s = S();
  Blocked blk; // a signal handler must not find the lock held mid-update
  std::lock_guard lk(s.mu);
  if (!s.marked)
    markTracingProcess(s);
  return intern(s, s.fileIds, s.files, s.fileBytes, path);
}

int64_t stringId(const char *text) {
  State &s = S();
  Blocked blk; // a signal handler must not find the lock held mid-update
  std::lock_guard lk(s.mu);
  return intern(s, s.stringIds, s.strings, s.stringBytes, text);
}

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
  std::snprintf(g_tracingEnv + kTracingEnvPrefix, sizeof g_tracingEnv - kTracingEnvPrefix, "%s",
                tracer ? tracer : "");
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

void finalizeMerge(State &s) {
  double t0 = nowMs();
  Trace t;
  try {
    drainAll(s); // first, so the events are counted even if the rest fails
    testFault(s, "build");
    t = buildRankTrace(s);
  } catch (const std::exception &e) {
    t = Trace();
    t.header.nranks = s.nranks;
    t.header.complete = false;
    t.header.droppedEvents = s.events + g_dropped.load();
    t.header.notes.push_back("rank " + std::to_string(s.rank) + " could not build its trace: " + e.what() +
                             "; its events were dropped");
  }
  s.subtreeCalls = s.events + g_dropped.load();
  double buildMs = nowMs() - t0;

  // Binomial tree: in round k, ranks with bit k set send to rank - 2^k and
  // stop; the others receive from rank + 2^k. ceil(log2 P) rounds.
  int rounds = 0;
  std::vector<double> roundMs;
  for (int step = 1; step < s.nranks; step <<= 1, ++rounds) {
    double r0 = nowMs();
    if (s.rank & step) {
      sendTrace(s, t, s.rank - step);
      break;
    }
    if (s.rank + step < s.nranks) {
      uint64_t calls = 0; // known once the child's head arrived, even if the merge fails
      bool counted = false;
      try {
        // What this rank holds for the merge: its trace, the merge's index
        // and id map entries for its files, the record blocks threads keep.
        const size_t held =
            traceHeapBytes(t) + mergeTableBytes(t.files.size()) + Q().blocks.load() * blockBytes(Q());
        size_t textBytes = 0;
        std::optional<Trace> child = recvTrace(s, s.rank + step, held, calls, textBytes);
        s.subtreeCalls += calls;
        counted = true;
        if (child) {
          t = mergeTraces(std::move(t), std::move(*child));
        } else {
          // The trace stays valid: those ranks have no events in it, and
          // the header says why.
          const int last = std::min(s.rank + 2 * step, s.nranks) - 1;
          t.header.complete = false;
          t.header.droppedEvents += calls;
          t.header.notes.push_back(
              "memory cap SIO_MEMORY_CAP=" + std::to_string(s.settings.memoryCap) + " bytes: the trace of rank" +
              (last > s.rank + step ? "s " + std::to_string(s.rank + step) + "-" + std::to_string(last)
                                    : " " + std::to_string(s.rank + step)) +
              " (" + std::to_string(calls) + " calls, " + std::to_string(textBytes) +
              " bytes of JSON) did not fit next to rank " + std::to_string(s.rank) +
              "'s in the merge; their events were dropped");
        }
      } catch (const std::exception &e) {
        t.header.complete = false;
        t.header.droppedEvents += calls; // the child's ranks are not in the trace
        if (!counted)
          s.subtreeCalls += calls;
        t.header.notes.push_back(std::string("merge failed: ") + e.what());
      }
    }
    roundMs.push_back(nowMs() - r0);
  }
  if (s.rank == 0) {
    double f0 = nowMs();
    testFault(s, "finish");
    finalizeMerged(t);
    fillSiteTables(s, t);
    t.header.nranks = s.nranks;
    t.header.metadata["merge_rounds"] = std::to_string(rounds);
    double total = 0;
    for (size_t i = 0; i < roundMs.size(); ++i) {
      char b[32];
      std::snprintf(b, sizeof b, "%.3f", roundMs[i]);
      t.header.metadata["merge_round_" + std::to_string(i) + "_ms"] = b;
      total += roundMs[i];
    }
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", total);
    t.header.metadata["merge_ms"] = b;
    std::snprintf(b, sizeof b, "%.3f", nowMs() - f0);
    t.header.metadata["finalize_ms"] = b;
    std::snprintf(b, sizeof b, "%.3f", buildMs);
    t.header.metadata["rank0_build_ms"] = b;
    const std::string path = tracePath(s);
    if (writeTrace(s, t, path, false, true))
      reportTrace(s, t, path, "trace");
  }
  if (s.settings.verbose)
    message("sio: rank " + std::to_string(s.rank) + ": " + std::to_string(s.events) + " events, " +
            std::to_string(g_dropped.load()) + " dropped");
}

void finalizeMpi() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (s.finished || !s.initialized || s.settings.disable || !s.mpiInitialized)
    return;
  g_active.store(false);
  g_countUnrecorded.store(true);
  s.finished = true;
  // Nothing here may end the application (an exception would leave through
  // MPI_Finalize, an extern "C" function, and terminate it), and every rank
  // must go through the merge protocol whatever failed, or its partner
  // waits forever: a rank that cannot build its trace sends an empty one
  // that says why, and rank 0 that cannot finish the trace writes none.
  try {
    finalizeMerge(s);
  } catch (const std::exception &e) {
    message(std::string("sio: warning: rank ") + std::to_string(s.rank) + ": no trace: " + e.what());
  }
  PMPI_Comm_free(&s.mergeComm);
}

namespace {
/// This rank's trace as it stands, marked incomplete with `why`, at `path`.
std::string partialTracePath(const State &s) {
  return tracePath(s) + ".rank" + std::to_string(s.rank) + ".partial.sio.json";
}

void writePartialTrace(State &s, const std::string &why, const std::string &path, bool fromSignal, bool atExit) {
  try {
    Trace t = buildRankTrace(s);
    t.header.complete = false;
    t.header.notes.push_back(std::string("partial trace of rank ") + std::to_string(s.rank) + ": " + why);
    t.header.metadata["partial_rank"] = std::to_string(s.rank);
    fillSiteTables(s, t);
    if (writeTrace(s, t, path, fromSignal, false) && atExit)
      reportTrace(s, t, path, "partial trace");
  } catch (const std::exception &e) {
    message(std::string("sio: warning: no partial trace: ") + e.what());
  }
}
} // namespace

void writePartial(const char *why, bool fromSignal) {
  State &s = S();
  // A signal that interrupted the runtime itself on this thread: its state
  // may be half-updated, so no partial trace rather than a corrupt one.
  if (fromSignal && tls.blocked) {
    messageSignalSafe("sio: warning: no partial trace: the signal interrupted sio's runtime itself\n");
    return;
  }
  Blocked blk;
  // The drain thread may hold the lock for a moment: wait up to ~2 s for it,
  // never forever (a signal must not hang the program). A loaded node can
  // keep the drain thread off the CPU that long: the trace is lost, and the
  // user is told (seen in a CI run at load ~10).
  bool locked = false;
  for (int i = 0; i < 2000 && !(locked = s.mu.try_lock()); ++i)
    usleep(1000);
  if (!locked) {
    messageSignalSafe("sio: warning: no partial trace: the runtime's state stayed locked for 2 s\n");
    return;
  }
  std::lock_guard lk(s.mu, std::adopt_lock);
  if (s.finished || !s.initialized || s.settings.disable)
    return;
  g_active.store(false);
  s.finished = true;
  if (s.role == Role::Silent)
    return;
  if (!fromSignal) {
    writePartialTrace(s, why, partialTracePath(s), false, true);
    return;
  }
  // The signal may have landed inside malloc or another lock of libc's, and
  // building the trace allocates: a copy of the process does it, while this
  // handler only waits (WriterProcess.h). The lock taken above keeps the
  // drain thread's conversion out of the copied state.
  struct Work {
    State *s;
    const char *why;
  } work{&s, why};
  const WriterOutcome outcome = runInWriterProcess(
      [](void *context) {
        auto *w = static_cast<Work *>(context);
        testStallInSignal(*w->s);
        writePartialTrace(*w->s, w->why, partialTracePath(*w->s), true, true);
      },
      &work);
  if (outcome != WriterOutcome::Finished) {
    messageSignalSafe("sio: warning: no partial trace: ");
    messageSignalSafe(describe(outcome));
    messageSignalSafe("\n");
  }
}

const char *prepareExec(const char *path) {
  State &s = S();
  if (tls.blocked)
    return nullptr;
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (s.finished || !s.initialized || s.settings.disable || s.role == Role::Silent)
    return nullptr;
  g_active.store(false);
  s.finished = true;
  drainAll(s);
  if (s.events == 0)
    return nullptr; // nothing recorded: the new image's trace is the whole story
  const unsigned generation = s.execGeneration + 1;
  const std::string why = std::string("the process replaced this program with exec of '") + (path ? path : "") +
                          "'; its later calls are in the new program's trace";
  std::string out;
  if (s.mpiInitialized) {
    // An MPI rank gone mid-job: no merge with the others, a partial trace.
    out = tracePath(s) + ".rank" + std::to_string(s.rank) + ".exec" + std::to_string(generation) +
          ".partial.sio.json";
    writePartialTrace(s, why, out, false, false);
  } else {
    // This program's calls are all here: a complete trace of its own, next
    // to the one the new program writes (a wrapper script's `exec app`).
    std::string base = tracePath(s);
    if (base.size() > 9 && base.compare(base.size() - 9, 9, ".sio.json") == 0)
      base.resize(base.size() - 9);
    out = base + ".exec" + std::to_string(generation) + ".sio.json";
    Trace t = buildRankTrace(s);
    t.header.notes.push_back(why);
    t.header.metadata["merge_rounds"] = "0";
    finalizeMerged(t);
    fillSiteTables(s, t);
    writeTrace(s, t, out, false, false);
  }
  // Handed to the new image in its environment; static, as exec reads it.
  static std::string entry;
  entry = std::string(kExecPredecessorVar) + "=" + std::to_string(s.pid) + ":" + std::to_string(generation) + ":" +
          out;
  return entry.c_str();
}

void execFailed(const char *path, int err) {
  // The trace was written before the exec (the image would be gone after a
  // successful one): recording stopped there, and the partial trace says so.
  message(std::string("sio: warning: exec of '") + (path ? path : "") + "' failed (" + std::strerror(err) +
          ") after this program's trace was written; its later calls are not traced");
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
