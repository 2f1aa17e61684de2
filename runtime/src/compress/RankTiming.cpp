// Per-rank timing of merged events (docs/trace-format.md, "Per-rank
// timing"): each rank's own statistics while the ranks are merged, then
// kept only where the ranks differ enough for a timeline to show it.
#include "InterRank.h"

#include <algorithm>
#include <cmath>

namespace sio::rt {

using namespace sio::trace;

void seedRankTiming(std::vector<Node> &body, int64_t rank) {
  for (Node &n : body) {
    if (n.isLoop()) {
      seedRankTiming(n.loop().body, rank);
      continue;
    }
    Event &e = n.event();
    if (e.duration.count() || e.compute.count())
      e.rankTiming = {rankTimingOf(RankList::single(rank), e.compute, e.duration)};
  }
}

namespace {

// Per-rank timing is kept where a timeline would show it (docs/trace-format.md,
// "Per-rank timing"): the ranks' total time in the event differs by at least
// this fraction of a rank's mean traced time, in at most kMaxTimingGroups
// groups per call count. Equal ranks then cost nothing at any rank count,
// and a trace's size stays near-constant as ranks grow.
constexpr double kMinImbalance = 0.05;
constexpr size_t kMaxTimingGroups = 4;

double tracedNs(const std::vector<Node> &body) {
  double ns = 0;
  for (const Node &n : body)
    ns += n.isLoop() ? tracedNs(n.loop().body) : n.event().compute.sum() + n.event().duration.sum();
  return ns;
}

double callNs(const RankTiming &g) { return g.computeMean() + g.durationMean(); }

void join(RankTiming &into, RankTiming &&g) {
  into.ranks = into.ranks.unite(g.ranks);
  into.compute.sum += g.compute.sum;
  into.compute.min = std::min(into.compute.min, g.compute.min);
  into.compute.max = std::max(into.compute.max, g.compute.max);
  into.duration.sum += g.duration.sum;
  into.duration.min = std::min(into.duration.min, g.duration.min);
  into.duration.max = std::max(into.duration.max, g.duration.max);
}

void limitRankTiming(std::vector<RankTiming> &groups, double minImbalanceNs) {
  if (groups.size() < 2)
    return;
  double lo = INFINITY, hi = 0;
  for (const RankTiming &g : groups) {
    lo = std::min(lo, double(g.count) * callNs(g));
    hi = std::max(hi, double(g.count) * callNs(g));
  }
  if (hi - lo < minImbalanceNs) {
    groups.clear(); // no rank's time here differs enough to show
    return;
  }
  // At most kMaxTimingGroups per call count: groups sorted by mean call
  // time, neighbours joined in equal shares.
  std::sort(groups.begin(), groups.end(), [](const RankTiming &a, const RankTiming &b) {
    return a.count != b.count ? a.count < b.count : callNs(a) < callNs(b);
  });
  std::vector<RankTiming> out;
  for (size_t i = 0; i < groups.size();) {
    size_t j = i;
    while (j < groups.size() && groups[j].count == groups[i].count)
      ++j;
    const size_t n = j - i, k = std::min(n, kMaxTimingGroups);
    for (size_t c = 0; c < k; ++c) {
      const size_t from = i + c * n / k, to = i + (c + 1) * n / k;
      RankTiming g = std::move(groups[from]);
      for (size_t m = from + 1; m < to; ++m)
        join(g, std::move(groups[m]));
      out.push_back(std::move(g));
    }
    i = j;
  }
  groups = std::move(out);
}

void compactRankTiming(std::vector<Node> &body, double minImbalanceNs) {
  for (Node &n : body) {
    if (n.isLoop()) {
      compactRankTiming(n.loop().body, minImbalanceNs);
      continue;
    }
    std::vector<RankTiming> &groups = n.event().rankTiming;
    limitRankTiming(groups, minImbalanceNs);
    if (groups.size() == 1 && groups.front().ranks == n.ranks)
      groups.clear(); // one group: the event's statistics say it all
  }
}

} // namespace

void compactRankTiming(std::vector<Node> &body, int64_t nranks) {
  compactRankTiming(body, kMinImbalance * tracedNs(body) / double(std::max<int64_t>(1, nranks)));
}

} // namespace sio::rt
