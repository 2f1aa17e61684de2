#include "sio/part/PartitionCount.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace sio::part {

namespace {

/// Whether rank r owns partition p (the ownership of setUpPartComms).
bool owns(int r, int p, int k, int ranks) {
  if (ranks >= k)
    return int64_t(r) * k / ranks == p;
  return p % ranks == r;
}

} // namespace

double straddleFraction(int k, int ranks) {
  if (k <= 1 || ranks <= 1)
    return 0;
  // Units of 1/(P*K): rank r holds [r*K, (r+1)*K), partition p [p*P, (p+1)*P).
  const int64_t P = ranks, K = k;
  int64_t moved = 0;
  for (int64_t r = 0; r < P; ++r) {
    const int64_t lo = r * K, hi = (r + 1) * K;
    for (int64_t p = lo / P; p < K && p * P < hi; ++p) {
      const int64_t overlap = std::min(hi, (p + 1) * P) - std::max(lo, p * P);
      if (overlap > 0 && !owns(int(r), int(p), k, ranks))
        moved += overlap;
    }
  }
  return double(moved) / double(P * K);
}

double partitionWriteCost(int k, int ranks, std::span<const double> bandwidths, double exchangeBytesPerSecond) {
  if (k < 1 || bandwidths.empty())
    return INFINITY;
  const std::size_t S = bandwidths.size();
  const double share = 1.0 / k;
  // A target's partitions share its bandwidth; a rank owning several
  // partitions (P < K) writes them one after another.
  std::vector<double> target(S, 0.0), rank(std::size_t(std::max(ranks, 1)), 0.0);
  for (int p = 0; p < k; ++p) {
    const double bw = bandwidths[std::size_t(p) % S];
    const double t = bw > 0 && std::isfinite(bw) ? share / bw : INFINITY;
    target[std::size_t(p) % S] += t;
    if (ranks < k)
      rank[std::size_t(p % ranks)] += t;
  }
  double io = *std::max_element(target.begin(), target.end());
  if (ranks < k)
    io = std::max(io, *std::max_element(rank.begin(), rank.end()));
  return io + straddleFraction(k, ranks) / exchangeBytesPerSecond;
}

int choosePartitionCount(std::span<const double> bandwidths, int ranks, double exchangeBytesPerSecond) {
  if (bandwidths.empty() || ranks <= 1)
    return 1;
  const int64_t most = std::min<int64_t>(ranks, 4 * int64_t(bandwidths.size()));
  std::vector<double> cost(std::size_t(most) + 1, INFINITY);
  double best = INFINITY;
  for (int k = 1; k <= most; ++k) {
    cost[std::size_t(k)] = partitionWriteCost(k, ranks, bandwidths, exchangeBytesPerSecond);
    best = std::min(best, cost[std::size_t(k)]);
  }
  for (int k = 1; k <= most; ++k)
    if (cost[std::size_t(k)] <= best * (1 + 1e-9)) // ties (K = 2 and 4 over 3 targets): fewer files
      return k;
  return 1;
}

} // namespace sio::part
