// Per-rank timing of one event: what the event's merged TimingStats lose.
// The runtime gives every event of a rank's trace one group for that rank
// (count, mean, min, max of its durations and computation gaps); the
// inter-rank merge unites groups whose per-rank count is equal and whose
// mean call time (gap + duration) falls in the same log2 histogram bin
// (Timing.h), so equal ranks stay one group and a straggler keeps its own. docs/trace-format.md, "Per-rank timing".
#pragma once

#include "sio/trace/RankList.h"
#include "sio/trace/Timing.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sio::trace {

/// Sum, min and max of one quantity over the samples of a group's ranks.
struct TimingSummary {
  double sum = 0;
  uint64_t min = 0;
  uint64_t max = 0;
  friend bool operator==(const TimingSummary &, const TimingSummary &) = default;
};

/// The calls of one event on a group of ranks.
struct RankTiming {
  RankList ranks;                  ///< disjoint from the event's other groups, within the node's ranks
  uint64_t count = 0;              ///< calls per rank (the same on every rank of the group)
  TimingSummary compute, duration; ///< over all count * ranks.size() calls

  uint64_t samples() const { return count * uint64_t(ranks.size()); }
  double computeMean() const { return samples() ? compute.sum / double(samples()) : 0; }
  double durationMean() const { return samples() ? duration.sum / double(samples()) : 0; }
  friend bool operator==(const RankTiming &, const RankTiming &) = default;
};

/// The group of `ranks` described by an event's statistics: the per-rank
/// count is duration.count() / ranks.size() (exact for one rank, the
/// runtime's case).
RankTiming rankTimingOf(const RankList &ranks, const TimingStats &compute, const TimingStats &duration);

/// Adds b's groups to a: a group whose per-rank count and log2 bin of the
/// mean gap + duration equal those of a group of `a` joins it (ranks
/// united, sums added, min and max taken); others are appended. Linear in
/// the number of groups.
void mergeRankTiming(std::vector<RankTiming> &a, std::vector<RankTiming> b);

/// The one-line text of a group in the trace: "RANKS COUNT DMEAN DMIN DMAX
/// GMEAN GMIN GMAX" (docs/trace-format.md, "Per-rank timing"), RANKS as
/// comma-separated `a`, `a-b` or `a-b:stride` items, means in whole ns.
std::string rankTimingText(const RankTiming &group);
/// Parses rankTimingText's form; nullopt with `error` set when malformed.
std::optional<RankTiming> parseRankTiming(std::string_view text, std::string &error);

/// The group holding `rank`, or nullptr.
const RankTiming *findRankTiming(const std::vector<RankTiming> &groups, int64_t rank);

} // namespace sio::trace
