// Internal state of the tracing runtime shared by the wrappers (hot path),
// the ABI entry points and the finalize/merge driver.
//
// Hot path (STYLE.md, Caliper trace service): a thread-local ThreadState, a
// per-thread chain of blocks of fixed-size plain records appended after a
// fits() check, no lock and no malloc per call. Each finished call takes the
// rank's next sequence number (one atomic increment) and is published to the
// drain side (one release store). The drain thread (woken once per filled
// block) converts the published records of all threads in sequence order to
// sio::trace::Event and feeds the IntraRankCompressor, off the calling
// threads; what is left is drained at the end.
#pragma once

#include "Settings.h"
#include "WeakMpi.h" // before anything includes <mpi.h>
#include "sio/trace/Trace.h"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace sio::rt {

/// Dense ids of the intercepted functions, in IoCalls.def order.
enum class CallId : uint16_t {
#define SIO_IO_CALL(NAME, ...) NAME,
#include "sio/IoCalls.def"
  kCount
};
inline constexpr size_t kNumCalls = static_cast<size_t>(CallId::kCount);

struct CallInfo {
  const char *name; ///< the symbol, e.g. "pread64"
  const char *op;   ///< the operation recorded, e.g. "pread"
  sio::trace::Layer layer;
};
extern const CallInfo kCallInfo[kNumCalls];

// ---- records --------------------------------------------------------------

inline constexpr int kMaxSlots = 7;

struct Slot {
  const char *name; ///< static string: the parameter's name in the trace
  int64_t value;    ///< integer, coded handle, file id or string-table index
};

/// Loop iterations are not records: __sio_loop_iter leaves the loop id in
/// ThreadState::pendingIter and the thread's next record carries it (`iter`).
/// Void: a call withdrawn after it was reserved (withdrawRecord), skipped.
enum class RecKind : uint8_t { Event, LoopEnter, LoopExit, Void };

/// One intercepted call or loop marker; plain data, 160 bytes.
struct Record {
  RecKind kind;
  uint8_t inner;   ///< ran inside a traced MPI-IO call
  uint8_t open;    ///< call in progress (t1 and outputs not yet known)
  uint8_t nslots;
  uint8_t strMask; ///< bit i: slots[i].value indexes the string table
  uint16_t call;   ///< CallId
  uint64_t id;     ///< site id (events) or loop id (markers)
  /// Nonzero: an iteration of this loop began before this record on its
  /// thread (converted as a loopIter first). Iterations that end with no
  /// record are not counted by the compressor anyway, so only the last
  /// pending one matters.
  uint64_t iter;
  /// The rank's order of finished calls and markers (inner events: their
  /// MPI-IO call's, which they follow in the thread's stream).
  uint64_t seq;
  uint64_t t0, t1; ///< ticks at entry and return
  Slot slots[kMaxSlots];

  void add(const char *name, int64_t value) {
    if (nslots < kMaxSlots)
      slots[nslots++] = {name, value};
  }
  void addString(const char *name, int64_t stringId) {
    if (nslots < kMaxSlots) {
      strMask |= uint8_t(1u << nslots);
      slots[nslots++] = {name, stringId};
    }
  }
};

/// A block of records; the records follow the header. Records never move:
/// a full block is left for the drain side and the thread links a new one.
struct alignas(64) Block {
  std::atomic<Block *> next{nullptr}; ///< set by the writing thread when it moves on
  uint64_t base = 0;                  ///< stream index of the first record
  Record *records() { return reinterpret_cast<Record *>(this + 1); }
};

/// A thread's stream of records: a single-producer (the thread) single-
/// consumer (whoever holds the runtime lock) queue of blocks. Heap-allocated
/// once per thread and kept after the thread ends, so finalize still drains it.
struct ThreadBuffer {
  // Written by the owning thread only.
  Record *begin = nullptr, *cur = nullptr, *end = nullptr; ///< current block's records
  Block *block = nullptr;
  uint64_t base = 0;    ///< stream index of `begin`
  uint64_t linked = 0;  ///< blocks this thread has started
  ThreadBuffer *next = nullptr;
  /// Stream index up to which records are finished calls: the drain side
  /// reads nothing beyond it (release store by the thread). Its own cache
  /// line: the drain side's reads must not take `cur` away from the thread.
  alignas(64) std::atomic<uint64_t> published{0};
  // Drain side (under the runtime lock): on its own cache line, or every
  // call would miss on `cur`.
  alignas(64) Block *rdBlock = nullptr;
  uint64_t consumed = 0; ///< stream index of the next record to convert
  uint64_t seen = 0;     ///< `published` as last read (read again only when reached)
  std::atomic<uint64_t> recycled{0}; ///< blocks given back
  uint64_t lastEnd = 0;
  uint64_t lastInnerRef = 0;
};

