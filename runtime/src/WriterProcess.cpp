// The writer process of a signal handler: see WriterProcess.h.
#include "WriterProcess.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sio::rt {
namespace {

/// The progress counter of the writer process running now: a shared page,
/// so that the waiting handler sees the copy's stores; null otherwise.
std::atomic<std::atomic<unsigned> *> g_progress{nullptr};

/// Signals that report a fault of the copy itself: they keep their default
/// action there (the copy dies of them, the handler reports it). Every
/// other signal is blocked in the copy: a SIGTERM sent to the whole process
/// group must not run the program's handler a second time in the copy, nor
/// end the write the program's own signal started.
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT};

long nowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return long(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

[[noreturn]] void runCopy(pid_t parent, void (*work)(void *), void *context) {
  // Ends with the process it copies (a launcher's SIGKILL after its grace
  // period ends both).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(3);
  sigset_t mask;
  sigfillset(&mask);
  for (int sig : kFaultSignals) {
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    syscall(SYS_rt_sigaction, sig, &dfl, nullptr, NSIG / 8);
    sigdelset(&mask, sig);
  }
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, nullptr, NSIG / 8);
  // A copy that faults leaves no core file next to the program's.
  const struct rlimit noCore = {0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  work(context);
  // Never exit(): the program's atexit handlers and buffered streams belong
  // to the process that was copied.
  _exit(0);
}

/// Waits for the copy; kills it once its progress has not moved for
/// kWriterStallMs.
WriterOutcome await(pid_t child, const std::atomic<unsigned> *progress) {
  // Without a progress page, a fixed bound for the whole write.
  const long stallMs = progress ? kWriterStallMs : 10 * kWriterStallMs;
  unsigned seen = progress ? progress->load(std::memory_order_relaxed) : 0;
  long movedAt = nowMs();
  const struct timespec poll = {0, 5000000};
  while (true) {
    int status = 0;
    // __WALL: the copy sends no SIGCHLD, so it is a "clone" child to wait4.
    pid_t r = wait4(child, &status, __WALL | WNOHANG, nullptr);
    if (r == child)
      return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? WriterOutcome::Finished : WriterOutcome::Failed;
    if (r < 0 && errno != EINTR)
      return WriterOutcome::Failed;
    nanosleep(&poll, nullptr);
    const unsigned now = progress ? progress->load(std::memory_order_relaxed) : 0;
    if (now != seen) {
      seen = now;
      movedAt = nowMs();
    } else if (nowMs() - movedAt >= stallMs) {
      kill(child, SIGKILL);
      while (wait4(child, &status, __WALL, nullptr) < 0 && errno == EINTR) {
      }
      return WriterOutcome::Stalled;
    }
  }
}

} // namespace

WriterOutcome runInWriterProcess(void (*work)(void *), void *context) {
  const int savedErrno = errno;
  void *page = mmap(nullptr, sizeof(std::atomic<unsigned>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  auto *progress = page == MAP_FAILED ? nullptr : new (page) std::atomic<unsigned>(0);
  g_progress.store(progress, std::memory_order_relaxed);
  const pid_t parent = getpid();
  // A clone without CLONE_VM is a fork without glibc's fork handlers (which
  // take malloc's locks: not async-signal-safe); exit signal 0 (no SIGCHLD)
  // keeps it out of the program's wait(-1) and SIGCHLD handler. glibc's
  // idea of the thread's id stays the caller's in the copy, so the
  // runtime's recursive lock, which the caller holds, is the copy's too.
  const long child = syscall(SYS_clone, 0L, nullptr, nullptr, nullptr, nullptr);
  if (child == 0)
    runCopy(parent, work, context);
  WriterOutcome outcome = child < 0 ? WriterOutcome::NotStarted : await(pid_t(child), progress);
  g_progress.store(nullptr, std::memory_order_relaxed);
  if (progress)
    munmap(page, sizeof(std::atomic<unsigned>));
  errno = savedErrno;
  return outcome;
}

void writerProgress() {
  // A plain increment (no locked instruction); a lost update between threads
  // does not matter, only that the value moves.
  if (std::atomic<unsigned> *p = g_progress.load(std::memory_order_relaxed))
    p->store(p->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

const char *describe(WriterOutcome outcome) {
  switch (outcome) {
  case WriterOutcome::Finished:
    return "";
  case WriterOutcome::Failed:
    return "the process writing it failed (the runtime's state was damaged)";
  case WriterOutcome::Stalled:
    return "writing it made no progress for 2 s (the signal interrupted a lock of libc's, e.g. inside malloc)";
  case WriterOutcome::NotStarted:
    return "no process could be started to write it (memory or process limit)";
  }
  return "";
}

} // namespace sio::rt
