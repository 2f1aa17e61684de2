// The bytes a read returns follow from the file's extent when it runs:
// min(requested, max(0, extent - offset)), and the extent follows from the
// trace's earlier writes, truncates and set_size calls. sio-extrap models
// read results that way instead of fitting them (docs/extrap.md, Read
// results): a short read past the end of the file at 12 and 16 ranks is then
// as exact at the target as a full one.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sio::extrap {

/// What the simulation found for one read event (keyed by its path in the
/// body, "body[3].body[0]", as sio-extrap names events).
struct ReadOutcome {
  bool supported = true;              ///< the file's extent and the read's offset are known
  std::string why;                    ///< when not: what the trace does not hold
  bool allFull = true;                ///< every recorded result was the requested byte count
  std::string mismatch;               ///< a recorded result the extent does not give (first one)
  bool iterationDependent = false;    ///< a rank's result changes with the loop index
  bool full = true;                   ///< every computed result is the requested byte count
  std::map<int64_t, int64_t> perRank; ///< computed result by rank (last iteration)
  /// Computed results by rank in the order the rank ran the read (one per
  /// iteration of the loops around it), and how many loops there are.
  std::map<int64_t, std::vector<int64_t>> sequence;
  size_t loopDepth = 0;
};

/// Walks `trace` in program order at its rank count, tracking the extent of
/// every file the trace creates, and computes each read's result. With
/// `compareRecorded`, also compares it with the recorded `result`. Gives up
/// (every read unsupported, `why` says so) past `maxWork` rank-events.
std::map<std::string, ReadOutcome> simulateReads(const sio::trace::Trace &trace, bool compareRecorded,
                                                 int64_t maxWork = 4'000'000);

/// Whether op is a read whose result sio-extrap computes this way.
bool isModeledRead(const std::string &op);

/// Whether op is a POSIX read (its count is in bytes).
bool isPosixRead(const std::string &op);

} // namespace sio::extrap
