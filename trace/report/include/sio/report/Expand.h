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
  /// Reconstructed timeline (whole ns from the rank's first call): the gap
  /// before the call and its duration are the means of the rank's own
  /// timing group (Event::rankTiming) when the trace has one, else of the
  /// event's statistics merged over all its ranks. Exact where that holds
  /// one sample; a call without statistics is drawn 1 us long (timed =
  /// false). An inner call (POSIX inside MPI-IO) is placed inside the call
  /// it follows: its gap counts from that call's start (or the previous
  /// inner call's end), and it is clipped to end within that call.
  double startNs = 0;
  double durationNs = 0;
  bool timed = false;         ///< the event has duration statistics
  bool reconstructed = false; ///< from merged statistics (count > 1), not one sample
  bool perRank = false;       ///< the times are this rank's own (rank timing), not all ranks' merged
  /// Nested in the preceding top-level call (an inner call that has one):
  /// that call's seq; nullopt for top-level calls.
  std::optional<uint64_t> parentSeq;

  trace::ExprEnv env(int64_t nranks) const { return {rank, nranks, indices}; }
};

/// A read or write with a known byte count: what the exports count as an
/// I/O operation (OTF2 IoOperationBegin/Complete), inner calls included.
bool isIoOperation(const Call &call);

/// What a timeline's times are, for its metadata (Chrome otherData.timing,
/// the OTF2 archive's description): reconstructed, per rank or merged,
/// nested, nominal; the `*Field` names say where each call says so (empty:
/// not said per call).
struct TimelineFlags {
  bool perRank = false, merged = false, reconstructed = false, nested = false, untimed = false;
};
std::string timelineTimingNote(const trace::Trace &trace, const TimelineFlags &flags, std::string_view sourceField,
                               std::string_view timingField, std::string_view innerField,
                               std::string_view parentField);

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
