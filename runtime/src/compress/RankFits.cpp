#include "RankFits.h"

#include "ExprUtil.h"

#include "sio/trace/Fit.h"

#include <algorithm>
#include <map>
#include <set>

namespace sio::rt::detail {

using namespace sio::trace;

/// An exact model of value(rank): constant, affine, or ((rank + a) % N) * b.
std::optional<Expr> fitRankModel(const std::vector<RankPoint> &points, int64_t nranks) {
  if (points.empty())
    return std::nullopt;
  try {
    const RankPoint &p0 = points.front();
    if (std::all_of(points.begin(), points.end(), [&](const RankPoint &p) { return p.value == p0.value; }))
      return Expr(p0.value);
    // Affine: the line through the first two ranks must hold everywhere.
    const RankPoint &p1 = points[1];
    Rational slope = (p1.value - p0.value) / Rational(p1.rank - p0.rank);
    Rational offset = p0.value - slope * Rational(p0.rank);
    if (std::all_of(points.begin(), points.end(),
                    [&](const RankPoint &p) { return offset + slope * Rational(p.rank) == p.value; }))
      return Expr(offset) + Expr(slope) * Expr::rank();
    // Rotated progression ((rank + a) % N) * b: its zero fixes a.
    auto zero = std::find_if(points.begin(), points.end(), [](const RankPoint &p) { return p.value.isZero(); });
    if (zero == points.end() || nranks < 2)
      return std::nullopt;
    const int64_t shift = (nranks - zero->rank % nranks) % nranks;
    auto other =
        std::find_if(points.begin(), points.end(), [&](const RankPoint &p) { return (p.rank + shift) % nranks != 0; });
    if (other == points.end())
      return std::nullopt;
    Rational scale = other->value / Rational((other->rank + shift) % nranks);
    if (!std::all_of(points.begin(), points.end(),
                     [&](const RankPoint &p) { return Rational((p.rank + shift) % nranks) * scale == p.value; }))
      return std::nullopt;
    return Expr::mod(Expr::rank() + Expr(shift), Expr::nranks()) * Expr(scale);
  } catch (const std::exception &) { // overflow, domain
    return std::nullopt;
  }
}

/// Periodic and grouped values with a constant period k (a 2-d rank grid,
/// groups of k ranks sharing an aggregator): b + a*(rank % k) + c*floor(rank/k),
/// the smallest k that fits exactly. Bounded so a huge run stays cheap. A
/// grid has two groups at least (k <= nranks/2): with k = nranks - 1 the
/// model would only single out the last rank (9 + floor(rank/(N-1)): the last
/// rank's loop runs once more), which is exact at N and nothing at another
/// rank count; splitExceptionRanks keeps such a rank apart instead. Where no
/// split can be stored (an object's field: a darray's short last block),
/// `lastRankPeriod` allows k = nranks - 1, which sio-extrap fits over N.
std::optional<Expr> fitRankGrid(const std::vector<RankPoint> &points, int64_t nranks, bool lastRankPeriod) {
  constexpr int64_t kMaxPeriod = 64;
  constexpr size_t kMaxPoints = 1 << 16;
  if (points.size() < 3 || points.size() > kMaxPoints)
    return std::nullopt;
  const int64_t maxPeriod = lastRankPeriod ? nranks - 1 : nranks / 2;
  for (int64_t k = 2; k <= std::min<int64_t>(kMaxPeriod, maxPeriod); ++k) {
    std::vector<std::vector<Rational>> rows;
    std::vector<Rational> values;
    for (const RankPoint &p : points) {
      rows.push_back({Rational(1), Rational(p.rank % k), Rational(p.rank / k)});
      values.push_back(p.value);
    }
    auto s = sio::trace::solveExact(std::move(rows), std::move(values));
    if (!s)
      continue;
    try {
      Expr within = Expr::mod(Expr::rank(), Expr(k));
      Expr group = (Expr::rank() - within) / Expr(k);
      return Expr(s->x[0]) + Expr(s->x[1]) * within + Expr(s->x[2]) * group;
    } catch (const std::exception &) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

/// One model of rank for values given per rank (each already bound to its
/// rank): every polynomial coefficient fitted on its own; with `grids`, rank
/// grids (fitRankGrid) too.
std::optional<Expr> fitPerRank(const std::vector<std::pair<int64_t, Expr>> &perRank, int64_t nranks,
                               bool grids = true) {
  std::set<Monomial> monomials;
  for (const auto &[r, e] : perRank)
    for (const auto &[m, c] : e.terms())
      monomials.insert(m);
  Expr model;
  for (const Monomial &m : monomials) {
    std::vector<RankPoint> points;
    points.reserve(perRank.size());
    for (const auto &[r, e] : perRank) {
      auto it = e.terms().find(m);
      points.push_back({r, it == e.terms().end() ? Rational(0) : it->second});
    }
    // A table holds one rank's values for its own iterations: another rank
    // whose loop runs longer cannot evaluate it, even times a zero
    // coefficient ((1 - rank)*[..3 values..][i0] at rank 1, 9 iterations).
    bool hasTable = std::any_of(m.begin(), m.end(), [](const auto &a) { return a.first.kind == Atom::Kind::Table; });
    if (hasTable &&
        std::any_of(points.begin(), points.end(), [](const RankPoint &p) { return p.value == Rational(0); }))
      return std::nullopt;
    auto coefficient = fitRankModel(points, nranks);
    if (!coefficient && grids)
      coefficient = fitRankGrid(points, nranks);
    if (!coefficient)
      return std::nullopt;
    model = model + *coefficient * monomialExpr(m);
  }
  return model;
}

/// Where a block distribution with a remainder may split the ranks in two
/// runs, each affine in rank (n/N + (rank < n % N) elements a rank: the
/// first n % N ranks one more, so their offsets step by one element more):
/// the first rank s of the second run, from the steps between neighbours
/// (one step value before the split, another after, and the step across it
/// either). The candidates ascend, so a rank on both lines goes to the
/// second run, where sio-extrap's model of the remainder puts it (the
/// first rank with fewer elements). Each run needs 3 ranks: any 2 ranks are
/// affine, and a split of 2 and 2 would fit every value of 4 ranks.
std::vector<int64_t> runSplitCandidates(const std::vector<std::pair<int64_t, Expr>> &perRank) {
  constexpr size_t kMinRun = 3;
  const size_t n = perRank.size();
  if (n < 2 * kMinRun || perRank.back().first - perRank.front().first + 1 != static_cast<int64_t>(n))
    return {}; // runs of consecutive ranks only
  std::vector<Expr> step;
  step.reserve(n - 1);
  try {
    for (size_t i = 0; i + 1 < n; ++i)
      step.push_back(perRank[i + 1].second - perRank[i].second);
  } catch (const std::exception &) { // overflow
    return {};
  }
  size_t firstChange = 0, lastChange = step.size() - 1;
  while (firstChange < step.size() && step[firstChange] == step.front())
    ++firstChange;
  while (lastChange > 0 && step[lastChange] == step.back())
    --lastChange;
  if (firstChange == step.size())
    return {};         // one line: no split
  std::set<size_t> at; // index in perRank of the second run's first rank
  for (size_t i : {lastChange, lastChange + 1, firstChange, firstChange + 1})
    if (i >= kMinRun && i + kMinRun <= n)
      at.insert(i);
  std::vector<int64_t> ranks;
  for (size_t i : at)
    ranks.push_back(perRank[i].first);
  return ranks;
}

/// One rank that does more (the first, the last, or every k-th rank writes
/// a header through the same helper, so its loop runs once more): the values
/// of the other ranks follow one model and those of the exceptions another,
/// but no single model covers both. Two entries, {rest: model} and
/// {exceptions: model}, keep the value O(1) in the rank count, and the
/// exceptions' rank list ({0}, {N-1}, {0, k, 2k, ...}) is what sio-extrap
/// extrapolates (docs/trace-format.md, "Rank groups"). The exceptions'
/// extra iteration is a table over the loop index; where it is affine but
/// at its last (or first) position it is written without the table
/// (peelTableEnds), so the exceptions' values fit one model of rank, and
/// the models fit one function of the rank count. The first split that fits
/// is taken: first rank, last rank, then every k-th (k = 2..64); each group
/// with the models of one rank (constant, affine, rotated) before rank
/// grids, which fit any three ranks (and, with the period N-1, any outlier
/// at the last rank): a grid model is only taken for a group of 5 ranks or
/// more, and only when no split fits without one. Then two runs of ranks
/// split by a block distribution's remainder (runSplitCandidates), without
/// grids: the offsets of n/N + (rank < n % N) elements a rank.
bool splitExceptionRanks(ElasticValue &value, std::vector<std::pair<int64_t, Expr>> perRank, int64_t nranks) {
  if (perRank.size() < 3)
    return false; // two ranks always split; nothing to gain
  for (auto &[r, e] : perRank)
    e = detail::peelTableEnds(e);
  const int64_t first = perRank.front().first, last = perRank.back().first;
  bool grids = false;
  auto fits = [&](const std::vector<std::pair<int64_t, Expr>> &group) {
    return fitPerRank(group, nranks, grids && group.size() >= 5);
  };
  auto trySplit = [&](const std::function<bool(int64_t)> &isException) {
    std::vector<std::pair<int64_t, Expr>> rest, exceptions;
    for (const auto &p : perRank)
      (isException(p.first) ? exceptions : rest).push_back(p);
    if (rest.empty() || exceptions.empty())
      return false;
    // A few ranks at each end first: a split that cannot fit costs that
    // much, not a fit over every rank (65 splits of a large run).
    auto ends = [](const std::vector<std::pair<int64_t, Expr>> &group) {
      constexpr size_t kEnd = 6;
      if (group.size() <= 2 * kEnd)
        return group;
      std::vector<std::pair<int64_t, Expr>> sample(group.begin(), group.begin() + kEnd);
      sample.insert(sample.end(), group.end() - kEnd, group.end());
      return sample;
    };
    if (rest.size() > 12 && !fits(ends(rest)))
      return false;
    if (exceptions.size() > 12 && !fits(ends(exceptions)))
      return false;
    auto restModel = fits(rest);
    if (!restModel)
      return false;
    auto exceptionModel = fits(exceptions);
    if (!exceptionModel)
      return false;
    auto ranksOf = [](const std::vector<std::pair<int64_t, Expr>> &group) {
      std::vector<int64_t> ranks;
      ranks.reserve(group.size());
      for (const auto &p : group)
        ranks.push_back(p.first);
      return RankList::fromRanks(std::move(ranks));
    };
    ElasticValue split(Value(*restModel), ranksOf(rest));
    split.entries().push_back({ranksOf(exceptions), Value(*exceptionModel)});
    value = std::move(split);
    return true;
  };
  for (bool withGrids : {false, true}) {
    grids = withGrids;
    if (trySplit([&](int64_t r) { return r == first; }) || trySplit([&](int64_t r) { return r == last; }))
      return true;
    constexpr int64_t kMaxPeriod = 64;
    for (int64_t k = 2; k <= std::min(kMaxPeriod, last); ++k)
      if (trySplit([k](int64_t r) { return r % k == 0; }))
        return true;
    if (!withGrids)
      for (int64_t s : runSplitCandidates(perRank))
        if (trySplit([s](int64_t r) { return r >= s; }))
          return true;
  }
  return false;
}

} // namespace

/// Replaces rank-varying entries by one model when every polynomial
/// coefficient fits a rank model, else by two when one group of ranks does
/// more (splitExceptionRanks); otherwise leaves the entries.
void fitAcrossRanks(ElasticValue &value, int64_t nranks) {
  if (value.entries().size() < 2)
    return;
  std::vector<std::pair<int64_t, Expr>> perRank;
  for (const ElasticEntry &e : value.entries()) {
    if (isText(e.value))
      return;
    for (int64_t r : e.ranks.ranks())
      perRank.emplace_back(r, bindRank(std::get<Expr>(e.value), r));
  }
  std::sort(perRank.begin(), perRank.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
  if (auto model = fitPerRank(perRank, nranks)) {
    value = ElasticValue(Value(*model), value.ranks());
    return;
  }
  splitExceptionRanks(value, std::move(perRank), nranks);
}

/// value = a + b*floor(rank/k) for the group size k the data suggests.
std::optional<Expr> fitRankGroups(const std::vector<RankPoint> &points) {
  auto change =
      std::find_if(points.begin(), points.end(), [&](const RankPoint &p) { return p.value != points.front().value; });
  if (change == points.end())
    return std::nullopt;
  for (int64_t k : {change->rank, change->rank - points.front().rank}) {
    if (k < 2)
      continue;
    std::vector<RankPoint> grouped;
    for (const RankPoint &p : points)
      grouped.push_back({p.rank / k, p.value});
    // Within a group the value must be constant; across groups affine.
    bool constantInGroups = true;
    for (size_t i = 1; i < grouped.size(); ++i)
      if (grouped[i].rank == grouped[i - 1].rank && grouped[i].value != grouped[i - 1].value)
        constantInGroups = false;
    if (!constantInGroups)
      continue;
    grouped.erase(std::unique(grouped.begin(), grouped.end(),
                              [](const RankPoint &x, const RankPoint &y) { return x.rank == y.rank; }),
                  grouped.end());
    if (grouped.size() < 2)
      continue;
    auto model = fitRankModel(grouped, 0);
    if (!model || !model->dependsOnRank() || std::get<Expr>(Value(*model)).terms().size() > 2)
      continue;
    // Substitute floor(rank/k) = (rank - rank % k) / k for rank in the model.
    Expr group = (Expr::rank() - Expr::mod(Expr::rank(), Expr(k))) / Expr(k);
    return detail::substituteAtoms(
        *model, [&](const Atom &a) { return a.kind == Atom::Kind::Rank ? group : detail::atomExpr(a); });
  }
  return std::nullopt;
}

std::optional<Expr> fitRankField(const std::vector<RankPoint> &points, int64_t nranks) {
  auto field = fitRankModel(points, nranks);
  if (!field || !field->dependsOnRank())
    if (auto grouped = fitRankGroups(points))
      field = grouped;
  return field;
}

} // namespace sio::rt::detail
