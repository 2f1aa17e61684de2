#include "Tools.h"

#include "CodeSpan.h"

#include <dlfcn.h>
#include <iterator>

namespace sio::rt {
namespace {

/// By soname ("libX.so" also names "libX.so.N"). Each one's messages in the
/// trace name it (Runtime.cpp, Inexact::ToolFirst).
constexpr const char *kToolLibraries[] = {"libsio-prefetch.so"};

} // namespace

ToolSpans g_tools;
std::atomic<void *> g_toolMpi[kNumCalls];

void findToolLibraries() {
  CodeSpan spans[kMaxToolSpans];
  const int n = codeSpansNamed(kToolLibraries, int(std::size(kToolLibraries)), spans, kMaxToolSpans);
  for (int i = 0; i < n; ++i) {
    g_tools.lo[i].store(spans[i].lo, std::memory_order_relaxed);
    g_tools.hi[i].store(spans[i].hi, std::memory_order_relaxed);
  }
  g_tools.n.store(n, std::memory_order_release);
}

bool toolBeforeTracer() {
  const int n = g_tools.n.load(std::memory_order_acquire);
  if (n == 0)
    return false;
  void *front = dlsym(RTLD_DEFAULT, "MPI_File_read");
  return front != nullptr && inToolSpan(reinterpret_cast<uintptr_t>(front), n);
}

bool toolBehindTracer() {
  for (const auto &slot : g_toolMpi)
    if (slot.load(std::memory_order_relaxed) != nullptr)
      return true;
  return false;
}

} // namespace sio::rt
