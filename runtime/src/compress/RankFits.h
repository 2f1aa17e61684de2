// Exact models of a value over the ranks that share a trace node: constant,
// affine, rotated, rank grids, groups of k ranks, and one group of ranks
// apart (the first, the last, every k-th, a block distribution's
// remainder). A value that fits none keeps one entry per group of ranks.
#pragma once

#include "sio/trace/Trace.h"

#include <optional>
#include <vector>

namespace sio::rt::detail {

using sio::trace::ElasticValue;
using sio::trace::Expr;
using sio::trace::Rational;

struct RankPoint {
  int64_t rank;
  Rational value;
};

/// An exact model of value(rank): constant, affine, or ((rank + a) % N) * b.
std::optional<Expr> fitRankModel(const std::vector<RankPoint> &points, int64_t nranks);

/// Periodic and grouped values with a constant period k (a 2-d rank grid,
/// groups of k ranks sharing an aggregator): b + a*(rank % k) + c*floor(rank/k),
/// the smallest k that fits exactly. Bounded so a huge run stays cheap. A
/// grid has two groups at least (k <= nranks/2): with k = nranks - 1 the
/// model would only single out the last rank (9 + floor(rank/(N-1)): the last
/// rank's loop runs once more), which is exact at N and nothing at another
/// rank count; splitExceptionRanks keeps such a rank apart instead. Where no
/// split can be stored (an object's field: a darray's short last block),
/// `lastRankPeriod` allows k = nranks - 1, which sio-extrap fits over N.
std::optional<Expr> fitRankGrid(const std::vector<RankPoint> &points, int64_t nranks, bool lastRankPeriod = false);

/// value = a + b*floor(rank/k) for the group size k the data suggests.
std::optional<Expr> fitRankGroups(const std::vector<RankPoint> &points);

/// fitRankModel, or fitRankGroups where it finds no dependence on rank.
std::optional<Expr> fitRankField(const std::vector<RankPoint> &points, int64_t nranks);

/// Replaces rank-varying entries by one model when every polynomial
/// coefficient fits a rank model, else by two when one group of ranks does
/// more (splitExceptionRanks); otherwise leaves the entries.
void fitAcrossRanks(ElasticValue &value, int64_t nranks);

} // namespace sio::rt::detail
