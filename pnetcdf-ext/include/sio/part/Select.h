// Storage-target selection of Son et al. 2013 §III-A: the probed bandwidths
// are sorted in descending order; the aggregate bandwidth of the first i
// targets is estimated as A(i) = i * B(i) (a striped write goes at the pace of
// its slowest target), and targets are added while the relative slope of A,
// (A(i) - A(i-1)) / A(i-1), stays at or above a threshold (the paper's -15 %).
// The selection is the largest such prefix, at least one target.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sio::part {

/// The paper's threshold: a target whose addition makes the estimated
/// aggregate bandwidth fall by more than 15 % ends the selection.
inline constexpr double kDefaultSlopeThreshold = -0.15;

struct Selection {
  /// Target indices (into the probed list) by bandwidth, fastest first; ties
  /// keep the listed order.
  std::vector<std::size_t> order;
  /// How many of `order` are selected (>= 1 when any target was given).
  std::size_t count = 0;
  /// aggregate[i] = A(i + 1), the estimated aggregate bandwidth of the first
  /// i + 1 targets of `order`.
  std::vector<double> aggregate;
  /// slope[i] = relative change of A when target order[i] is added
  /// (slope[0] = 0: the first target is always taken).
  std::vector<double> slope;

  /// The selected target indices, fastest first.
  std::vector<std::size_t> selected() const { return {order.begin(), order.begin() + count}; }
};

/// Applies the rule to probed bandwidths (any unit; a failed or non-finite
/// probe counts as 0, so it is selected only when it is the only target).
Selection selectTargets(std::span<const double> bandwidths, double threshold = kDefaultSlopeThreshold);

/// Parses a threshold hint: "-15%" or the fraction "-0.15". Returns nothing
/// (and sets *error) for anything else or a value outside (-100 %, 100 %].
std::optional<double> parseThreshold(std::string_view text, std::string *error = nullptr);

/// Splits a comma-separated target list ("dirA,dirB"), dropping empty items
/// and surrounding blanks.
std::vector<std::string> splitTargets(std::string_view text);

/// The partition count when nc_num_partitions is not given:
/// choosePartitionCount in sio/part/PartitionCount.h.

} // namespace sio::part
