#include "PathProbe.h"

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

namespace sio::rt {

namespace {
/// Global-dynamic TLS: 4 KiB is too much for the static TLS surplus a
/// dlopen()ed runtime may get, and the probe is off the hot path.
thread_local char t_path[PATH_MAX];

/// getpid() is a system call of its own: the pid is cached, and forgotten
/// in a forked child (whose reads must not go to its parent's memory).
std::atomic<pid_t> g_pid{0};
void forgetPid() { g_pid.store(0, std::memory_order_relaxed); }

pid_t selfPid() {
  pid_t pid = g_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    static const bool registered = pthread_atfork(nullptr, nullptr, forgetPid) == 0;
    (void)registered;
    pid = getpid();
    g_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}
} // namespace

const char *probePath(const char *path) {
  // process_vm_readv stops at the first page it cannot read and returns what
  // it read before; splitting the source at the page boundary makes that
  // hold however the kernel treats a fault inside one iovec.
  static const uintptr_t kPage = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(path);
  const uintptr_t pageEnd = (start | (kPage - 1)) + 1;
  const size_t first = pageEnd - start < PATH_MAX ? size_t(pageEnd - start) : PATH_MAX;
  struct iovec local = {t_path, PATH_MAX};
  struct iovec remote[2] = {{const_cast<char *>(path), first}, {reinterpret_cast<void *>(pageEnd), PATH_MAX - first}};
  const ssize_t n = process_vm_readv(selfPid(), &local, 1, remote, first < PATH_MAX ? 2 : 1, 0);
  if (n <= 0 || std::memchr(t_path, '\0', size_t(n)) == nullptr)
    return nullptr;
  return t_path;
}

} // namespace sio::rt