/// Per-thread state. Trivial, zero-initialised, initial-exec TLS: reading it
/// costs one %fs-relative load.
struct ThreadState {
  uint32_t blocked;    ///< >0: runtime internals, MPI_Init/Finalize: record nothing
  uint32_t depth;      ///< intercepted MPI calls in progress on this thread
  uint32_t mpiioOpen;  ///< a recorded MPI-IO call is in progress: nested POSIX is inner
  uint32_t inTool;     ///< in a tool library's MPI_X the MPI_X wrapper called (Wrappers.cpp, tools)
  uint64_t pendingSite;
  /// The loop id of the last __sio_loop_iter not yet carried by a record.
  uint64_t pendingIter;
  ThreadBuffer *buf;
  /// Last file handle and named datatype this thread looked up, so that a
  /// loop of MPI-IO calls takes no lock (MpiHandles.cpp). The handle entry
  /// holds while g_handleEpoch is unchanged; named types never change code.
  const void *lastFh;
  int64_t lastFhCode;
  uint64_t lastFhEpoch;
  int64_t lastNamedType;
  int64_t lastNamedTypeCode;
  /// >0 while this thread is in nextBlock (converting a batch of records, or
  /// waiting for the lock while the drain thread converts) or a
  /// HoldSignals section: a SIGTERM or SIGABRT landing then is held in
  /// deferredSignal and handled when it is done, so it still gets its
  /// partial trace.
  uint32_t converting;
  volatile sig_atomic_t deferredSignal;
};

extern thread_local ThreadState tls __attribute__((tls_model("initial-exec")));

/// Fast global switches read on every call.
extern std::atomic<bool> g_active;   ///< initialised, enabled, not yet finished
extern std::atomic<bool> g_dropping; ///< past the memory cap
extern std::atomic<uint64_t> g_dropped;
extern std::atomic<uint64_t> g_seq;  ///< the rank's next sequence number
/// Calls of the program's own code (sites the plugin marked) made once
/// MPI_Finalize had ended recording (on any thread, during the merge or
/// after it): counted so that the trace does not claim them (reported at
/// exit).
extern std::atomic<bool> g_countUnrecorded;
extern std::atomic<uint64_t> g_unrecorded;
/// A second thread has a record buffer: sequence numbers need the atomic
/// increment from then on.
extern std::atomic<bool> g_manyThreads;
extern unsigned g_layers;            ///< SIO_LAYERS mask

inline bool layerEnabled(sio::trace::Layer l) { return (g_layers >> static_cast<unsigned>(l)) & 1u; }

// ---- time -----------------------------------------------------------------

inline uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc(); // calibrated against CLOCK_MONOTONIC at init (~7 ns vs ~20 ns vDSO)
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
#endif
}
uint64_t ticksToNs(uint64_t ticks);

/// Writes one line to the runtime's own duplicate of the standard error the
/// process started with (never to whatever the program has at fd 2 now).
void message(const std::string &line);
/// message() for a signal handler: `text` as it is (no newline added), no
/// allocation; the descriptor must have been opened before.
void messageSignalSafe(const char *text);

// ---- buffer -----------------------------------------------------------------

ThreadBuffer *createThreadBuffer();
/// Converts, in sequence order, every record all threads have published, on
/// this thread. Takes the runtime lock.
void drainPublished();
/// Links a fresh block to the full one (the drain side keeps the full one
/// until it has converted it) and wakes the drain thread, or converts here.
void nextBlock(ThreadBuffer *buf);

/// A free record slot in this thread's buffer (a new block first if full);
/// nullptr without memory.
__attribute__((always_inline)) inline Record *reserveRecord(ThreadState &ts) {
  ThreadBuffer *b = ts.buf;
  if (__builtin_expect(b == nullptr, 0))
    b = ts.buf = createThreadBuffer();
  if (__builtin_expect(b->cur == b->end, 0))
    nextBlock(b);
  if (__builtin_expect(b->cur == b->end, 0))
    return nullptr;
  return b->cur;
}

