// Values of the ranks' coordinates in an MPI_Dims_create grid: coordinates
// (rank % c and rank / c with c a grid dimension) and blocks of an array
// over every grid dimension (2-d and 3-d) with remainders (ModelsGridBlock.h), fitted rank
// by rank; with the array lengths the trace records, which decide between
// block models of different lengths.
#include "Extrapolator.h"

#include "ModelsGridBlock.h"

#include <algorithm>

namespace sio::extrap::detail {

// The global array lengths the inputs record, the same at every input: a
// subarray's sizes, a darray's gsizes. A block of a grid dimension that
// divides the array at every input (128 over 2, 4, 4, 4) shows n/p only,
// which 4/p (times 32) gives as well; the recorded length decides.
void Extrapolator::recordedLengths(std::set<int64_t> &out) const {
  const auto &ref = in_.back()->datatypes;
  for (size_t i = 0; i < ref.size(); ++i) {
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> where; // field, [first, end)
    if (ref[i].kind == "subarray")
      where.push_back({"sizes", {0, SIZE_MAX}});
    if (ref[i].kind == "darray") { // ints: size, rank, ndims, gsizes[ndims], ...
      auto it = ref[i].fields.find("ints");
      if (it != ref[i].fields.end() && it->second.size() > 2)
        if (auto nd = it->second[2].constantValue(); nd && *nd > 0 && *nd <= 8)
          where.push_back({"ints", {3, 3 + size_t(*nd)}});
    }
    for (const auto &[name, range] : where) {
      auto it = ref[i].fields.find(name);
      if (it == ref[i].fields.end())
        continue;
      for (size_t j = range.first; j < std::min(range.second, it->second.size()); ++j) {
        auto v = it->second[j].constantValue();
        bool same = v && *v > 1;
        for (const Trace *t : in_) {
          if (!same || t->datatypes.size() != ref.size())
            break;
          auto f = t->datatypes[i].fields.find(name);
          same = f != t->datatypes[i].fields.end() && f->second.size() > j && f->second[j].constantValue() == v;
        }
        if (same)
          out.insert(*v);
      }
    }
  }
}

// A value of the ranks' coordinates in the MPI_Dims_create(N, 2) or (N, 3) grid
// through each dimension's block distribution, remainders included
// (ModelsGridBlock.h): fitted rank by rank over every input, for each
// loop-index monomial apart, and written for the target's grid (a formula
// of rank % p, with a table per coordinate where the target's grid leaves
// a remainder). Models that fit and differ at the target are ambiguous;
// the refusal names the rank count that decides. nullopt: no such model.
std::optional<Expr> Extrapolator::fitGridBlocks(const std::string &subject,
                                                const std::function<const Expr *(size_t, int64_t)> &at) const {
  // The MPI_Dims_create(nranks, d) grids every input made, 2-d and 3-d,
  // whose grid at the target the inputs decide. The model computes the
  // most balanced grid; an entry equal at every input (dims1 = 2 at 4..16
  // in 3-d) may have been preset by the program, and where that gives
  // another grid at the target (4x2x4 for 4x4x2 at 32) the model is not
  // taken, even when --prefer settled the recomputed dims (recomputeDims).
  auto decided = [&](int d) {
    std::vector<std::vector<int64_t>> in;
    for (int64_t n : ns_)
      in.push_back(dimsCreate(n, d));
    const std::vector<int64_t> balanced = dimsCreate(targetN(), d);
    for (uint32_t mask = 1; mask < (1u << d); ++mask) {
      std::vector<int64_t> preset(size_t(d), 0);
      bool constant = true;
      for (int k = 0; k < d && constant; ++k)
        if (mask & (1u << k)) {
          preset[size_t(k)] = in[0][size_t(k)];
          constant = std::all_of(in.begin(), in.end(), [&](const auto &g) { return g[size_t(k)] == in[0][size_t(k)]; });
        }
      if (constant && dimsCreate(targetN(), preset) != balanced)
        return false;
    }
    return true;
  };
  std::vector<int> grids;
  for (int d : {2, 3})
    if (dimsGrids_.count(d) && decided(d))
      grids.push_back(d);
  if (grids.empty() || ns_.size() < 3)
    return std::nullopt;
  std::map<Monomial, std::vector<GridBlockSamples>> byMono;
  std::vector<std::vector<std::map<Monomial, Rational>>> perRank(ns_.size());
  for (size_t k = 0; k < ns_.size(); ++k) {
    if (ns_[k] > 4096)
      return std::nullopt;
    for (int64_t r = 0; r < ns_[k]; ++r) {
      const Expr *e = at(k, r);
      if (!e)
        return std::nullopt;
      std::map<Monomial, Rational> c;
      try {
        for (const auto &[mono, coefficient] : e->terms()) {
          Monomial loops, rest;
          for (const auto &[atom, power] : mono)
            (atom.kind == Atom::Kind::Loop ? loops : rest).emplace_back(atom, power);
          auto v = Expr::ofMonomial(rest, coefficient).evaluateRational({r, ns_[k], {}});
          if (!v)
            return std::nullopt;
          c[loops] += *v;
        }
      } catch (const std::exception &) {
        return std::nullopt;
      }
      for (const auto &kv : c)
        byMono[kv.first];
      perRank[k].push_back(std::move(c));
    }
  }
  const int64_t target = targetN();
  Expr result;
  for (auto &[mono, samples] : byMono) {
    for (size_t k = 0; k < ns_.size(); ++k) {
      GridBlockSamples s;
      s.nranks = ns_[k];
      for (const auto &c : perRank[k]) {
        auto it = c.find(mono);
        s.values.push_back(it == c.end() ? Rational(0) : it->second);
      }
      samples.push_back(std::move(s));
    }
    std::vector<GridBlockFit> fits;
    for (int d : grids)
      for (GridBlockFit &f : fitGridBlockModels(samples, recordedLengths_, blockLengths_, d))
        fits.push_back(std::move(f));
    if (fits.empty())
      return std::nullopt;
    std::vector<size_t> distinct{0};
    auto first = fits[0].valuesAt(target);
    if (!first)
      return std::nullopt;
    for (size_t i = 1; i < fits.size(); ++i)
      if (std::all_of(distinct.begin(), distinct.end(),
                      [&](size_t j) { return fits[i].valuesAt(target) != fits[j].valuesAt(target); }))
        distinct.push_back(i);
    if (distinct.size() > 1) {
      const GridBlockFit &a = fits[distinct[0]], &b = fits[distinct[1]];
      const int64_t decide =
          decidingRanks(ns_, target, [&](int64_t n) { return n <= 4096 && a.valuesAt(n) != b.valuesAt(n); });
      const std::string grid = a.ndims == b.ndims ? "the MPI_Dims_create(N, " + std::to_string(a.ndims) + ") grid"
                                                  : "the MPI_Dims_create(N, 2) and (N, 3) grids";
      std::string msg = "ambiguous: " + subject +
                        (mono.empty() ? "" : " (the coefficient of " + Expr::ofMonomial(mono).str() + ")") + ": " +
                        std::to_string(distinct.size()) + " models of blocks over " + grid +
                        " reproduce every rank of every input but differ at N=" + std::to_string(target);
      for (size_t i : distinct)
        msg += "\n  " + fits[i].name;
      msg += "\n  add a trace at N=" + std::to_string(decide) + ", where they differ too";
      throw AmbiguityError(msg);
    }
    // The formula must give what the model gives, rank by rank.
    const Expr e = fits[0].exprAt(target);
    for (int64_t r = 0; r < std::min<int64_t>(target, 4096); ++r)
      if (e.evaluateRational({r, target, {}}) != (*first)[size_t(r)])
        return std::nullopt;
    result = result + e * Expr::ofMonomial(mono);
  }
  return result;
}

std::optional<ElasticValue> Extrapolator::fitGridBlocksElastic(const std::string &subject,
                                                               const std::vector<const ElasticValue *> &values) const {
  auto e = fitGridBlocks(subject, [&](size_t k, int64_t r) -> const Expr * {
    const Value *v = values[k]->valueFor(r);
    return v ? std::get_if<Expr>(v) : nullptr;
  });
  if (!e)
    return std::nullopt;
  return ElasticValue(Value(*e), RankList::all(options_.targetRanks));
}

// Coordinates in an MPI_Dims_create grid (MPI_Cart_coords, or rank % px
// and rank / px): the runtime's merge writes a value a + b*(rank / c) +
// m*(rank % c) of one input as s*rank + t*(rank % c) + a, with c a grid
// dimension of that input (a rank grid, see the merge's fitRankGrid). c
// changes with N (2, 2, 3, 4 for the second dimension at N = 4, 8, 12,
// 16), so no coefficient fits as it is; in the coordinates q = rank / c
// and m = rank % c (rank = c*q + m) the value is b*q + (s + t)*m + a with
// b = s*c, and b, s + t and a are fitted like any coefficient. When c is
// dimension j of MPI_Dims_create(N, d) at every input, the target's value
// is rebuilt with that dimension of the target's grid (a constant, as for
// every grid value).
std::optional<Expr> Extrapolator::fitGridCoordinates(const std::vector<const Expr *> &values) const {
  if (values.size() < 3)
    return std::nullopt;
  std::vector<int64_t> periods(values.size(), 0);
  std::vector<Rational> q(values.size()), m(values.size());
  std::vector<Expr> rest(values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    Rational s, t;
    for (const auto &[mono, c] : values[k]->terms()) {
      if (mono.size() == 1 && mono[0].second == 1 && mono[0].first.kind == Atom::Kind::Rank) {
        s = c;
        continue;
      }
      if (mono.size() == 1 && mono[0].second == 1 && mono[0].first.kind == Atom::Kind::Mod) {
        const Atom &a = mono[0].first;
        int64_t period = 0;
        if (a.rhs)
          period = a.rhs->constantValue().value_or(0);
        if (a.lhs && *a.lhs == Expr::rank() && period >= 2) {
          if (periods[k] && periods[k] != period)
            return std::nullopt; // two grid dimensions in one value: not this model
          periods[k] = period;
          t = c;
          continue;
        }
      }
      rest[k] = rest[k] + Expr::ofMonomial(mono, c);
    }
    if (!periods[k])
      return std::nullopt;
    q[k] = s * Rational(periods[k]);
    m[k] = s + t;
  }
  // The period c at the target: a grid dimension of MPI_Dims_create, or
  // one the program gives (N/2, 2, sqrt(N), ...), fitted like any value;
  // models that fit and differ at the target are ambiguous.
  std::vector<Rational> periodValues(periods.begin(), periods.end());
  auto period = fitCoefficient(ns_, periodValues, "the period of a grid coordinate (rank % c)", nullptr);
  if (!period)
    return std::nullopt;
  auto periodAt = period->evaluate({0, targetN(), {}});
  if (!periodAt || *periodAt < 1)
    return std::nullopt;
  const std::optional<int64_t> target = *periodAt;
  auto coefficient = [&](const std::vector<Rational> &v) -> std::optional<Expr> {
    return fitCoefficient(ns_, v, "a grid coordinate's coefficient", nullptr);
  };
  auto qt = coefficient(q), mt = coefficient(m);
  if (!qt || !mt)
    return std::nullopt;
  std::vector<const Expr *> restPtrs;
  for (const Expr &r : rest)
    restPtrs.push_back(&r);
  try {
    Expr restT = fitExprAt(ns_, "", "", restPtrs);
    const Expr within = Expr::mod(Expr::rank(), Expr(*target));
    const Expr group = (Expr::rank() - within) / Expr(*target);
    return *qt * group + *mt * within + restT;
  } catch (const AmbiguityError &) {
    throw;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

} // namespace sio::extrap::detail
