// The writer process of a signal handler (docs/runtime.md, "Signals").
//
// A partial trace is built and serialised with allocations and libc's
// locks, which a signal handler must not take: the signal may have landed
// inside malloc. The handler therefore makes a copy of the process (a clone
// without fork handlers, which is async-signal-safe) and lets the copy do
// that work, while the handler itself only waits: with system calls, no
// allocation, no lock. Whatever happens in the copy (a lock held for good, a
// fault on half-updated state) cannot hang or crash the program: the
// handler ends a copy that stops making progress.
#pragma once

namespace sio::rt {

/// What a writer process did.
enum class WriterOutcome {
  Finished,  ///< `work` returned
  Failed,    ///< the copy died (a fault) or exited without finishing
  Stalled,   ///< no progress for kWriterStallMs: the copy was killed
  NotStarted ///< the copy could not be made (no memory, a process limit)
};

/// How long a writer process may make no progress (signalWorkProgress)
/// before the handler ends it.
inline constexpr int kWriterStallMs = 2000;

/// Runs `work(context)` in a copy of the process and waits for it.
/// Async-signal-safe in the calling process. The copy: is killed if the
/// calling process dies (PR_SET_PDEATHSIG), has the default action for
/// every signal the runtime handles, never runs the program's exit handlers
/// or flushes its streams (it ends with _exit), and notifies no SIGCHLD (the
/// program's wait(-1) never sees it).
WriterOutcome runInWriterProcess(void (*work)(void *), void *context);

/// The writer's work moved on (the conversion of a run of records, a piece
/// of the file written): a plain store, cheap enough for the conversion.
void writerProgress();

/// Why a writer process did not finish, as the end of a sentence for the
/// message ("... not written: <reason>"); "" for Finished.
const char *describe(WriterOutcome outcome);

} // namespace sio::rt