/// A finished call or marker (committed: cur is past it) takes the rank's
/// next sequence number; then everything this thread wrote becomes visible to
/// the drain side. Lock-free: one increment, one release store.
__attribute__((always_inline)) inline void finishRecord(ThreadBuffer *b, Record *r) {
  if (__builtin_expect(!g_manyThreads.load(std::memory_order_relaxed), 1)) {
    // The only recording thread: a plain increment, without the locked
    // instruction (a full barrier behind the record's stores). A second
    // thread racing it at its start, or a signal handler between the two
    // lines, can at worst give two records the same number, which the drain
    // side orders as concurrent calls (convertPublished takes seq <= next).
    uint64_t n = g_seq.load(std::memory_order_relaxed);
    g_seq.store(n + 1, std::memory_order_relaxed);
    r->seq = n;
  } else {
    r->seq = g_seq.fetch_add(1, std::memory_order_relaxed);
  }
  r->open = 0;
  b->published.store(b->base + uint64_t(b->cur - b->begin), std::memory_order_release);
}

// ---- handle tables (coded as small integers in creation order) ----------------

inline constexpr int kMaxFd = 1 << 16;
/// fd -> 1 + code; 0: not a descriptor whose open was recorded.
extern std::atomic<int32_t> g_fdCode[kMaxFd];
/// fd -> 1 + stream code for FILE*s whose fopen was recorded.
extern std::atomic<int32_t> g_streamCode[kMaxFd];
/// fd of a DIR* (dirfd) -> 1 + directory-stream code for recorded opendirs.
extern std::atomic<int32_t> g_dirCode[kMaxFd];

/// Descriptor and stream codes are the lowest free ones, as POSIX allocates
/// descriptors: a rank that opened and closed one more file than its peers
/// (MPICH's rank 0 does inside MPI_File_open) keeps the same codes for the
/// files that follow, so SPMD ranks merge into uniform parameters.
int32_t newFdCode();
int32_t newStreamCode();
void releaseFdCode(int32_t code);
void releaseStreamCode(int32_t code);
int32_t newDirCode();
void releaseDirCode(int32_t code);
/// Path filter (SIO_EXCLUDE_PATHS); only called on opens.
bool pathExcluded(const char *path);

// ---- exactness (docs/runtime.md, Exactness) -------------------------------------

/// Why a trace cannot be exact: data the runtime saw moving but could not
/// count. One bit each in g_inexact; the trace header lists them as text.
enum class Inexact : uint32_t {
  Untracked = 1u << 0,      ///< data moved through a file descriptor/stream whose open was not recorded
  Mmap = 1u << 1,           ///< a recorded descriptor was memory-mapped
  KernelCopy = 1u << 2,     ///< sendfile/copy_file_range/splice on a recorded descriptor
  Aio = 1u << 3,            ///< POSIX AIO on a recorded descriptor
  InlineStdio = 1u << 4,    ///< inline getc_unlocked/putc_unlocked buffer access on a recorded stream
  Position = 1u << 5,       ///< a scanf/wide-character call on a stream with no position
  ToolFirst = 1u << 6,      ///< a tool library interposes MPI-IO before the tracer
  StreamFdClosed = 1u << 7, ///< close() of the descriptor under a recorded stream
};
inline constexpr int kNumInexact = 8;
extern std::atomic<uint32_t> g_inexact;
inline void noteInexact(Inexact why) {
  if (!(g_inexact.load(std::memory_order_relaxed) & uint32_t(why)))
    g_inexact.fetch_or(uint32_t(why), std::memory_order_relaxed);
}
/// The header's `inexact` reasons for the bits set.
std::vector<std::string> inexactReasons(uint32_t bits);
/// A data call on descriptor `fd` (> 2) whose open was not recorded: marks
/// the trace inexact if it names a regular file outside SIO_EXCLUDE_PATHS
/// (looked at once per descriptor until it is closed).
void noteUntrackedData(int fd);
/// A close of a descriptor whose open was not recorded: look again next time.
void forgetUntracked(int fd);
/// Per descriptor of a recorded stream: where its buffer's write and read
/// pointers were after its last recorded call. Further on at its next call
/// means glibc's inline putc_unlocked/getc_unlocked (<stdio.h> at -O1 and
/// above) moved bytes through the buffer without a call (Inexact::InlineStdio).
struct StreamMarks {
  char *write, *read;
  bool readInPushback; ///< `read` points into ungetc's pushback area, not the buffer
};
extern StreamMarks g_streamMarks[kMaxFd];
int64_t fileId(const char *path);   ///< the rank's file table
int64_t stringId(const char *text); ///< the rank's string table

