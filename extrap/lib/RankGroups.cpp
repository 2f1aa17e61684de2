// Values that differ between groups of ranks (elastic values): each group's
// rank list fitted block by block, and its value; where the groups differ
// in number or their rank lists follow no model, runs of ranks affine in
// rank (a block distribution with a remainder) or blocks over a grid.
#include "Extrapolator.h"

#include "ModelsDecomp.h"

#include <numeric>
#include <span>

namespace sio::extrap::detail {

RankList Extrapolator::fitRanks(const std::string &where, const std::string &what,
                                const std::vector<const RankList *> &lists) const {
  std::vector<std::string> shown;
  for (const RankList *l : lists)
    shown.push_back(l->str());
  const size_t blocks = lists.front()->blocks().size();
  for (const RankList *l : lists)
    if (l->blocks().size() != blocks)
      refuse(where, what + " (rank list shape)", shown, {"same number of rank blocks"});
  std::vector<RankBlock> out;
  for (size_t b = 0; b < blocks; ++b) {
    // A block of a small run can lack the outer dimensions of the others,
    // which have count 1 there: rank 0 alone on 4 ranks is 0-4:4 on 8, and
    // the ranks 1-3 on 4 (every rank but each 4th) are {1+4*[0..1]+1*[0..2]}
    // on 8. Give it those dimensions with count 1.
    std::vector<RankBlock> shaped;
    const RankBlock &last = lists.back()->blocks()[b];
    for (const RankList *l : lists) {
      RankBlock x = l->blocks()[b];
      const size_t pad = last.dims.size() > x.dims.size() ? last.dims.size() - x.dims.size() : 0;
      if (pad && std::equal(x.dims.begin(), x.dims.end(), last.dims.begin() + long(pad),
                            [](const RankDim &p, const RankDim &q) { return p.stride == q.stride; }))
        for (size_t d = pad; d-- > 0;)
          x.dims.insert(x.dims.begin(), RankDim{last.dims[d].stride, 1});
      shaped.push_back(std::move(x));
    }
    const size_t dims = shaped.front().dims.size();
    for (const RankBlock &x : shaped)
      if (x.dims.size() != dims)
        refuse(where, what + " (rank list shape)", shown, {"same rank-block dimensions"});
    auto collect = [&](auto get) {
      std::vector<int64_t> v;
      for (const RankBlock &x : shaped)
        v.push_back(get(x));
      return v;
    };
    RankBlock block;
    block.start = fitInt(where, what + " (rank-list start)", collect([](const RankBlock &x) { return x.start; }));
    for (size_t d = 0; d < dims; ++d) {
      RankDim dim;
      dim.stride =
          fitInt(where, what + " (rank-list stride)", collect([d](const RankBlock &x) { return x.dims[d].stride; }));
      dim.count =
          fitInt(where, what + " (rank-list count)", collect([d](const RankBlock &x) { return x.dims[d].count; }));
      block.dims.push_back(dim);
    }
    out.push_back(std::move(block));
  }
  for (const RankBlock &b : out) {
    if (b.start < 0 || b.last() >= options_.targetRanks)
      throw ExtrapError("cannot extrapolate " + what + " of " + where + ": its rank list leaves 0.." +
                        std::to_string(options_.targetRanks - 1) + " at the target");
    for (const RankDim &d : b.dims)
      if (d.count <= 0 || d.stride <= 0)
        throw ExtrapError("cannot extrapolate " + what + " of " + where + ": its rank list is empty at the target");
  }
  // The common one-block case without enumerating the ranks, so that a
  // 1,048,576-rank target costs what a 64-rank one does.
  if (out.size() == 1 && out[0].dims.size() <= 1)
    return out[0].dims.empty() ? RankList::single(out[0].start)
                               : RankList::range(out[0].start, out[0].dims[0].count, out[0].dims[0].stride);
  try {
    return RankList::fromBlocks(std::move(out));
  } catch (const std::exception &e) {
    throw ExtrapError("cannot extrapolate " + what + " of " + where + ": " + e.what());
  }
}

// A model that fits every input can still be meaningless at the target
// (960/nranks at 7 ranks). Probe the first and last rank of the entry at
// the first iteration: enough to refuse such targets without touching all
// N ranks.
void Extrapolator::checkAtTarget(const std::string &where, const std::string &what, const ElasticEntry &entry) const {
  const Expr *e = std::get_if<Expr>(&entry.value);
  if (!e)
    return;
  static const int64_t zeros[16] = {};
  for (auto rank : {entry.ranks.first(), entry.ranks.last()}) {
    if (!rank)
      continue;
    if (!e->evaluate({*rank, options_.targetRanks, std::span<const int64_t>(zeros, 16)}))
      throw ExtrapError("cannot extrapolate " + what + " of " + where + ": its model " + e->str() +
                        " is not an integer at " + std::to_string(options_.targetRanks) + " ranks (rank " +
                        std::to_string(*rank) + ")");
  }
}

// A block distribution with a remainder (n/N + (rank < n % N) elements,
// offsets rank*(n/N) + min(rank, n % N)): no formula of rank fits every
// rank, and the merge keeps one group per rank. At every input the ranks
// split into the same number of runs that are each affine in rank
// (affineRuns); the bounds between runs (n % N, n % N + 1), and each
// run's slope and intercept, are fitted like any integer. Refusals of
// these fits are not reported: the caller reports the value's own.
std::optional<ElasticValue> Extrapolator::fitRankRuns(const std::string &where, const std::string &what,
                                                      const std::vector<const ElasticValue *> &values) const {
  std::vector<std::vector<RankRun>> runs;
  for (size_t k = 0; k < values.size(); ++k) {
    auto r = affineRuns(*values[k], ns_[k]);
    if (!r || (k && r->size() != runs.front().size()))
      return std::nullopt;
    runs.push_back(std::move(*r));
  }
  const size_t count = runs.front().size();
  if (count < 2)
    return std::nullopt;
  // A run of one rank has no slope (affineRuns writes 0): it is taken
  // only if the run has one rank at every input, and then at the target.
  std::vector<bool> single(count, false);
  for (size_t j = 0; j < count; ++j) {
    size_t ones = 0;
    for (const auto &r : runs)
      ones += r[j].end - r[j].start == 1;
    if (ones && ones != runs.size())
      return std::nullopt;
    single[j] = ones != 0;
  }
  auto column = [&](auto get) {
    std::vector<Rational> v;
    for (const auto &r : runs)
      v.push_back(get(r));
    return v;
  };
  std::vector<int64_t> bounds{0};
  std::vector<Expr> formulas;
  try {
    for (size_t j = 0; j < count; ++j) {
      const std::string run = what + " (ranks of run " + std::to_string(j) + ")";
      if (j) {
        std::vector<std::string> shown;
        auto b = column([j](const std::vector<RankRun> &r) { return Rational(r[j].start); });
        for (const Rational &x : b)
          shown.push_back(x.str());
        bounds.push_back(atTarget(fitScalar(where, run + " first rank", b, shown), where, run));
        if (bounds.back() <= bounds[bounds.size() - 2])
          return std::nullopt;
      }
      // Each loop-index monomial's slope and intercept, fitted apart.
      std::set<Monomial> monos;
      for (const auto &r : runs)
        for (const auto *m : {&r[j].slope, &r[j].intercept})
          for (const auto &kv : *m)
            monos.insert(kv.first);
      Expr formula;
      for (const Monomial &m : monos) {
        auto get = [&](bool slopeOf) {
          return column([&](const std::vector<RankRun> &r) {
            const auto &map = slopeOf ? r[j].slope : r[j].intercept;
            auto it = map.find(m);
            return it == map.end() ? Rational(0) : it->second;
          });
        };
        std::vector<std::string> shown(values.size());
        const std::string term = m.empty() ? "" : " of " + Expr::ofMonomial(m).str();
        const Expr a = fitScalar(where, run + " slope" + term, get(true), shown);
        const Expr b = fitScalar(where, run + " intercept" + term, get(false), shown);
        formula = formula +
                  (Expr(atTarget(a, where, run)) * Expr::rank() + Expr(atTarget(b, where, run))) * Expr::ofMonomial(m);
      }
      formulas.push_back(formula);
    }
  } catch (const AmbiguityError &) {
    throw;
  } catch (const ExtrapError &) {
    return std::nullopt;
  }
  const int64_t n = options_.targetRanks;
  bounds.push_back(n);
  if (bounds[count - 1] >= n)
    return std::nullopt;
  for (size_t j = 0; j < count; ++j)
    if (single[j] && bounds[j + 1] - bounds[j] != 1)
      return std::nullopt;
  ElasticValue out;
  for (size_t j = 0; j < count; ++j)
    out.entries().push_back({RankList::range(bounds[j], bounds[j + 1] - bounds[j]), Value(formulas[j])});
  return out;
}

// Which inputs would let fitRankRuns decide: a remainder run needs two
// ranks or more on each side at every input (one rank alone has no slope),
// so for the array lengths the trace admits, name such rank counts.
std::string Extrapolator::runsHint(const std::vector<const ElasticValue *> &values) const {
  std::string counts, alone;
  bool split = false;
  std::vector<std::optional<std::vector<RankRun>>> runs;
  for (size_t k = 0; k < values.size(); ++k) {
    runs.push_back(affineRuns(*values[k], ns_[k]));
    const auto &r = runs.back();
    counts += std::string(k ? ", " : "") + "N=" + std::to_string(ns_[k]) + ": " +
              (r ? std::to_string(r->size()) : std::string("?"));
    split = split || (r && r->size() > 1);
    if (r && r->size() > 1)
      for (const RankRun &run : *r)
        if (run.end - run.start == 1)
          alone += (alone.empty() ? "" : ", ") + std::to_string(ns_[k]);
  }
  if (!split)
    return "";
  std::string hint = " (runs per input: " + counts;
  if (!alone.empty())
    hint += "; a run of one rank, whose slope no input shows, at N=" + alone;
  // The lengths whose remainder is the first bound at every input.
  std::set<int64_t> lengths;
  for (int64_t n : blockLengths_) {
    bool all = true;
    for (size_t k = 0; k < runs.size() && all; ++k)
      all = runs[k] && runs[k]->size() > 1 && ((*runs[k])[1].start == n % ns_[k]);
    if (all)
      lengths.insert(n);
  }
  if (!lengths.empty() && lengths.size() <= 4) {
    int64_t step = 0;
    for (int64_t n : ns_)
      step = std::gcd(step, n);
    std::string good;
    int found = 0;
    for (int64_t m = step; m <= 64 * step && found < 6; m += step) {
      bool all = m >= 4;
      for (int64_t n : lengths)
        all = all && n % m >= 2 && m - n % m >= 2;
      if (all)
        good += (found++ ? ", " : "") + std::to_string(m);
    }
    std::string shownLengths;
    for (int64_t n : lengths)
      shownLengths += (shownLengths.empty() ? "" : " or ") + std::to_string(n);
    if (!good.empty())
      hint += "; an array of " + shownLengths + " leaves two ranks or more on each side of its remainder at N=" + good +
              ", ...: trace at such counts";
  }
  return hint + ")";
}

// A group of one rank holds its value at that rank only (0, not
// 256*rank): how it varies with the rank no such input shows. Where the
// group has one rank at some inputs and more at others (rank 0 alone at
// N=4, 8, 12, ranks 0-8 at 16: n/N + (rank < n % N) elements with
// n % N = 1, then 9) and varies with the rank where it has more, a fit
// over every input would take the lone ranks' values for the slope (0, 0,
// 0, 256 fits a block model, wrong at the target). Such a value is fitted
// on the inputs where the group has more ranks (three at least) and
// checked at the others rank by rank (fitOnLargerInputs), else refused.
// nullopt: not such a group (or the lone rank's value is still a formula
// of rank, which states the slope), fit as usual.
std::optional<Expr> Extrapolator::fitLoneRankGroup(const std::string &where, const std::string &what,
                                                   const std::vector<const RankList *> &ranks,
                                                   const std::vector<const Value *> &vals) const {
  std::string alone;
  bool slope = false;
  std::vector<const Expr *> exprs;
  for (size_t k = 0; k < ranks.size(); ++k) {
    const Expr *e = std::get_if<Expr>(vals[k]);
    if (!e)
      return std::nullopt;
    exprs.push_back(e);
    if (ranks[k]->size() == 1 && e->dependsOnRank())
      return std::nullopt; // the lone rank's formula states its slope
    if (ranks[k]->size() == 1)
      alone += (alone.empty() ? "" : ", ") + std::to_string(ns_[k]);
    else
      slope = slope || e->dependsOnRank();
  }
  if (alone.empty() || !slope)
    return std::nullopt;
  if (auto e = fitOnLargerInputs(exprs, &ranks))
    return e;
  throw ExtrapError("cannot extrapolate " + what + " of " + where + ": a group of ranks has one rank at N=" + alone +
                    ", whose slope in rank no such input shows, and more ranks at the others");
}

ElasticValue Extrapolator::fitElastic(const std::string &where, const std::string &what,
                                      const std::vector<const ElasticValue *> &values) const {
  const size_t entries = values.front()->entries().size();
  for (const ElasticValue *v : values)
    if (v->entries().size() != entries) {
      std::vector<std::string> shown;
      for (const ElasticValue *x : values) {
        std::string s;
        for (const auto &e : x->entries())
          s += (s.empty() ? "" : "; ") + std::string("ranks ") + e.ranks.str() + ": " + valueStr(e.value);
        shown.push_back("{" + s + "}");
      }
      if (auto runs = fitRankRuns(where, what, values))
        return *runs;
      if (auto grid = fitGridBlocksElastic(what + " of " + where, values))
        return *grid;
      // One group at some inputs, several at others: a grid or block that
      // divides the array at the former but not the latter (128 cells over
      // the 4 x 3 grid of N = 12). Inputs like the former may extrapolate.
      std::string one, several;
      for (size_t k = 0; k < values.size(); ++k)
        (values[k]->entries().size() == 1 ? one : several) +=
            ((values[k]->entries().size() == 1 ? one : several).empty() ? "" : ", ") + std::to_string(ns_[k]);
      std::vector<std::string> tried{
          "same rank groups at every rank count (no model of rank fitted the values)",
          "runs of ranks affine in rank whose bounds follow a model (a block distribution's n % N)" + runsHint(values)};
      if (!one.empty() && !several.empty())
        tried.push_back("(one group for every rank at N=" + one + ", several at N=" + several +
                        ": a grid or block that does not divide the array there; traces at rank counts where "
                        "it is one group, as N=" +
                        one + " and others like them, may extrapolate)");
      refuse(where, what, shown, tried);
    }
  ElasticValue out;
  try {
    for (size_t i = 0; i < entries; ++i) {
      std::vector<const RankList *> ranks;
      std::vector<const Value *> vals;
      for (const ElasticValue *v : values) {
        ranks.push_back(&v->entries()[i].ranks);
        vals.push_back(&v->entries()[i].value);
      }
      if (auto lone = fitLoneRankGroup(where, what, ranks, vals))
        out.entries().push_back({fitRanks(where, what, ranks), Value(*lone)});
      else
        out.entries().push_back({fitRanks(where, what, ranks), fitValue(where, what, vals, &ranks)});
      checkAtTarget(where, what, out.entries().back());
    }
  } catch (const AmbiguityError &) {
    throw;
  } catch (const ExtrapError &e) {
    // The merge keeps a block distribution with a remainder as two runs
    // of ranks where each has 3 ranks or more, and splits off the first
    // or last rank where it cannot: the inputs then have as many groups,
    // whose rank lists follow no model (ranks 0-2 at N=4 and 8, 0-9 at
    // 16). The runs of every rank's value decide, as when the groups
    // differ in number; else the refusal of the groups stands.
    if (entries < 2)
      throw;
    if (auto runs = fitRankRuns(where, what, values))
      return *runs;
    if (auto grid = fitGridBlocksElastic(what + " of " + where, values))
      return *grid;
    const std::string hint = runsHint(values);
    if (hint.empty())
      throw;
    throw ExtrapError(std::string(e.what()) +
                      "\n  also tried: runs of ranks affine in rank whose bounds follow a model (a block"
                      " distribution's n % N)" +
                      hint);
  }
  return out;
}

} // namespace sio::extrap::detail
