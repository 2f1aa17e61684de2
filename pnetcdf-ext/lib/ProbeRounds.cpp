#include "sio/part/ProbeRounds.h"

#include <algorithm>
#include <cmath>

namespace sio::part {

namespace {

RoundsSelection estimate(const std::vector<std::vector<double>> &rounds, double threshold) {
  RoundsSelection r;
  r.rounds = int(rounds.size());
  const std::size_t n = rounds.empty() ? 0 : rounds.front().size();
  r.estimate.assign(n, 0.0);
  r.votes.assign(n, 0);
  std::vector<double> fastest;
  for (const auto &round : rounds) {
    double top = 0;
    for (std::size_t t = 0; t < n && t < round.size(); ++t)
      if (std::isfinite(round[t]) && round[t] > top)
        top = round[t];
    if (top <= 0)
      continue; // every target failed this round: nothing to compare
    fastest.push_back(top);
    for (std::size_t t = 0; t < n && t < round.size(); ++t)
      if (std::isfinite(round[t]) && round[t] > 0)
        r.estimate[t] = std::max(r.estimate[t], round[t] / top);
    Selection one = selectTargets(round, threshold);
    for (std::size_t t : one.selected())
      ++r.votes[t];
  }
  if (!fastest.empty()) {
    std::sort(fastest.begin(), fastest.end());
    const double scale = fastest[fastest.size() / 2];
    for (double &e : r.estimate)
      e *= scale;
  }
  r.selection = selectTargets(r.estimate, threshold);
  r.margin = INFINITY;
  const Selection &s = r.selection;
  for (std::size_t i = 1; i < s.order.size() && i <= s.count; ++i)
    r.margin = std::min(r.margin, std::fabs(s.slope[i] - threshold));
  return r;
}

} // namespace

RoundsSelection selectFromRounds(const std::vector<std::vector<double>> &rounds, double threshold) {
  RoundsSelection r = estimate(rounds, threshold);
  if (rounds.size() > 1) {
    std::vector<std::vector<double>> before(rounds.begin(), rounds.end() - 1);
    auto a = estimate(before, threshold).selection.selected(), b = r.selection.selected();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    r.stable = a == b;
  }
  r.confident = r.stable && r.margin >= kConfidentMargin;
  return r;
}

} // namespace sio::part