// MPI objects: defined in MpiHandles.cpp with the MPI types erased to
// integers/pointers so this header stays MPI-free.
int64_t fhCode(const void *fh);       ///< -1 if unknown
int64_t fhOpen(const void *fh);       ///< a new code
void fhClose(const void *fh);
int64_t requestCode(int64_t req);     ///< -1 if not an I/O request
int64_t requestNew(int64_t req);
void requestRelease(int64_t req);
int64_t commCode(int64_t comm);
/// New communicators: their comm-table code, identified by the creation
/// event (`site` and the rank's creation order there).
int64_t commSplit(int64_t parent, int64_t color, int64_t key, int64_t newcomm, uint64_t site);
int64_t commDup(int64_t parent, int64_t newcomm, uint64_t site);
/// Any other constructor: `kind` and its integer arguments as fields; with
/// `members`, the world ranks of the new communicator (in its rank order)
/// too, so that the replay can rebuild it from its membership.
int64_t commMade(const char *kind, int64_t parent, int64_t newcomm, uint64_t site,
                 std::initializer_list<std::pair<const char *, std::vector<int64_t>>> fields, bool members);
void commFree(int64_t comm);
int64_t datatypeCode(int64_t datatype);
/// A datatype made by an intercepted constructor `op` at `site`: its table
/// id. Identified by its creation event: the site and the order of the
/// distinct descriptions made there (a type re-made alike in a loop is one
/// entry), never by the order of first use.
int64_t datatypeMade(int64_t newtype, uint64_t site, const char *op);
/// MPI_Type_free: the handle no longer names its entry (MPI reuses it).
void datatypeFreed(int64_t datatype);
int64_t infoCode(int64_t info);

// ---- lifecycle ------------------------------------------------------------------

void ensureInit();            ///< idempotent; constructor calls it
void onMpiInitialized();      ///< after PMPI_Init: rank, nranks, merge communicator
void finalizeMpi();           ///< from MPI_Finalize, before PMPI_Finalize
/// This rank's partial trace `<path>.rank<N>.partial.sio.json`, marked
/// incomplete with `why` (signals, MPI_Abort, exit without MPI_Finalize).
void writePartial(const char *why, bool fromSignal = false);
/// Before an exec replaces the program (ProcessImage.cpp): writes this
/// image's trace as a partial trace, ends recording, and returns the entry
/// `SIO_EXEC_PREDECESSOR=<pid>:<generation>:<path>` to put into the new image's
/// environment (static storage), or nullptr when nothing was written.
const char *prepareExec(const char *path);
/// The exec returned: says that the later calls are not traced.
void execFailed(const char *path, int err);
inline constexpr const char *kExecPredecessorVar = "SIO_EXEC_PREDECESSOR";
/// Fills the trace's MPI object tables (MpiHandles.cpp).
void fillObjectTables(sio::trace::Trace &t, int rank);
void registerTables(const void *sitesBegin, const void *sitesEnd, const void *loopsBegin, const void *loopsEnd);

/// Blocks recording on this thread for a scope (runtime's own calls).
struct Blocked {
  Blocked() { ++tls.blocked; }
  ~Blocked() { --tls.blocked; }
  Blocked(const Blocked &) = delete;
  Blocked &operator=(const Blocked &) = delete;
};

/// Handles the signal a HoldSignals section or nextBlock held (Signals.cpp).
void handleHeldSignal();

/// Blocked, for a short update of the runtime's state on the application's
/// thread (a table under its lock). A SIGTERM or SIGABRT landing inside,
/// even while the thread waits for a lock the drain thread holds, is held
/// and handled at the end: the partial trace needs the state whole and the
/// lock free (before, the handler wrote none and printed a warning, seen in
/// 1 of 20 runs of signal-chain.test under load). Only for work that always
/// ends soon, since a held signal waits for it; nested in another Blocked
/// scope, it is that scope.
class HoldSignals {
public:
  HoldSignals() : outermost_(tls.blocked == 0) {
    ++tls.blocked;
    if (outermost_)
      ++tls.converting;
  }
  ~HoldSignals() {
    --tls.blocked;
    if (outermost_) {
      --tls.converting;
      if (tls.deferredSignal)
        handleHeldSignal();
    }
  }
  HoldSignals(const HoldSignals &) = delete;
  HoldSignals &operator=(const HoldSignals &) = delete;

private:
  bool outermost_;
};

} // namespace sio::rt
