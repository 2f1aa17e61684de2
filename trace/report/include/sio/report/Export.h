// Timeline exports of a trace: the Chrome trace event format (Perfetto,
// chrome://tracing) and OTF2 archives (Score-P's format; Vampir, otf2-print).
// Both expand the compressed trace rank by rank (Expand.h).
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace sio::report {

struct ExportOptions {
  int64_t maxRanks = 64;          ///< tracks written; more ranks: an even sample (0 = all)
  uint64_t maxCallsPerRank = 1u << 20; ///< calls per rank before the rank's track stops
  /// Calls of all ranks together (0 = no limit): more throw
  /// ExportBudgetExceeded (the output budget of sio-trace export).
  uint64_t maxTotalCalls = 0;
};

/// An export stopped at ExportOptions::maxTotalCalls.
struct ExportBudgetExceeded : std::runtime_error {
  ExportBudgetExceeded() : std::runtime_error("export budget exceeded") {}
};

/// What an export wrote, for the command's summary line.
struct ExportStats {
  int64_t ranks = 0;
  uint64_t calls = 0;
  uint64_t ioOperations = 0; ///< reads and writes (OTF2 IoOperationBegin/Complete pairs)
  bool sampled = false;      ///< fewer tracks than ranks
  bool truncated = false;    ///< some rank hit maxCallsPerRank
};

/// Writes the JSON object form: {"traceEvents": [...], "otherData": {...}}.
ExportStats writeChromeTrace(std::ostream &out, const trace::Trace &trace, const ExportOptions &options);

/// Whether this build can write OTF2 (libotf2-trace-dev found at configure time).
bool otf2Available();
/// Writes the archive `dir`/traces.otf2 (+ traces.def, traces/). Throws
/// std::runtime_error naming the failure, or when OTF2 is not available.
ExportStats writeOtf2(const std::string &dir, const trace::Trace &trace, const ExportOptions &options);

/// JSON string literal (quotes included) of arbitrary bytes: control
/// characters escaped, invalid UTF-8 replaced by U+FFFD.
std::string jsonString(std::string_view s);

} // namespace sio::report
