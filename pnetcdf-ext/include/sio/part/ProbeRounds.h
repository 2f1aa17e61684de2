// Target selection from several probe rounds (Son et al. 2013 §III-A made
// robust to a loaded node). One round under load measured the fast targets
// at 20-57 MB/s instead of ~67 and picked the 4x slower target in 8 of 15
// runs: the slope rule compares the slowest fast target with the slow one,
// and load only ever makes a target look slower. So:
//  - the targets of a round are probed at once and compared within that
//    round (each bandwidth over the round's fastest), so load that slows the
//    whole node between rounds cancels;
//  - a target's estimate is its best ratio over the rounds (load never makes
//    a target faster than it is), times the median of the rounds' fastest;
//  - the rule is applied to the estimates, and the decision is trusted when
//    the last round did not change it and every slope is at least
//    kConfidentMargin away from the threshold; otherwise another round is
//    probed, up to kMaxProbeRounds.
// No MPI or I/O here: the probe (lib/ProbeTargets.cpp) feeds the rounds in.
#pragma once

#include "sio/part/Select.h"

#include <cstddef>
#include <vector>

namespace sio::part {

inline constexpr int kMinProbeRounds = 2;
inline constexpr int kMaxProbeRounds = 5;
/// 10 percentage points of slope between every decision and the threshold.
inline constexpr double kConfidentMargin = 0.10;

struct RoundsSelection {
  Selection selection;          ///< the rule applied to `estimate`
  std::vector<double> estimate; ///< per target, in the unit of the rounds' bandwidths
  std::vector<int> votes;       ///< per target, rounds whose own selection included it
  int rounds = 0;
  /// The least distance of a slope from the threshold: of each selected
  /// target but the first (above it) and of the first left out (below it).
  /// Infinite with one target or when all are selected with none close.
  double margin = 0;
  /// The selection of all rounds but the last was the same (true after one).
  bool stable = true;
  bool confident = false; ///< stable and margin >= kConfidentMargin
};

/// rounds[j][t]: target t's bandwidth in round j (0 or non-finite: failed).
RoundsSelection selectFromRounds(const std::vector<std::vector<double>> &rounds,
                                 double threshold = kDefaultSlopeThreshold);

/// Whether to probe another round: fewer than kMinProbeRounds, or not
/// confident (a close call, or the last round changed the selection) and
/// fewer than kMaxProbeRounds.
inline bool wantAnotherRound(const RoundsSelection &s) {
  return s.rounds < kMinProbeRounds || (!s.confident && s.rounds < kMaxProbeRounds);
}

} // namespace sio::part
