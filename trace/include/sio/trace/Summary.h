// Aggregate views of a trace (sio-trace stats), computed without expanding
// ranks whose values do not depend on rank.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <map>
#include <string>

namespace sio::trace {

struct OpSummary {
  uint64_t calls = 0;  ///< executed calls summed over ranks and iterations
  uint64_t failed = 0; ///< of those, calls that failed (an `error` result)
  int64_t bytes = 0;   ///< bytes moved by reads/writes (transferBytes)
};

struct TraceSummary {
  int64_t nranks = 0;
  uint64_t totalCalls = 0;
  uint64_t innerCalls = 0; ///< calls made inside another traced call
  uint64_t failedCalls = 0; ///< calls that failed (an `error` result)
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  std::map<std::string, OpSummary> byOp;
  std::map<int64_t, OpSummary> byFile; ///< file table id -> traffic
  uint64_t activeRanks = 0; ///< ranks that made at least one call
  uint64_t staticEvents = 0; ///< event nodes in the compressed trace
  uint64_t staticLoops = 0;
  bool exact = true; ///< false if some value could not be evaluated
};

TraceSummary summarize(const Trace &trace);

/// Whether an operation reads or writes data, and the bytes one call moves
/// for `rank` at the given loop indices (nullopt when not a data transfer).
/// The bytes moved are the call's `result` when it has one, 0 when it has an
/// `error`, and otherwise what it asked for (traces without results,
/// nonblocking and split-collective starts): docs/trace-format.md, Results.
enum class Direction { None, Read, Write };
Direction direction(std::string_view op);
std::optional<int64_t> transferBytes(const Trace &trace, const Event &event, const ExprEnv &env);
/// The bytes a read/write call asked for (count × datatype size, count,
/// bytes, size × nmemb), whatever it moved.
std::optional<int64_t> requestedBytes(const Trace &trace, const Event &event, const ExprEnv &env);

} // namespace sio::trace
