// The runtime's messages (warnings, the line at exit): written with system
// calls only to its own duplicate of the standard error the process started
// with, so that a program that closes fd 2 and opens a file there never
// receives them, and a signal handler can write them.
#include "RuntimeState.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sio::rt {

using namespace detail;

namespace {

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

namespace detail {

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

} // namespace detail

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

} // namespace sio::rt
