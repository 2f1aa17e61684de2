// Tool libraries: libraries that interpose MPI-IO in the same process and
// make MPI and POSIX calls of their own (sio's prefetcher). Recognised by
// soname, once, when the runtime starts, so that the wrappers record the
// application's calls and not the tool's (docs/runtime.md, "Other tools in
// the same process"; the rules themselves are in Wrappers.cpp).
#pragma once

#include "Runtime.h"

#include <atomic>
#include <cstdint>

namespace sio::rt {

inline constexpr int kMaxToolSpans = 4;

/// The executable spans of the tool libraries found.
struct ToolSpans {
  /// Spans found; 0 (the common case) costs the POSIX wrappers one load.
  std::atomic<int> n{0};
  std::atomic<uintptr_t> lo[kMaxToolSpans], hi[kMaxToolSpans];
};
extern ToolSpans g_tools;

/// Per MPI CallId: the tool's MPI_X that MPI_X's wrapper calls (a tool
/// loaded after the tracer), or null.
extern std::atomic<void *> g_toolMpi[kNumCalls];

/// `a` lies in one of the first `n` tool spans.
inline bool inToolSpan(uintptr_t a, int n) {
  for (int i = 0; i < n; ++i) {
    const uintptr_t lo = g_tools.lo[i].load(std::memory_order_relaxed);
    if (a - lo < g_tools.hi[i].load(std::memory_order_relaxed) - lo)
      return true;
  }
  return false;
}

/// Looks for the tool libraries (dl_iterate_phdr; at start-up).
void findToolLibraries();
/// A tool interposes MPI-IO before the tracer: the application's
/// MPI_File_read binds to it, so the tracer sees only what it passes on.
bool toolBeforeTracer();
/// MPI_X's wrapper has called a tool's MPI_X.
bool toolBehindTracer();

} // namespace sio::rt
