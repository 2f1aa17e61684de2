// One rank's calls in program order, expanded from the compressed trace: the
// shared walk behind the report's access-pattern plots and the timeline
// exports. Loops are unrolled, elastic values evaluated for the rank and the
// loop indices, handles followed to their files, positions tracked through
// seeks and reads/writes, and a timeline laid out from the timing statistics.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace sio::report {

/// One executed call of one rank.
struct Call {
  int64_t rank = 0;
  uint64_t seq = 0; ///< index of the call on its rank, from 0
  const trace::Node *node = nullptr;
  const trace::Event *event = nullptr;
  std::span<const int64_t> indices; ///< loop indices, outermost first
  /// The outermost loop the call runs in (nullptr at top level) and which
  /// execution of that loop node it is (0, 1, ... per rank).
  const trace::Node *outerLoop = nullptr;
  uint64_t outerInstance = 0;
  std::optional<int64_t> file;   ///< files table id, directly or through the handle
  std::optional<int64_t> offset; ///< explicit offset, else the tracked position (bytes)
  std::optional<int64_t> bytes;  ///< bytes moved by a read or write
  /// Reconstructed timeline (ns from the rank's first call): the gap before
  /// the call and its duration are the means of the event's timing
  /// statistics. Exact where the statistics hold one sample; a call without
  /// statistics is drawn 1 us long (timed = false).
  double startNs = 0;
  double durationNs = 0;
  bool timed = false;         ///< the event has duration statistics
  bool reconstructed = false; ///< from merged statistics (count > 1), not one sample

  trace::ExprEnv env(int64_t nranks) const { return {rank, nranks, indices}; }
};

/// Evaluates a parameter for the call; nullopt when missing, a string, or not
/// an integer for this rank.
std::optional<int64_t> evalParam(const trace::Trace &trace, const Call &call, std::string_view name);
/// A parameter's value as display text: the integer, the string, or the file
/// name for `file` parameters.
std::string paramText(const trace::Trace &trace, const Call &call, const trace::Param &param);

/// Calls `fn` for each call of `rank` in order, at most `maxCalls` of them.
/// Returns false when it stopped at the limit (or a loop count could not be
/// evaluated, which leaves the rest of that loop out).
bool expandRank(const trace::Trace &trace, int64_t rank, uint64_t maxCalls,
                const std::function<void(const Call &)> &fn);

/// Ranks to show when at most `limit` are: all of them up to the limit, else
/// `limit` ranks spread evenly over [0, nranks) including the first and last.
std::vector<int64_t> sampleRanks(int64_t nranks, int64_t limit);

} // namespace sio::report
