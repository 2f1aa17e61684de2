// The program's sigaction() and signal(), exported by libsiotrace-rt: for
// SIGTERM, SIGABRT, SIGSEGV and SIGBUS the program reads and sets its own
// disposition, never the runtime's handler (Signals.h, programSigaction).
// Other signals go straight to libc.
#include "Signals.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#define SIO_EXPORT __attribute__((visibility("default")))

extern "C" SIO_EXPORT int sigaction(int sig, const struct sigaction *__restrict act,
                                    struct sigaction *__restrict old) noexcept {
  return sio::rt::programSigaction(sig, act, old);
}

/// glibc's signal(): BSD semantics (the handler stays, the signal is blocked
/// while it runs, interrupted calls restart), through sigaction as glibc
/// does it.
extern "C" SIO_EXPORT sighandler_t signal(int sig, sighandler_t handler) noexcept {
  struct sigaction act, old;
  std::memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sig > 0 && sig < NSIG && sigaddset(&act.sa_mask, sig) != 0) {
    errno = EINVAL;
    return SIG_ERR;
  }
  act.sa_flags = SA_RESTART;
  if (sio::rt::programSigaction(sig, &act, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}
