// Signals: the partial trace of a rank that is killed, aborts or faults, and
// a program that sees, sets and chains its dispositions as without sio.
//
// The runtime's handler sits in the kernel for SIGTERM, SIGABRT, SIGSEGV and
// SIGBUS while the program's disposition is the default (or a handler a
// library installed before the runtime started, which it chains to). The
// program never sees that handler: its sigaction()/signal() read and set its
// own view (programSigaction), so a handler that saves the previous
// disposition and later "calls it or re-raises with SIG_DFL" finds SIG_DFL,
// exactly as untraced; re-raising with SIG_DFL puts the runtime's handler
// back, which writes the partial trace and then dies of the signal.
#include "Signals.h"

#include "Runtime.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace sio::rt {
namespace {

using SigactionFn = int (*)(int, const struct sigaction *, struct sigaction *);

std::atomic<SigactionFn> g_realSigaction{nullptr};

SigactionFn resolveSigaction() {
  SigactionFn f = g_realSigaction.load(std::memory_order_acquire);
  if (f)
    return f;
  // Not from a signal handler: installSignalHandlers resolves it at start-up,
  // and the exported sigaction on its first call (possibly earlier, from a
  // library's constructor).
  f = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  if (!f)
    f = reinterpret_cast<SigactionFn>(dlsym(RTLD_DEFAULT, "__sigaction"));
  g_realSigaction.store(f, std::memory_order_release);
  return f;
}

constexpr int kSignals[] = {SIGTERM, SIGABRT, SIGSEGV, SIGBUS};

/// One signal the runtime manages. Trivial (zero-initialised storage, no
/// constructor): the runtime's constructor fills it before the static
/// initialisers of this file would run.
struct Managed {
  bool managed;
  /// The disposition the program has set (or inherited): what its
  /// sigaction() returns as the old one.
  struct sigaction program;
};
Managed g_sig[NSIG];
/// Guards g_sig against two threads setting dispositions at once; taken
/// with every signal blocked, so no handler on the thread can find it held.
std::atomic_flag g_tableLock = ATOMIC_FLAG_INIT;

bool isDefault(const struct sigaction &a) { return a.sa_handler == SIG_DFL; }
bool isIgnore(const struct sigaction &a) { return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_IGN; }

void onSignal(int sig, siginfo_t *info, void *uc);

bool isOurs(const struct sigaction &a) { return (a.sa_flags & SA_SIGINFO) && a.sa_sigaction == onSignal; }

struct sigaction ourAction(int sig) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSignal;
  sigemptyset(&sa.sa_mask);
  // A SIGTERM for this thread waits until the handler is done (another
  // thread's waits in partialTrace). No SA_RESETHAND: the handler stays
  // installed while it writes. Faults run on the alternate stack (a stack
  // overflow of the main thread).
  sigaddset(&sa.sa_mask, SIGTERM);
  sa.sa_flags = SA_SIGINFO | (sig == SIGSEGV || sig == SIGBUS ? SA_ONSTACK : 0);
  return sa;
}

