// What SIO_MEMORY_CAP counts (docs/runtime.md, "Memory cap"): estimates of
// the heap the runtime holds, in bytes as glibc's malloc hands them out, for
// the parts that grow with a run — the rank's file and string tables while it
// traces, and the trace at finalize (its tables and body, the text shipped
// between ranks in the merge). The estimates are upper bounds of the heap
// these structures take (checked against malloc's own count in
// runtime/unittests/MemoryBudgetTest.cpp), so that a cap that holds in the
// accounting holds in the process.
#pragma once

#include "sio/trace/Trace.h"

#include <cstddef>
#include <cstdint>

namespace sio::rt {

/// Heap bytes malloc takes for a request of `n` bytes (glibc, 64-bit: the
/// request plus an 8-byte header rounded up to 16, at least 32).
size_t mallocBytes(size_t n);
/// Heap bytes of a std::string of `length` characters beyond the object
/// itself (none when it fits inline).
size_t stringHeapBytes(size_t length);

/// The rank's table of interned names (file paths, strings): a vector of
/// names and a hash index of them, as CallIds.cpp keeps them (State in
/// RuntimeState.h).
class InternedTableBytes {
public:
  void add(size_t length) {
    ++entries_;
    strings_ += 2 * stringHeapBytes(length); // the vector's copy and the index key
  }
  size_t entries() const { return entries_; }
  /// Held while tracing: names, vector slots (up to twice the entries while
  /// it grows), index nodes and buckets.
  size_t heldBytes() const;
  /// Held at finalize for the same names in the rank's trace (a FileEntry
  /// with one part each, the runtime's own tables freed first) and in the
  /// compact JSON text a non-root rank ships, which finalize needs on top of
  /// what the tables held while tracing: reserved from the cap in advance,
  /// so that the run stops recording early enough for finalize to fit.
  size_t finalizeBytes() const;

private:
  size_t entries_ = 0;
  size_t strings_ = 0;
};

/// Heap held by a trace (model structures: tables, body), an upper bound.
size_t traceHeapBytes(const sio::trace::Trace &t);

/// Heap the merge's content index and id map take for `entries` files of
/// one side.
size_t mergeTableBytes(size_t entries);

/// Heap a merge needs for a child's trace of `textBytes` bytes of compact
/// JSON: the text and the trace read from it, or (the text freed) the trace
/// and the merge's index and id maps for its files, whichever is more.
size_t mergeInputBytes(size_t textBytes);

} // namespace sio::rt
