// Rank classes on which `%` terms of the rank are affine (RankMod.h).
#include "RankMod.h"

#include <algorithm>
#include <numeric>

namespace sio::signature {

using trace::Atom;
using trace::Expr;
using trace::RankList;

namespace {

/// a*rank + b without overflow (|a|, |b|, rank below 2^63).
__extension__ using Wide = __int128;

/// `e` as a*rank + b (integers, nothing else): (a, b).
std::optional<std::pair<int64_t, int64_t>> affineInRank(const Expr &e) {
  int64_t a = 0, b = 0;
  for (const auto &[mono, coef] : e.terms()) {
    auto c = coef.asInteger();
    if (!c)
      return std::nullopt;
    if (mono.empty())
      b = *c;
    else if (mono.size() == 1 && mono[0].first.kind == Atom::Kind::Rank && mono[0].second == 1)
      a = *c;
    else
      return std::nullopt;
  }
  return std::pair(a, b);
}

bool atomDependsOnRank(const Atom &atom) {
  return atom.kind == Atom::Kind::Rank || (atom.lhs && atom.lhs->dependsOnRank()) ||
         (atom.rhs && atom.rhs->dependsOnRank());
}

void collect(const Expr &e, std::vector<Atom> &out) {
  for (const auto &[mono, coef] : e.terms())
    for (const auto &[atom, exp] : mono) {
      if (atom.kind == Atom::Kind::Mod && atom.lhs && atom.lhs->dependsOnRank() &&
          std::find(out.begin(), out.end(), atom) == out.end())
        out.push_back(atom);
      if (atom.lhs)
        collect(*atom.lhs, out);
      if (atom.rhs)
        collect(*atom.rhs, out);
    }
}

void collect(const trace::ElasticValue &v, std::vector<Atom> &out) {
  for (const trace::ElasticEntry &e : v.entries())
    if (const Expr *x = std::get_if<Expr>(&e.value))
      collect(*x, out);
}

void collect(const std::vector<trace::Node> &body, std::vector<Atom> &out) {
  for (const trace::Node &n : body) {
    if (n.isEvent()) {
      for (const trace::Param &p : n.event().params)
        collect(p.value, out);
    } else {
      collect(n.loop().iterations, out);
      collect(n.loop().body, out);
    }
  }
}

} // namespace

int64_t RankMod::quotientAt(int64_t rank) const {
  const Wide lhs = Wide(a) * rank + b;
  return int64_t(lhs / m); // C: truncation toward zero
}

int64_t RankMod::valueAt(int64_t rank) const {
  const Wide lhs = Wide(a) * rank + b;
  return int64_t(lhs % m);
}

std::optional<int64_t> RankMod::slopeOver(const RankList &ranks) const {
  auto first = ranks.first(), last = ranks.last();
  if (!first || *first == *last)
    return 0;
  // The quotient is monotonic in the rank: equal at both ends, equal between.
  if (quotientAt(*first) == quotientAt(*last))
    return a;
  // Every rank with the same residue modulo the period: the same value, as
  // long as a*rank + b keeps its sign (C's % follows it).
  const int64_t period = std::abs(m) / std::gcd(std::abs(a), std::abs(m));
  const Wide lo = Wide(a) * *first + b, hi = Wide(a) * *last + b;
  if ((lo < 0) != (hi < 0) && lo != 0 && hi != 0)
    return std::nullopt;
  const int64_t residue = ((*first % period) + period) % period;
  for (const trace::RankBlock &blk : ranks.blocks()) {
    if (((blk.start % period) + period) % period != residue)
      return std::nullopt;
    for (const trace::RankDim &d : blk.dims)
      if (d.stride % period != 0)
        return std::nullopt;
  }
  return 0;
}

std::optional<RankMod> rankModOf(const Atom &atom, int64_t nranks) {
  if (atom.kind != Atom::Kind::Mod || !atom.lhs || !atom.rhs)
    return std::nullopt;
  auto lhs = affineInRank(atom.lhs->bindNRanks(nranks));
  auto m = atom.rhs->bindNRanks(nranks).constantValue();
  if (!lhs || !m || *m == 0 || lhs->first == 0)
    return std::nullopt;
  return RankMod{atom, lhs->first, lhs->second, *m};
}

std::vector<RankMod> rankMods(const trace::Trace &trace) {
  std::vector<Atom> atoms;
  collect(trace.body, atoms);
  std::vector<RankMod> out;
  for (const Atom &atom : atoms)
    if (auto rm = rankModOf(atom, trace.header.nranks))
      out.push_back(*rm);
  return out;
}

std::vector<RankList> splitByRankMods(std::vector<RankList> classes, const std::vector<RankMod> &mods, int64_t nranks,
                                      size_t maxPieces) {
  for (const RankMod &mod : mods) {
    // Intervals of one quotient, found by bisection (the quotient is
    // monotonic in the rank): O(pieces * log nranks).
    std::vector<RankList> pieces;
    for (int64_t lo = 0; lo < nranks && pieces.size() <= maxPieces;) {
      const int64_t q = mod.quotientAt(lo);
      int64_t good = lo, bad = nranks;
      while (bad - good > 1) {
        const int64_t mid = good + (bad - good) / 2;
        (mod.quotientAt(mid) == q ? good : bad) = mid;
      }
      pieces.push_back(RankList::range(lo, good - lo + 1));
      lo = good + 1;
    }
    if (pieces.size() > maxPieces) {
      // Many quotients: residues of the rank, when there are few of them.
      pieces.clear();
      const int64_t period = std::abs(mod.m) / std::gcd(std::abs(mod.a), std::abs(mod.m));
      if (period > int64_t(maxPieces))
        continue;
      for (int64_t r = 0; r < std::min(period, nranks); ++r)
        pieces.push_back(RankList::range(r, (nranks - r + period - 1) / period, period));
    }
    if (pieces.size() < 2)
      continue;
    std::vector<RankList> next;
    for (const RankList &c : classes)
      for (const RankList &p : pieces) {
        RankList in = c.intersect(p);
        if (!in.empty())
          next.push_back(std::move(in));
      }
    if (next.size() > maxPieces * 16)
      continue; // too many classes: leave this term to the rank-by-rank path
    classes = std::move(next);
  }
  std::sort(classes.begin(), classes.end(), [](const auto &x, const auto &y) { return *x.first() < *y.first(); });
  return classes;
}

std::optional<int64_t> rankSlopeOver(const Expr &e, int64_t nranks, const RankList *ranks) {
  if (!e.dependsOnRank())
    return 0;
  const Expr bound = e.bindNRanks(nranks);
  trace::Rational slope(0);
  for (const auto &[mono, coef] : bound.terms()) {
    bool depends = false;
    for (const auto &[atom, exp] : mono)
      depends = depends || atomDependsOnRank(atom);
    if (!depends)
      continue;
    if (mono.size() != 1 || mono[0].second != 1)
      return std::nullopt;
    const Atom &atom = mono[0].first;
    if (atom.kind == Atom::Kind::Rank) {
      slope = slope + coef;
      continue;
    }
    if (!ranks)
      return std::nullopt;
    auto mod = rankModOf(atom, nranks);
    if (!mod)
      return std::nullopt;
    auto s = mod->slopeOver(*ranks);
    if (!s)
      return std::nullopt;
    slope = slope + coef * trace::Rational(*s);
  }
  return slope.asInteger();
}

} // namespace sio::signature