/// The process dies of `sig` now, with its default action: nothing of the
/// program's or the runtime's runs after.
void dieOf(int sig) {
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  realSigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

// ---- glibc's report of a broken heap ------------------------------------------

/// glibc's message for abort(): set (GLIBC_PRIVATE `__abort_msg`) when glibc
/// itself aborts, after a failed assertion or when it found memory broken
/// (malloc's consistency checks, fortify, the stack protector). In the
/// latter case malloc may hold its arena lock (it aborts from inside free)
/// and the heap is not to be trusted: no partial trace then.
struct AbortMsg {
  unsigned size;
  char msg[1];
};
AbortMsg *const *g_abortMsg = nullptr;

bool glibcFoundMemoryBroken(int sig) {
  if (sig != SIGABRT || !g_abortMsg)
    return false;
  const AbortMsg *m = *static_cast<AbortMsg *const volatile *>(g_abortMsg);
  return m && !std::strstr(m->msg, "Assertion `");
}

// ---- the handler ----------------------------------------------------------------

std::atomic<bool> g_inSignal{false}, g_signalDone{false};
volatile sig_atomic_t g_firstSignal = 0;
thread_local volatile sig_atomic_t t_inSignalPath __attribute__((tls_model("initial-exec")));

/// SIGTERM held while a trace file is written outside a handler.
std::atomic<bool> g_holdTerm{false};
std::atomic<int> g_heldTerm{0};
std::atomic<bool> g_heldChained{false};

const char *why(int sig) {
  switch (sig) {
  case SIGTERM:
    return "killed by SIGTERM";
  case SIGABRT:
    return "aborted (SIGABRT)";
  case SIGSEGV:
    return "segmentation fault (SIGSEGV)";
  default:
    return "bus error (SIGBUS)";
  }
}

/// The partial trace, once per process. A second signal (launchers and
/// batch systems both send SIGTERM; MPICH's thread may get it) waits for
/// the first handler to finish rather than kill the rank mid-write
/// (bounded). A fault inside the runtime's own signal path ends the process
/// with the signal that started it, as untraced.
void partialTrace(int sig) {
  if (t_inSignalPath) {
    dieOf(g_firstSignal ? int(g_firstSignal) : sig);
    return;
  }
  if (g_inSignal.exchange(true)) {
    const struct timespec tenth = {0, 100000000};
    for (int i = 0; i < 300 && !g_signalDone.load(); ++i)
      nanosleep(&tenth, nullptr);
    return;
  }
  g_firstSignal = sig;
  if (!glibcFoundMemoryBroken(sig)) {
    t_inSignalPath = 1;
    writePartial(why(sig), true);
    t_inSignalPath = 0;
  }
  g_signalDone.store(true);
}

/// After the partial trace: what the program's disposition does with the
/// signal. `chained`: the runtime's handler was called by another handler
/// (one installed without going through programSigaction), not by the
/// kernel.
void actAsProgram(int sig, siginfo_t *info, void *uc, bool chained) {
  struct sigaction program = g_sig[sig].program;
  if (isOurs(program))
    program.sa_handler = SIG_DFL;
  if (isIgnore(program))
    return;
  if (isDefault(program)) {
    if (!chained) {
      dieOf(sig);
      return;
    }
    // Called from a handler of the program's: the default action, as the
    // signal would have had it, once that handler returns (it may still
    // exit on its own, as it would have).
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    realSigaction(sig, &dfl, nullptr);
    raise(sig);
    return;
  }
  if (chained) {
    if (program.sa_flags & SA_SIGINFO)
      program.sa_sigaction(sig, info, uc);
    else
      program.sa_handler(sig);
    return;
  }
  // A handler installed before the runtime's (UCX's, loaded with libmpi):
  // it takes over and gets the signal again when this handler returns.
  realSigaction(sig, &program, nullptr);
  raise(sig);
}

void handle(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  struct sigaction cur;
  bool chained = realSigaction(sig, nullptr, &cur) == 0 && !isOurs(cur);
  if (sig == SIGTERM && g_holdTerm.load()) {
    g_heldChained.store(chained);
    g_heldTerm.store(sig);
    // Still held, or the writer, done meanwhile, took it; else (it ended
    // before it looked) it is handled here.
    if (g_holdTerm.load() || g_heldTerm.exchange(0) == 0) {
      errno = saved;
      return;
    }
  }
  partialTrace(sig);
  errno = saved;
  actAsProgram(sig, info, uc, chained);
}

void onSignal(int sig, siginfo_t *info, void *uc) {
  // Interrupting nextBlock or a HoldSignals section on this thread (a batch
  // conversion, an update of a table, or a wait for the lock while the
  // drain thread converts): the runtime's state is mid-update, so the
  // partial trace could not be written now. The signal is handled when the
  // section is done, milliseconds later. Faults cannot wait (the
  // instruction would fault again).
  if ((sig == SIGTERM || sig == SIGABRT) && tls.converting) {
    tls.deferredSignal = sig;
    return;
  }
  handle(sig, info, uc);
}

/// An alternate stack for the main thread, so that a stack overflow there
/// still gets its partial trace (other threads' overflows kill the process
/// without one).
void installAltStack() {
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE))
    return; // the program has one
  constexpr size_t kSize = 1 << 20;
  void *mem = std::malloc(kSize);
  if (!mem)
    return;
  stack_t st;
  st.ss_sp = mem;
  st.ss_size = kSize;
  st.ss_flags = 0;
  if (sigaltstack(&st, nullptr) != 0)
    std::free(mem);
}

} // namespace

int realSigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  SigactionFn f = resolveSigaction();
  if (!f) {
    errno = ENOSYS;
    return -1;
  }
  return f(sig, act, old);
}

int programSigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  if (sig <= 0 || sig >= NSIG || !g_sig[sig].managed)
    return realSigaction(sig, act, old);
  sigset_t all, mask;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &mask);
  while (g_tableLock.test_and_set(std::memory_order_acquire))
    sched_yield();
  Managed &m = g_sig[sig];
  const struct sigaction was = m.program;
  int rc = 0;
  int err = 0;
  if (act) {
    // SIG_DFL: the runtime's handler, which ends in the default action.
    struct sigaction kernel = isDefault(*act) || isOurs(*act) ? ourAction(sig) : *act;
    rc = realSigaction(sig, &kernel, nullptr);
    err = errno;
    if (rc == 0)
      m.program = *act;
  }
  g_tableLock.clear(std::memory_order_release);
  pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  if (rc != 0) {
    errno = err;
    return rc;
  }
  if (old) {
    *old = was;
    if (isOurs(was))
      old->sa_handler = SIG_DFL;
  }
  return 0;
}

void installSignalHandlers() {
  resolveSigaction();
  g_abortMsg = static_cast<AbortMsg *const *>(dlsym(RTLD_DEFAULT, "__abort_msg"));
  for (int sig : kSignals) {
    Managed &m = g_sig[sig];
    if (realSigaction(sig, nullptr, &m.program) != 0)
      continue;
    m.managed = true;
    // Inherited as ignored (`trap '' TERM; exec app`, nohup): the program
    // never sees the signal, so neither does the runtime.
    if (isIgnore(m.program))
      continue;
    // A handler installed before ours (a library's constructor) stays the
    // program's disposition; the runtime's handler chains to it.
    struct sigaction ours = ourAction(sig);
    realSigaction(sig, &ours, nullptr);
  }
  installAltStack();
}

/// A SIGTERM or SIGABRT that landed while this thread converted records or
/// was in a HoldSignals section (tls.converting): handled now, as if it had
/// arrived here.
void handleHeldSignal() {
  const int sig = tls.deferredSignal;
  tls.deferredSignal = 0;
  if (sig)
    handle(sig, nullptr, nullptr);
}

HeldTermination::HeldTermination() { g_holdTerm.store(true); }

HeldTermination::~HeldTermination() {
  g_holdTerm.store(false);
  int sig = g_heldTerm.exchange(0);
  if (!sig)
    return;
  // The trace is in place: now what the SIGTERM would have done (the partial
  // trace is skipped, the run has finished).
  partialTrace(sig);
  actAsProgram(sig, nullptr, nullptr, g_heldChained.load());
}

} // namespace sio::rt
