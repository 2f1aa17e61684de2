// MPI_Dims_create in sio-extrap: the grid MPICH computes (dimsCreate, public
// in Extrapolate.h), the inputs' calls whose grids it reproduces
// (findDimsGrids), the models "c times a grid dimension" and "c over a grid
// dimension" of a value (gridCandidates), and the call's output recomputed
// at the target instead of fitted (recomputeDims). The grid is a function of
// N that no polynomial model fits.
#include "Extrapolator.h"

#include <algorithm>
#include <numeric>

namespace sio::extrap {

namespace {

void factorizations(int64_t n, int64_t d, int64_t largest, std::vector<int64_t> &prefix,
                    std::vector<std::vector<int64_t>> &out) {
  if (d == 1) {
    if (n <= largest) {
      prefix.push_back(n);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int64_t f = std::min(n, largest); f >= 1; --f)
    if (n % f == 0) {
      prefix.push_back(f);
      factorizations(n / f, d - 1, f, prefix, out);
      prefix.pop_back();
    }
}
} // namespace

std::vector<int64_t> dimsCreate(int64_t nnodes, int64_t ndims) {
  if (nnodes < 1 || ndims < 1 || ndims > 8 || nnodes > (int64_t(1) << 31))
    return {};
  std::vector<std::vector<int64_t>> all;
  std::vector<int64_t> prefix;
  factorizations(nnodes, ndims, nnodes, prefix, all);
  // The most balanced grid: the smallest spread, then the smallest sum (the
  // first such in descending order), which is the grid MPICH's
  // MPI_Dims_create returns (checked for every nnodes <= 1100, ndims <= 4).
  const std::vector<int64_t> *best = nullptr;
  for (const auto &c : all)
    if (!best || std::pair(c.front() - c.back(), std::accumulate(c.begin(), c.end(), int64_t(0))) <
                     std::pair(best->front() - best->back(), std::accumulate(best->begin(), best->end(), int64_t(0))))
      best = &c;
  return best ? *best : std::vector<int64_t>{};
}

std::vector<int64_t> dimsCreate(int64_t nnodes, const std::vector<int64_t> &preset) {
  int64_t given = 1, free = 0;
  for (int64_t d : preset) {
    if (d < 0)
      return {};
    d ? given *= d : ++free;
  }
  if (given <= 0 || nnodes % given != 0)
    return {};
  if (!free)
    return given == nnodes ? preset : std::vector<int64_t>{};
  std::vector<int64_t> grid = dimsCreate(nnodes / given, free);
  if (grid.empty())
    return {};
  std::vector<int64_t> out = preset;
  size_t next = 0;
  for (int64_t &d : out)
    if (!d)
      d = grid[next++];
  return out;
}

} // namespace sio::extrap

namespace sio::extrap::detail {

// MPI_Dims_create(nranks, d) is a function of N that no polynomial model
// fits (2x2, 4x2, 4x3, 4x4, 8x4 for N = 4, 8, 12, 16, 32). When every input
// recorded such a call, and dimsCreate reproduces what MPI returned there,
// values that are a constant multiple of one grid dimension at every input
// are extrapolated by recomputing the grid at the target.
void Extrapolator::findDimsGrids() {
  std::function<void(const std::vector<Node> &, const Trace &, std::set<int64_t> &, bool &)> walk =
      [&](const std::vector<Node> &nodes, const Trace &t, std::set<int64_t> &grids, bool &wrong) {
        for (const Node &n : nodes) {
          if (n.isLoop()) {
            walk(n.loop().body, t, grids, wrong);
            continue;
          }
          const Event &e = n.event();
          if (e.op != "MPI_Dims_create")
            continue;
          auto constant = [&](const std::string &name) -> std::optional<int64_t> {
            const Param *p = e.param(name);
            return p ? uniformConstant(p->value) : std::nullopt;
          };
          auto nnodes = constant("nnodes"), ndims = constant("ndims");
          if (!nnodes || !ndims || *nnodes != t.header.nranks)
            continue;
          std::vector<int64_t> grid = dimsCreate(*nnodes, *ndims);
          for (size_t k = 0; k < grid.size(); ++k)
            if (auto d = constant("dims" + std::to_string(k)); d && *d != grid[k])
              wrong = true;
          grids.insert(*ndims);
        }
      };
  for (size_t k = 0; k < in_.size(); ++k) {
    std::set<int64_t> grids;
    bool wrong = false;
    walk(in_[k]->body, *in_[k], grids, wrong);
    if (wrong)
      grids.clear(); // this MPI's grids are not the ones dimsCreate computes
    if (k == 0)
      dimsGrids_ = grids;
    else
      std::erase_if(dimsGrids_, [&](int64_t d) { return !grids.count(d); });
  }
}

// A value that is an integer multiple c of dimension k of the grid
// MPI_Dims_create(N, d) at every input (3 or more): c times that dimension
// of the target's grid, written as a constant (there is no formula for the
// grid).
void Extrapolator::gridCandidates(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                                  std::vector<std::string> *tried, std::vector<Candidate> &out) const {
  for (int64_t d : dimsGrids_)
    for (int64_t k = 0; k < d; ++k) {
      if (tried)
        tried->push_back("c*dims(N," + std::to_string(d) + ")[" + std::to_string(k) + "] (MPI_Dims_create)");
      auto dim = [d, k](int64_t n) -> std::optional<Rational> {
        auto g = dimsCreate(n, d);
        if (g.size() <= size_t(k))
          return std::nullopt;
        return Rational(g[size_t(k)]);
      };
      auto first = dim(ns[0]);
      if (!first || ns.size() < 3)
        continue;
      Rational c = values[0] / *first;
      bool fits = c.isInteger() && !c.isZero();
      for (size_t j = 0; j < ns.size() && fits; ++j)
        fits = dim(ns[j]) && c * *dim(ns[j]) == values[j];
      auto target = dim(targetN());
      if (!fits || !target)
        continue;
      auto at = [c, dim](int64_t n) -> std::optional<Rational> {
        auto v = dim(n);
        return v ? std::optional<Rational>(c * *v) : std::nullopt;
      };
      out.push_back({"grid",
                     c.str() + "*dims(N," + std::to_string(d) + ")[" + std::to_string(k) + "]",
                     at,
                     Expr(c * *target),
                     {},
                     ""});
    }
  // A block of an array over that dimension: c/dims(N,d)[k] cells (128
  // rows over 2, 4, 4, 8 grid rows: 64, 32, 32, 16), defined where the
  // dimension divides c (a remainder makes the value per-coordinate, not
  // this model). Only for values that change between inputs: a constant
  // at every input has its own model, and c/dims of a dimension that is
  // the same at every input would only add a rival nobody needs.
  const bool varies = std::any_of(values.begin(), values.end(), [&](const Rational &v) { return v != values[0]; });
  for (int64_t d : varies ? dimsGrids_ : decltype(dimsGrids_){})
    for (int64_t k = 0; k < d; ++k) {
      if (tried)
        tried->push_back("c/dims(N," + std::to_string(d) + ")[" + std::to_string(k) + "] (MPI_Dims_create)");
      auto dim = [d, k](int64_t n) -> std::optional<Rational> {
        auto g = dimsCreate(n, d);
        if (g.size() <= size_t(k) || g[size_t(k)] < 1)
          return std::nullopt;
        return Rational(g[size_t(k)]);
      };
      auto first = dim(ns[0]);
      if (!first || ns.size() < 3 || values[0].isZero())
        continue;
      Rational c = values[0] * *first;
      bool fits = c.isInteger();
      for (size_t j = 0; j < ns.size() && fits; ++j)
        fits = dim(ns[j]) && c / *dim(ns[j]) == values[j];
      if (!fits)
        continue;
      auto at = [c, dim](int64_t n) -> std::optional<Rational> {
        auto v = dim(n);
        return v ? std::optional<Rational>(c / *v) : std::nullopt;
      };
      auto divides = [at](int64_t n) {
        auto v = at(n);
        return v && v->isInteger();
      };
      auto target = at(targetN());
      out.push_back({"grid", c.str() + "/dims(N," + std::to_string(d) + ")[" + std::to_string(k) + "]", at,
                     target && target->isInteger() ? Expr(*target) : Expr(), divides,
                     "a grid whose dimension " + std::to_string(k) + " divides " + c.str()});
      out.back().length = c.isInteger() ? c.num() : 0;
    }
}

// MPI_Dims_create's output is a function sio knows: it is recomputed at
// the target from the (fitted) nnodes and ndims, never fitted itself. The
// trace records the output grid only, not the dims the program preset, so
// each way of presetting entries that were the same at every input is a
// hypothesis; those that reproduce every input must agree at the target
// (or --prefer grid / --prefer preset chooses).
void Extrapolator::recomputeDims(const std::vector<const Event *> &events, const std::string &where, Event &out) const {
  auto fail = [&](const std::string &why) {
    throw ExtrapError("cannot recompute the output of " + where + " at " + std::to_string(options_.targetRanks) +
                      " ranks: " + why);
  };
  std::vector<int64_t> nnodes;
  std::vector<std::vector<int64_t>> grids;
  int64_t ndims = 0;
  for (const Event *e : events) {
    const Param *n = e->param("nnodes"), *d = e->param("ndims");
    auto nv = n ? uniformConstant(n->value) : std::nullopt, dv = d ? uniformConstant(d->value) : std::nullopt;
    if (!nv || !dv || *dv < 1 || (ndims && *dv != ndims))
      fail("nnodes and ndims must be the same on every rank, and ndims the same at every rank count");
    ndims = *dv;
    nnodes.push_back(*nv);
    std::vector<int64_t> g;
    for (int64_t k = 0; k < std::min<int64_t>(ndims, 4); ++k) {
      const Param *x = e->param("dims" + std::to_string(k));
      auto v = x ? uniformConstant(x->value) : std::nullopt;
      if (!v)
        fail("its output dims" + std::to_string(k) + " differs between ranks or is missing");
      g.push_back(*v);
    }
    grids.push_back(std::move(g));
  }
  const Param *fitted = out.param("nnodes");
  if (!fitted || fitted->value.entries().size() != 1)
    fail("nnodes is not one value");
  const Expr nnodesModel = std::get<Expr>(fitted->value.entries()[0].value);
  auto nnodesAt = [&](int64_t n) -> std::optional<int64_t> { return nnodesModel.evaluate({0, n, {}}); };
  // Entries equal at every input may have been preset by the program.
  std::vector<size_t> constant;
  for (size_t k = 0; k < grids[0].size(); ++k)
    if (std::all_of(grids.begin(), grids.end(), [&](const auto &g) { return g[k] == grids[0][k]; }))
      constant.push_back(k);
  std::vector<std::vector<int64_t>> hypotheses; // preset dims (0 = free)
  for (uint32_t mask = 0; mask < (1u << constant.size()); ++mask) {
    std::vector<int64_t> preset(size_t(ndims), 0);
    for (size_t b = 0; b < constant.size(); ++b)
      if (mask & (1u << b))
        preset[constant[b]] = grids[0][constant[b]];
    bool fits = true;
    for (size_t k = 0; k < events.size() && fits; ++k) {
      auto g = dimsCreate(nnodes[k], preset);
      fits = g.size() == size_t(ndims) && std::equal(grids[k].begin(), grids[k].end(), g.begin());
    }
    if (fits)
      hypotheses.push_back(std::move(preset));
  }
  if (hypotheses.empty())
    fail("MPI's grids are not MPI_Dims_create's most balanced grids with any entries preset");
  auto gridAt = [&](size_t h, int64_t n) -> std::vector<int64_t> {
    auto nn = nnodesAt(n);
    return nn ? dimsCreate(*nn, hypotheses[h]) : std::vector<int64_t>{};
  };
  std::vector<std::string> families, names;
  for (const auto &h : hypotheses) {
    std::string preset;
    for (size_t k = 0; k < h.size(); ++k)
      if (h[k])
        preset += (preset.empty() ? "" : ", ") + std::string("dims") + std::to_string(k) + "=" + std::to_string(h[k]);
    families.push_back(preset.empty() ? "grid" : "preset");
    names.push_back(preset.empty() ? "all dims computed by MPI_Dims_create" : preset + " given by the program");
  }
  auto show = [](const std::vector<int64_t> &g) {
    std::string s;
    for (int64_t d : g)
      s += (s.empty() ? "" : "x") + std::to_string(d);
    return s.empty() ? std::string("no grid") : s;
  };
  std::string shown;
  for (size_t k = 0; k < ns_.size(); ++k)
    shown += (k ? ", N=" : "N=") + std::to_string(ns_[k]) + ": " + show(grids[k]);
  const size_t h = choose(
      ns_, families, names, [&](size_t a, size_t b, int64_t n) { return gridAt(a, n) == gridAt(b, n); },
      [&](size_t a, int64_t n) { return show(gridAt(a, n)); }, "the output dims of " + where, shown);
  const std::vector<int64_t> target = gridAt(h, options_.targetRanks);
  if (target.size() != size_t(ndims))
    fail("MPI_Dims_create(" + nnodesModel.str() + ", " + std::to_string(ndims) + ") has no grid there");
  for (Param &p : out.params) {
    if (p.name.rfind("dims", 0) != 0)
      continue;
    const size_t k = std::stoul(p.name.substr(4));
    ElasticValue v = fitted->value;
    v.entries()[0].value = Expr(target.at(k));
    p.value = std::move(v);
  }
}

} // namespace sio::extrap::detail
