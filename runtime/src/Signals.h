// The runtime's signal handling (docs/runtime.md, "Signals"): partial traces
// on SIGTERM, SIGABRT, SIGSEGV and SIGBUS, and the program's own view of
// those signals' dispositions, which stays what it would be without sio.
#pragma once

#include <csignal>

namespace sio::rt {

/// At start-up: takes over the four signals, except one the program
/// inherited as ignored (`trap '' TERM; exec app`), which stays ignored.
void installSignalHandlers();

/// Brackets the writing of a trace file outside a signal handler (the final
/// trace, a partial one at exit or MPI_Abort): a SIGTERM landing meanwhile,
/// on any thread, is held and acted on once the file is in place, so a
/// batch system's kill never cuts the file off half-way.
class HeldTermination {
public:
  HeldTermination();
  ~HeldTermination();
  HeldTermination(const HeldTermination &) = delete;
  HeldTermination &operator=(const HeldTermination &) = delete;
};

/// The program's sigaction(), exported by the runtime (SignalInterpose.cpp):
/// for the four signals it reads and sets the disposition the program would
/// have without sio (SIG_DFL where the runtime's handler is installed); a
/// handler the program installs goes to the kernel as it is, SIG_DFL keeps
/// the runtime's handler there, SIG_IGN ignores.
int programSigaction(int sig, const struct sigaction *act, struct sigaction *old);
/// libc's own sigaction (the next definition after the runtime's).
int realSigaction(int sig, const struct sigaction *act, struct sigaction *old);

} // namespace sio::rt
