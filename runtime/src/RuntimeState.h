// The drain and finalize side's state, shared by the runtime's parts:
// start-up and the process's life (Runtime.cpp), the record blocks and their
// conversion (Drain.cpp), the ids calls record (CallIds.cpp), the rank's
// trace (RankTrace.cpp), the merge (Merge.cpp), the other ends of tracing
// (ExitTraces.cpp) and messages (Messages.cpp). S() and Q() stay inline, as
// they were in the single file: the calls that take ids and blocks use them.
// Internal to the runtime (Runtime.h is what the wrappers see).
#pragma once

#include "Runtime.h"

#include "MemoryBudget.h"
#include "TracePath.h"
#include "compress/IntraRank.h"
#include "sio/siotrace_abi.h"

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sio::rt::detail {

struct RegisteredTables {
  const SioSiteDesc *sb, *se;
  const SioLoopDesc *lb, *le;
};

/// Who this process is among the processes a traced one starts: the traced
/// program (or an MPI rank), a child with a trace of its own
/// (SIO_TRACE_CHILDREN=1), or a child that writes nothing.
enum class Role { Root, Child, Silent };

/// Everything the drain and finalize side owns. Heap-allocated and never
/// destroyed: atexit handlers and signal handlers may run after static
/// destructors.
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

inline DrainQueue &Q() {
  static DrainQueue *q = new DrainQueue;
  return *q;
}

inline State &S() {
  static State *s = new State;
  return *s;
}

/// The bytes one block of `q.blockRecords` records takes (cache-line aligned).
inline size_t blockBytes(const DrainQueue &q) {
  return (sizeof(Block) + q.blockRecords * sizeof(Record) + 63) / 64 * 64;
}

// ---- Messages.cpp ---------------------------------------------------------
/// Opens the runtime's message descriptor (once; at start-up).
void openMessageFd();

// ---- Runtime.cpp ----------------------------------------------------------
/// Names this process in SIO_TRACING_PID: it traces (it initialised MPI or
/// recorded a file), and the programs it starts are its children.
void markTracingProcess(State &s);

// ---- Drain.cpp ------------------------------------------------------------
double nowMs();
/// Stops recording (g_dropping) once the memory held passes SIO_MEMORY_CAP.
void checkCap(State &s);
void freeSpareBlocks(DrainQueue &q);
/// Converts every record published so far. Caller holds State::mu.
void drainAll(State &s);

// ---- RankTrace.cpp --------------------------------------------------------
std::string exeBaseName();
/// Where this process's trace goes (SIO_TRACE_FILE, the launch slot, a child's name).
std::string tracePath(const State &s);
void fillSiteTables(State &s, sio::trace::Trace &t);
sio::trace::Trace buildRankTrace(State &s);
bool writeTrace(State &s, sio::trace::Trace &t, const std::string &path, bool fromSignal, bool final);
void reportTrace(const State &s, const sio::trace::Trace &t, const std::string &path, const char *what);

// ---- ExitTraces.cpp -------------------------------------------------------
/// At exit (atexit): the trace of a process that did not merge at MPI_Finalize.
void finishNoMpi();

} // namespace sio::rt::detail
