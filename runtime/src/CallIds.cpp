// What the wrappers ask the runtime for while a call is recorded: codes for
// descriptors, streams and directories (lock- and allocation-free), ids in
// the rank's file and string tables, excluded paths, and the marks of data
// that moved where the trace cannot see it.
#include "RuntimeState.h"

#include "MemoryBudget.h"

#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace sio::rt {

using namespace detail;

namespace {

/// Lowest-free small integers without locks or allocation (opens and closes
/// may come from any thread, and from signal-interrupted code): a bitmap of
/// the first 4096 codes; beyond it, codes are handed out in sequence.
class CodePool {
public:
  int32_t acquire() {
    for (size_t w = 0; w < kWords; ++w) {
      uint64_t v = words_[w].load(std::memory_order_relaxed);
      while (v != ~uint64_t(0)) {
        uint64_t bit = ~v & (v + 1); // lowest clear bit
        if (words_[w].compare_exchange_weak(v, v | bit, std::memory_order_acq_rel))
          return int32_t(w * 64 + __builtin_ctzll(bit));
      }
    }
    return overflow_.fetch_add(1, std::memory_order_relaxed);
  }
  void release(int32_t code) {
    if (code >= 0 && size_t(code) < kWords * 64)
      words_[code / 64].fetch_and(~(uint64_t(1) << (code % 64)), std::memory_order_acq_rel);
  }

private:
  static constexpr size_t kWords = 64;
  std::atomic<uint64_t> words_[kWords] = {};
  std::atomic<int32_t> overflow_{int32_t(kWords * 64)};
};

CodePool g_fdCodes, g_streamCodes, g_dirCodes;

} // namespace

int32_t newFdCode() { return g_fdCodes.acquire(); }
int32_t newStreamCode() { return g_streamCodes.acquire(); }
void releaseFdCode(int32_t code) { g_fdCodes.release(code); }
void releaseStreamCode(int32_t code) { g_streamCodes.release(code); }
int32_t newDirCode() { return g_dirCodes.acquire(); }
void releaseDirCode(int32_t code) { g_dirCodes.release(code); }

std::vector<std::string> inexactReasons(uint32_t bits) {
  static constexpr const char *kWhy[kNumInexact] = {
      "data moved through a file descriptor or stream whose open was not recorded (opened before the "
      "runtime started, or inherited)",
      "a recorded file was memory-mapped (mmap): bytes read or written through memory are not recorded",
      "sendfile, copy_file_range or splice moved data of a recorded file inside the kernel: not recorded",
      "POSIX asynchronous I/O (aio_read, aio_write, lio_listio) on a recorded file: not recorded",
      "inline getc_unlocked/putc_unlocked-style buffer access (glibc <stdio.h> at -O1 and above) on a "
      "recorded stream: the bytes moved inside the stream buffer are not recorded",
      "a scanf-family or wide-character stdio call on a stream without a position: the bytes it moved are "
      "not known",
      "libsio-prefetch.so was loaded before the tracer and interposes MPI-IO first: the trace holds the MPI "
      "calls it passed on (reads it served from its cache are missing or have count 0), not the "
      "application's; preload libsiotrace-rt.so first (docs/runtime.md, \"Other tools in the same process\")",
      "close() closed the descriptor under a recorded fopen stream: the close is not recorded, and the "
      "stream's later calls act on whatever the descriptor number names next"};
  std::vector<std::string> v;
  for (int i = 0; i < kNumInexact; ++i)
    if (bits & (1u << i))
      v.emplace_back(kWhy[i]);
  return v;
}

namespace {
std::atomic<uint8_t> g_untrackedSeen[kMaxFd];
}

void noteUntrackedData(int fd) {
  if (unsigned(fd) >= unsigned(kMaxFd) || g_untrackedSeen[fd].exchange(1, std::memory_order_relaxed))
    return;
  Blocked blk; // fstat/readlink below are the runtime's, never traced
  struct stat st;
  if (fstat(fd, &st) != 0) {
    // Not open (the call failed with EBADF): nothing was seen, and the next
    // descriptor of this number (an fopen's, a raw syscall's) must be looked at.
    g_untrackedSeen[fd].store(0, std::memory_order_relaxed);
    return;
  }
  if (!S_ISREG(st.st_mode))
    return; // a pipe, socket, terminal, device: no bytes on disk to miss
  char link[64], path[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n > 0) {
    path[n] = 0;
    if (pathExcluded(path))
      return;
  }
  noteInexact(Inexact::Untracked);
}

void forgetUntracked(int fd) {
  if (unsigned(fd) < unsigned(kMaxFd))
    g_untrackedSeen[fd].store(0, std::memory_order_relaxed);
}

bool pathExcluded(const char *path) {
  for (const std::string &p : S().settings.excludePaths)
    if (std::strncmp(path, p.data(), p.size()) == 0)
      return true;
  return false;
}

namespace {

/// The id of `name` in one of the rank's name tables (files, strings), the
/// next id if it is new; past the memory cap the table no longer grows and
/// a new name gets -1 (its call is then counted as dropped). Under s.mu.
int64_t intern(State &s, std::unordered_map<std::string, int64_t> &ids, std::vector<std::string> &names,
               InternedTableBytes &bytes, const char *name) {
  if (g_dropping.load(std::memory_order_relaxed)) {
    auto it = ids.find(name);
    return it == ids.end() ? -1 : it->second;
  }
  auto [it, fresh] = ids.try_emplace(name, int64_t(names.size()));
  if (fresh) {
    names.emplace_back(name);
    bytes.add(names.back().size());
    if (++s.freshSinceCapCheck >= 64) {
      s.freshSinceCapCheck = 0;
      checkCap(s);
    }
  }
  return it->second;
}

} // namespace

int64_t fileId(const char *path) {
  State &s = S();
  HoldSignals blk; // a signal handler must not find the lock held mid-update
  std::lock_guard lk(s.mu);
  if (!s.marked)
    markTracingProcess(s);
  return intern(s, s.fileIds, s.files, s.fileBytes, path);
}

int64_t stringId(const char *text) {
  State &s = S();
  HoldSignals blk; // a signal handler must not find the lock held mid-update
  std::lock_guard lk(s.mu);
  return intern(s, s.stringIds, s.strings, s.stringBytes, text);
}

} // namespace sio::rt
