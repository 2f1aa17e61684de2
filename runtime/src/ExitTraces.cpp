// The traces written when tracing ends other than at MPI_Finalize: at exit
// of a process without MPI (or with I/O after MPI_Finalize), partial traces
// (a signal, an exit without MPI_Finalize; the signal handler's is written
// by a copy of the process), and before an exec replaces the program.
#include "RuntimeState.h"

#include "Signals.h"
#include "WriterProcess.h"
#include "compress/InterRank.h"

#include "sio/trace/Json.h"

#include <cstring>
#include <ctime>
#include <unistd.h>

namespace sio::rt {

using namespace sio::trace;
using namespace detail;

namespace {

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

std::string partialTracePath(const State &s) {
  return tracePath(s) + ".rank" + std::to_string(s.rank) + ".partial.sio.json";
}

/// This rank's trace as it stands, marked incomplete with `why`, at `path`.
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

namespace detail {

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

} // namespace detail

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
    out = tracePath(s) + ".rank" + std::to_string(s.rank) + ".exec" + std::to_string(generation) + ".partial.sio.json";
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
  entry = std::string(kExecPredecessorVar) + "=" + std::to_string(s.pid) + ":" + std::to_string(generation) + ":" + out;
  return entry.c_str();
}

void execFailed(const char *path, int err) {
  // The trace was written before the exec (the image would be gone after a
  // successful one): recording stopped there, and the partial trace says so.
  message(std::string("sio: warning: exec of '") + (path ? path : "") + "' failed (" + std::strerror(err) +
          ") after this program's trace was written; its later calls are not traced");
}

} // namespace sio::rt
