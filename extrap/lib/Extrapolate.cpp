#include "sio/extrap/Extrapolate.h"

#include "ModelsDecomp.h"
#include "ModelsGridBlock.h"

#include "ReadResults.h"
#include "TimingFit.h"

#include "sio/trace/Printable.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace sio::extrap {

namespace {

bool hasRankTiming(const std::vector<sio::trace::Node> &body) {
  for (const sio::trace::Node &n : body)
    if (n.isLoop() ? hasRankTiming(n.loop().body) : !n.event().rankTiming.empty())
      return true;
  return false;
}

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

namespace {

using namespace sio::trace;

// Walks the inputs in lock step (sorted by rank count) and builds the target.
class Extrapolator {
public:
  Extrapolator(std::vector<const Trace *> inputs, const ExtrapOptions &options)
      : in_(std::move(inputs)), options_(options) {
    for (const Trace *t : in_)
      ns_.push_back(t->header.nranks);
    blockLengths_ = blockLengthsOf(in_);
    recordedLengths(recordedLengths_);
  }

  Trace run() {
    Trace out;
    const Trace &last = *in_.back();
    findDimsGrids();
    out.header = last.header;
    out.header.nranks = options_.targetRanks;
    out.header.generator = "sio-extrap";
    out.header.complete = true;
    out.header.droppedEvents = 0;
    out.header.notes.clear();
    out.header.inexact.clear();
    for (const Trace *t : in_)
      for (const std::string &why : t->header.inexact) // an input's gaps are the extrapolation's
        if (std::find(out.header.inexact.begin(), out.header.inexact.end(), why) == out.header.inexact.end())
          out.header.inexact.push_back(why);
    for (const Trace *t : in_)
      if (!t->header.complete) {
        out.header.complete = false;
        out.header.notes.push_back("input at " + std::to_string(t->header.nranks) +
                                   " ranks was incomplete; the extrapolation inherits its gaps");
      }
    std::string inputs;
    for (int64_t n : ns_)
      inputs += (inputs.empty() ? "" : ",") + std::to_string(n);
    out.header.metadata["extrapolated_from_ranks"] = inputs;

    unionTables(out);
    out.files = fitFiles();
    // The body before the object tables: a refusal then names the call
    // (MPI_Dims_create) before the datatypes built from its output.
    classifyReads();
    std::vector<const std::vector<Node> *> bodies;
    for (const Trace *t : in_)
      bodies.push_back(&t->body);
    out.body = fitBody(bodies, "body");
    out.datatypes = fitObjects("datatype", &Trace::datatypes);
    out.comms = fitObjects("comm", &Trace::comms);
    out.infos = fitObjects("info", &Trace::infos);
    if (!computedReads_.empty())
      computeReadResults(out);

    std::ostringstream timing;
    timing << timingFits_ << " timing fits, worst relative error " << worstTimingError_ * 100 << "%";
    out.header.metadata["timing_fit"] = timing.str();
    // Per-rank timing describes the input runs' own ranks: it is not
    // extrapolated (no event of the output carries rank_timing), and the
    // trace says so rather than drop it silently.
    for (const Trace *t : in_)
      if (hasRankTiming(t->body)) {
        out.header.metadata["per_rank_timing"] =
            "not extrapolated: the inputs' per-rank timing (rank_timing) describes their own ranks; every rank of "
            "this trace has the fitted statistics of its events";
        break;
      }
    if (!choices_.empty()) {
      std::string all;
      for (const std::string &c : choices_)
        all += (all.empty() ? "" : "; ") + c;
      out.header.metadata["extrap_choices"] = all;
    }
    return out;
  }

private:
  // ------------------------------------------------------------ errors
  std::string perInput(const std::vector<std::string> &values) const {
    std::string s;
    for (size_t k = 0; k < values.size(); ++k)
      s += (k ? ", " : "") + std::string("N=") + std::to_string(ns_[k]) + ": " + values[k];
    return s;
  }

  [[noreturn]] void refuse(const std::string &where, const std::string &what,
                           const std::vector<std::string> &values, const std::vector<std::string> &tried = {}) const {
    std::string msg = "cannot extrapolate " + what + " of " + where + "\n  values per input: " + perInput(values);
    if (!tried.empty()) {
      msg += "\n  models tried:";
      for (size_t i = 0; i < tried.size(); ++i)
        msg += (i ? ", " : " ") + tried[i];
    }
    throw ExtrapError(msg);
  }

  [[noreturn]] void differ(const std::string &where, const std::string &what, const std::vector<std::string> &values) const {
    throw ExtrapError("inputs differ in structure at " + where + ": " + what + "\n  per input: " + perInput(values));
  }

  std::string describe(const Event &e, const std::string &path) const {
    std::string s = e.op + " (" + path;
    if (const SiteInfo *site = in_.back()->site(e.site))
      s += ", " + site->file + ":" + std::to_string(site->line) + ":" + std::to_string(site->column);
    if (e.site)
      s += ", site " + formatId(e.site);
    return s + ")";
  }

  // ------------------------------------------------------ process grids
  // MPI_Dims_create(nranks, d) is a function of N that no polynomial model
  // fits (2x2, 4x2, 4x3, 4x4, 8x4 for N = 4, 8, 12, 16, 32). When every input
  // recorded such a call, and dimsCreate reproduces what MPI returned there,
  // values that are a constant multiple of one grid dimension at every input
  // are extrapolated by recomputing the grid at the target.
  void findDimsGrids() {
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
              if (!p || !p->value.isUniform())
                return std::nullopt;
              const Expr *x = std::get_if<Expr>(&p->value.entries()[0].value);
              return x ? x->constantValue() : std::nullopt;
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

  // ------------------------------------------------------------ models
  // Every admissible model that reproduces the inputs is a candidate; the
  // value is extrapolated only when all candidates agree at the target, or
  // --prefer names which to take (docs/extrap.md, Ambiguity).
  struct Candidate {
    std::string family;                                 ///< "scaling", "grid" or "preset" (MPI_Dims_create)
    std::string name;                                   ///< shown in messages: "constant 2", "1*dims(N,3)[1]"
    std::function<std::optional<Rational>(int64_t)> at; ///< the value at a rank count
    Expr result;                                        ///< written for the target
    /// Where the model is defined (a sqrt model: squares); empty: every N.
    std::function<bool(int64_t)> definedAt;
    std::string domain; ///< "a square", for messages
    int64_t length = 0; ///< the array length of a block or c/dims model (0: none)
  };

  // A value that is an integer multiple c of dimension k of the grid
  // MPI_Dims_create(N, d) at every input (3 or more): c times that dimension
  // of the target's grid, written as a constant (there is no formula for the
  // grid).
  void gridCandidates(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
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

  std::vector<Candidate> candidates(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                                    std::vector<std::string> *tried) const {
    std::vector<Candidate> out;
    for (FittedModel &m : fitAllScaling(ns, values, tried)) {
      Expr f = m.formula;
      out.push_back({"scaling",
                     m.name + " (" + f.str() + ")",
                     [f](int64_t n) {
                       return f.evaluateRational({0, n, {}});
                     },
                     f,
                     {},
                     ""});
    }
    gridCandidates(ns, values, tried, out);
    // Square/cubic grids and block distributions (ModelsDecomp.h): written
    // as constants of the target, like the grid models.
    const int64_t target = targetN();
    if (tried) {
      tried->push_back("k*q, k/q, k*q + b, k/q + b (q = sqrt(N) or cbrt(N))");
      tried->push_back("c*floor(n/N), c*ceil(n/N), c*(n % N), c*(N - n % N), c*(n - (N-1)*ceil(n/N))");
      if (dimsGrids_.count(2)) // fitGridBlocks, tried on the whole value after these
        tried->push_back("blocks of both MPI_Dims_create(N,2) grid dimensions, n/p + (c < n % p) or ceil(n/p), rank"
                         " by rank");
    }
    std::vector<FamilyFit> decomp = fitRootModels(ns, values);
    for (FamilyFit &f : fitBlockModels(ns, values, blockLengths_, target))
      decomp.push_back(std::move(f));
    for (FamilyFit &f : decomp) {
      auto v = f.definedAt(target) ? f.at(target) : std::nullopt;
      out.push_back({f.family, f.name, f.at, v ? Expr(*v) : Expr(), f.definedAt, f.domain});
      out.back().length = f.length;
    }
    // A length the trace records (a subarray's or darray's global size) is
    // the program's own: where c/dims(N,d)[k] fits with c such a length, a
    // block model of a length the trace does not record is no rival (128
    // rows over 2, 4, 4, 4 grid rows are 64, 32, 32, 32, and so is
    // 32*ceil(5/N) at N = 4, 8, 12, 16).
    const bool recordedGrid = std::any_of(out.begin(), out.end(), [&](const Candidate &c) {
      return c.family == "grid" && c.length && recordedLengths_.count(c.length);
    });
    if (recordedGrid)
      std::erase_if(out, [&](const Candidate &c) { return c.family == "block" && !recordedLengths_.count(c.length); });
    return out;
  }

  /// The smallest rank count above the inputs (in the inputs' step first:
  /// 20, 24, 28, ... after 4, 8, 12, 16) where a and b differ.
  static int64_t decidingRanks(const std::vector<int64_t> &ns, int64_t target,
                               const std::function<bool(int64_t)> &differs) {
    int64_t step = 0;
    for (int64_t n : ns)
      step = std::gcd(step, n);
    const int64_t top = ns.back();
    for (int64_t n = top + step; step > 0 && n <= top + 256 * step; n += step)
      if (differs(n))
        return n;
    for (int64_t n = top + 1; n <= top + 4096; ++n)
      if (differs(n))
        return n;
    return target;
  }

  /// Index into `cands` of the model to use, or throws AmbiguityError.
  /// `agree(i, j, n)` says whether candidates i and j give the same at n.
  size_t choose(const std::vector<int64_t> &ns, const std::vector<std::string> &families,
                const std::vector<std::string> &names, const std::function<bool(size_t, size_t, int64_t)> &agree,
                const std::function<std::string(size_t, int64_t)> &valueAt, const std::string &subject,
                const std::string &shownValues) const {
    const int64_t target = targetN();
    std::vector<size_t> distinct;
    for (size_t i = 0; i < names.size(); ++i)
      if (std::all_of(distinct.begin(), distinct.end(), [&](size_t j) { return !agree(i, j, target); }))
        distinct.push_back(i);
    if (distinct.size() <= 1)
      return 0;
    if (!bias_.empty()) { // a trial fit of fitOnLargerInputs, verified there
      for (size_t i = 0; i < names.size(); ++i)
        if (families[i] == bias_)
          return i;
      return 0;
    }
    for (const std::string &p : options_.prefer) {
      const size_t at = p.find('@');
      const std::string model = p.substr(0, at);
      if (at != std::string::npos && subject.find(p.substr(at + 1)) == std::string::npos)
        continue;
      std::vector<size_t> matched;
      for (size_t i = 0; i < names.size(); ++i)
        if (families[i] == model || names[i] == model || names[i].rfind(model + " (", 0) == 0)
          matched.push_back(i);
      if (matched.empty() ||
          !std::all_of(matched.begin(), matched.end(), [&](size_t i) { return agree(i, matched.front(), target); }))
        continue;
      std::string others;
      for (size_t j : distinct)
        if (!agree(j, matched.front(), target))
          others += (others.empty() ? "" : ", ") + names[j];
      choices_.push_back(subject + ": " + names[matched.front()] + " (--prefer " + p + ") over " + others);
      return matched.front();
    }
    const size_t a = distinct[0], b = distinct[1];
    const int64_t decide = decidingRanks(ns, target, [&](int64_t n) { return !agree(a, b, n); });
    std::string msg = "ambiguous: " + subject + ": " + std::to_string(distinct.size()) +
                      " models reproduce every input but differ at N=" + std::to_string(target) +
                      "\n  values per input: " + shownValues;
    for (size_t i : distinct)
      msg += "\n  " + families[i] + " " + names[i] + " gives " + valueAt(i, target) + " at N=" + std::to_string(target);
    // The --prefer word of a candidate: a scaling model's name, else its family.
    auto token = [&](size_t i) {
      return families[i] == "scaling" ? names[i].substr(0, names[i].find(" (")) : families[i];
    };
    msg += "\n  add a trace at N=" + std::to_string(decide) + " (" + names[a] + " gives " + valueAt(a, decide) + ", " +
           names[b] + " gives " + valueAt(b, decide) + "), or choose with --prefer " + token(a) + " or --prefer " +
           token(b) + " (add @WHERE to choose for this value only)";
    throw AmbiguityError(msg);
  }

  /// The model of one value (samples at ns), nullopt when none fits; throws
  /// AmbiguityError when fitting models disagree at the target.
  std::optional<Expr> fitCoefficient(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                                     const std::string &subject, std::vector<std::string> *tried) const {
    std::vector<Candidate> cands = candidates(ns, values, tried);
    if (cands.empty())
      return std::nullopt;
    std::vector<std::string> families, names;
    for (const Candidate &c : cands) {
      families.push_back(c.family);
      names.push_back(c.name);
    }
    std::string shown;
    for (size_t k = 0; k < ns.size(); ++k)
      shown += (k ? ", N=" : "N=") + std::to_string(ns[k]) + ": " + values[k].str();
    const int64_t target = targetN();
    // A model of a square (cubic) grid reproduces the inputs: the program
    // runs at such rank counts only, and so does its extrapolation.
    for (const Candidate &c : cands)
      if (c.definedAt && !c.definedAt(target)) {
        std::string ok;
        for (int64_t n = target + 1, found = 0; found < 3 && n < target + 100000; ++n)
          if (c.definedAt(n))
            ok += (found++ ? ", " : "") + std::to_string(n);
        throw ExtrapError("cannot extrapolate " + subject + " to N=" + std::to_string(target) + ": it follows " +
                          c.name + " at every input (" + shown + "), and " + std::to_string(target) + " is not " +
                          c.domain + "; choose a target that is " + c.domain + " (" + ok + ", ...)");
      }
    // A root or block model is written as its value at the target: one that
    // gives no integer there (120/q at N = 49) cannot be written.
    for (const Candidate &c : cands)
      if (c.definedAt && !c.at(target))
        throw ExtrapError("cannot extrapolate " + subject + " to N=" + std::to_string(target) + ": it follows " +
                          c.name + " at every input (" + shown +
                          "), which is not an integer at N=" + std::to_string(target));
    auto defined = [&](size_t a, int64_t n) { return !cands[a].definedAt || cands[a].definedAt(n); };
    auto show = [](const std::optional<Rational> &v) { return v ? v->str() : std::string("nothing"); };
    // Outside a model's domain the program does not run: no rank count there
    // decides between two models.
    size_t i = choose(
        ns, families, names,
        [&](size_t a, size_t b, int64_t n) {
          return !defined(a, n) || !defined(b, n) || cands[a].at(n) == cands[b].at(n);
        },
        [&](size_t a, int64_t n) { return show(cands[a].at(n)); }, subject, shown);
    return cands[i].result;
  }

  // ------------------------------------------------------------ scalars
  Expr fitScalar(const std::string &where, const std::string &what, const std::vector<Rational> &values,
                 const std::vector<std::string> &shown) const {
    std::vector<std::string> tried;
    if (auto e = fitCoefficient(ns_, values, what + " of " + where, &tried))
      return *e;
    refuse(where, what, shown, tried);
  }

  int64_t atTarget(const Expr &model, const std::string &where, const std::string &what) const {
    auto v = model.evaluate({0, options_.targetRanks, {}});
    if (!v)
      throw ExtrapError("cannot extrapolate " + what + " of " + where + ": its model " + model.str() +
                        " is not an integer at " + std::to_string(options_.targetRanks) + " ranks");
    return *v;
  }

  int64_t fitInt(const std::string &where, const std::string &what, const std::vector<int64_t> &values) const {
    std::vector<Rational> r(values.begin(), values.end());
    std::vector<std::string> shown;
    for (int64_t v : values)
      shown.push_back(std::to_string(v));
    return atTarget(fitScalar(where, what, r, shown), where, what);
  }

  // A formula: each coefficient of its polynomial is fitted as a function of N.
  Expr fitExpr(const std::string &where, const std::string &what, const std::vector<const Expr *> &values,
               const std::vector<const RankList *> *ranks = nullptr) const {
    try {
      return fitExprAt(ns_, where, what, values);
    } catch (const AmbiguityError &) {
      throw;
    } catch (const ExtrapError &) {
      if (auto e = fitOnLargerInputs(values, ranks))
        return *e;
      if (auto e = fitGridCoordinates(values))
        return *e;
      // Only where each input's formula holds for every rank (a datatype
      // field, or a value of one group of all ranks).
      bool allRanks = true;
      for (size_t k = 0; ranks && k < ranks->size(); ++k)
        allRanks = allRanks && (*ranks)[k]->size() == ns_[k];
      if (allRanks)
        if (auto e = fitGridBlocks(what + " of " + where, [&](size_t k, int64_t) { return values[k]; }))
          return *e;
      throw;
    }
  }

  // The global array lengths the inputs record, the same at every input: a
  // subarray's sizes, a darray's gsizes. A block of a grid dimension that
  // divides the array at every input (128 over 2, 4, 4, 4) shows n/p only,
  // which 4/p (times 32) gives as well; the recorded length decides.
  void recordedLengths(std::set<int64_t> &out) const {
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

  // A value of the ranks' coordinates in the MPI_Dims_create(N, 2) grid
  // through each dimension's block distribution, remainders included
  // (ModelsGridBlock.h): fitted rank by rank over every input, for each
  // loop-index monomial apart, and written for the target's grid (a formula
  // of rank % p, with a table per coordinate where the target's grid leaves
  // a remainder). Models that fit and differ at the target are ambiguous;
  // the refusal names the rank count that decides. nullopt: no such model.
  std::optional<Expr> fitGridBlocks(const std::string &subject,
                                    const std::function<const Expr *(size_t, int64_t)> &at) const {
    if (!dimsGrids_.count(2) || ns_.size() < 3)
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
      std::vector<GridBlockFit> fits = fitGridBlockModels(samples, recordedLengths_, blockLengths_);
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
        std::string msg = "ambiguous: " + subject +
                          (mono.empty() ? "" : " (the coefficient of " + Expr::ofMonomial(mono).str() + ")") + ": " +
                          std::to_string(distinct.size()) +
                          " models of blocks over the MPI_Dims_create(N, 2) grid reproduce every rank of every input"
                          " but differ at N=" +
                          std::to_string(target);
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

  std::optional<ElasticValue> fitGridBlocksElastic(const std::string &subject,
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
  std::optional<Expr> fitGridCoordinates(const std::vector<const Expr *> &values) const {
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

  // At a small rank count two models can coincide (100*(rank % 4) is 100*rank
  // on 4 ranks), and the trace holds the simpler one. Fit on the inputs whose
  // formula has the shape of the largest input's, then accept the model only
  // if it reproduces every other input's values exactly, rank by rank.
  std::optional<Expr> fitOnLargerInputs(const std::vector<const Expr *> &values,
                                        const std::vector<const RankList *> *ranks) const {
    auto shape = [](const Expr &e) {
      std::set<Monomial> m;
      for (const auto &[mono, c] : e.terms())
        m.insert(mono);
      return m;
    };
    const auto refShape = shape(*values.back());
    std::vector<size_t> same, other;
    for (size_t k = 0; k < values.size(); ++k)
      (shape(*values[k]) == refShape ? same : other).push_back(k);
    if (other.empty() || same.size() < 3)
      return std::nullopt;
    std::vector<int64_t> ns;
    std::vector<const Expr *> subset;
    for (size_t k : same) {
      ns.push_back(ns_[k]);
      subset.push_back(values[k]);
    }
    // The subset can leave two models open (a grid dimension that is the
    // same at every input of the subset): fit once taking scaling models,
    // once taking grid models, each for the other inputs' rank counts (a grid
    // model is a constant of the rank count it is fitted for) and checked
    // there rank by rank; the ones that hold must agree at the target.
    struct Restore {
      const Extrapolator &x;
      ~Restore() {
        x.targetOverride_ = 0;
        x.bias_.clear();
      }
    } restore{*this};
    auto holds = [&](const Expr &model, size_t k) {
      const uint32_t depth = std::min<uint32_t>(3, std::max(model.loopDepthUsed(), values.front()->loopDepthUsed()));
      std::vector<int64_t> rankSet;
      if (ranks && (*ranks)[k]->size() <= 4096)
        rankSet = (*ranks)[k]->ranks();
      else
        for (int64_t r = 0; r < std::min<int64_t>(ns_[k], 4096); ++r)
          rankSet.push_back(r);
      std::vector<int64_t> idx(depth, 0);
      for (;;) {
        for (int64_t r : rankSet)
          if (model.evaluate({r, ns_[k], idx}) != values[k]->evaluate({r, ns_[k], idx}))
            return false;
        size_t d = 0;
        while (d < idx.size() && ++idx[d] == 3)
          idx[d++] = 0;
        if (d == idx.size())
          return true;
      }
    };
    std::vector<std::pair<std::string, Expr>> models;
    for (const char *family : {"scaling", "grid"}) {
      bias_ = family;
      try {
        bool all = true;
        for (size_t k : other) {
          targetOverride_ = ns_[k];
          all = all && holds(fitExprAt(ns, "", "", subset), k);
        }
        targetOverride_ = 0;
        if (all)
          models.emplace_back(family, fitExprAt(ns, "", "", subset));
      } catch (const ExtrapError &) {
        targetOverride_ = 0;
      }
    }
    if (models.empty())
      return std::nullopt;
    if (models.size() == 2 && models[0].second != models[1].second) {
      const int64_t n = options_.targetRanks;
      for (int64_t r = 0; r < std::min<int64_t>(n, 4096); ++r)
        if (models[0].second.evaluate({r, n, {}}) != models[1].second.evaluate({r, n, {}})) {
          std::string shown;
          for (size_t k = 0; k < values.size(); ++k)
            shown += (k ? ", N=" : "N=") + std::to_string(ns_[k]) + ": " + values[k]->str();
          throw AmbiguityError("ambiguous: a value fitted on the inputs N=" + std::to_string(ns.front()) + ".." +
                               std::to_string(ns.back()) + " whose formula has the largest input's shape: " +
                               "a scaling model (" + models[0].second.str() + ") and a grid model (" +
                               models[1].second.str() + ") reproduce every input but differ at N=" + std::to_string(n) +
                               " (rank " + std::to_string(r) + ")\n  values per input: " + shown +
                               "\n  add a trace at another rank count whose grid dimensions differ from the inputs'");
        }
    }
    return models.front().second;
  }

  Expr fitExprAt(const std::vector<int64_t> &ns, const std::string &where, const std::string &what,
                 const std::vector<const Expr *> &values) const {
    std::map<Monomial, std::vector<Rational>> coefficients;
    for (size_t k = 0; k < values.size(); ++k)
      for (const auto &[m, c] : values[k]->terms()) {
        auto &v = coefficients[m];
        v.resize(values.size());
        v[k] = c;
      }
    std::vector<std::string> shown;
    for (const Expr *e : values)
      shown.push_back(e->str());
    Expr result;
    // An ambiguous coefficient is reported only when every other one fits:
    // a term that fits no model means the formula's shape changes between
    // inputs (`rank % 2` at N=8, `rank % 4` at N=16), which the callers'
    // structural fits (grid coordinates) model as a whole; an ambiguity met
    // first must not hide that (c1-cart-subarray: `16*(rank / dims[0])`).
    std::optional<AmbiguityError> ambiguity;
    for (auto &[m, v] : coefficients) {
      v.resize(values.size());
      std::vector<std::string> tried;
      std::string term = m.empty() ? "the constant term" : "the coefficient of " + Expr::ofMonomial(m).str();
      std::optional<Expr> c;
      try {
        c = fitCoefficient(ns, v, what + " (" + term + ") of " + where, &tried);
      } catch (const AmbiguityError &e) {
        if (!ambiguity)
          ambiguity = e;
        continue;
      }
      if (!c) {
        if (ns.size() != ns_.size()) { // a subset of the inputs: label them here
          std::string msg = "cannot extrapolate " + what + " (" + term + ") of " + where + "\n  values per input:";
          for (size_t k = 0; k < ns.size(); ++k)
            msg += (k ? ", N=" : " N=") + std::to_string(ns[k]) + ": " + shown[k];
          throw ExtrapError(msg);
        }
        refuse(where, what + " (" + term + ")", shown, tried);
      }
      result = result + *c * Expr::ofMonomial(m);
    }
    if (ambiguity)
      throw *ambiguity;
    return result;
  }

  Value fitValue(const std::string &where, const std::string &what, const std::vector<const Value *> &values,
                 const std::vector<const RankList *> *ranks = nullptr) const {
    std::vector<std::string> shown;
    for (const Value *v : values)
      shown.push_back(valueStr(*v));
    if (std::holds_alternative<std::string>(*values.front())) {
      for (const Value *v : values)
        if (*v != *values.front())
          refuse(where, what, shown, {"identical strings"});
      return *values.front();
    }
    std::vector<const Expr *> exprs;
    for (const Value *v : values) {
      if (!std::holds_alternative<Expr>(*v))
        refuse(where, what, shown, {"identical strings"});
      exprs.push_back(&std::get<Expr>(*v));
    }
    return fitExpr(where, what, exprs, ranks);
  }

  // ------------------------------------------------------------ rank lists
  RankList fitRanks(const std::string &where, const std::string &what, const std::vector<const RankList *> &lists) const {
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
        dim.stride = fitInt(where, what + " (rank-list stride)", collect([d](const RankBlock &x) { return x.dims[d].stride; }));
        dim.count = fitInt(where, what + " (rank-list count)", collect([d](const RankBlock &x) { return x.dims[d].count; }));
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
  void checkAtTarget(const std::string &where, const std::string &what, const ElasticEntry &entry) const {
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
  std::optional<ElasticValue> fitRankRuns(const std::string &where, const std::string &what,
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
          formula = formula + (Expr(atTarget(a, where, run)) * Expr::rank() + Expr(atTarget(b, where, run))) *
                                  Expr::ofMonomial(m);
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
  std::string runsHint(const std::vector<const ElasticValue *> &values) const {
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
        hint += "; an array of " + shownLengths +
                " leaves two ranks or more on each side of its remainder at N=" + good + ", ...: trace at such counts";
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
  std::optional<Expr> fitLoneRankGroup(const std::string &where, const std::string &what,
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

  ElasticValue fitElastic(const std::string &where, const std::string &what, const std::vector<const ElasticValue *> &values) const {
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
            "runs of ranks affine in rank whose bounds follow a model (a block distribution's n % N)" +
                runsHint(values)};
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

  // ------------------------------------------------------------ structure
  TimingStats fitTimingStats(const std::vector<const TimingStats *> &stats, const std::string &where) {
    std::vector<int64_t> ns;
    std::vector<double> means;
    for (size_t k = 0; k < stats.size(); ++k)
      if (stats[k]->count()) {
        ns.push_back(ns_[k]);
        means.push_back(stats[k]->mean());
      }
    if (ns.empty())
      return {};
    TimingFit fit = fitTiming(ns, means, options_.targetRanks);
    ++timingFits_;
    worstTimingError_ = std::max(worstTimingError_, fit.relativeError);
    if (options_.verbose) {
      std::ostringstream line;
      line << where << ": " << fit.model << ", " << fit.predicted << " ns at " << options_.targetRanks
           << " ranks, relative error " << fit.relativeError * 100 << "%";
      options_.verbose(line.str());
    }
    return scaleTiming(*stats.back(), fit.predicted);
  }

  // ------------------------------------------------------- read results
  // A read's result is min(requested, max(0, extent - offset)) with the
  // file's extent at that point, which the trace's earlier writes give
  // (ReadResults.h). Each input is simulated and must reproduce its
  // recorded results; the target's are then computed the same way. A read
  // the simulation cannot follow (a file that existed before the run, a
  // view with holes) is fitted like any value, and only when it read all
  // it asked for at every input.
  void classifyReads() {
    std::vector<std::map<std::string, ReadOutcome>> sims;
    for (const Trace *t : in_)
      sims.push_back(simulateReads(*t, true));
    for (const auto &[path, first] : sims.back()) {
      bool supported = true, allFull = true;
      std::string mismatch, why;
      for (size_t k = 0; k < sims.size(); ++k) {
        auto it = sims[k].find(path);
        if (it == sims[k].end()) {
          supported = false;
          why = "it does not run at N=" + std::to_string(ns_[k]);
          continue;
        }
        const ReadOutcome &o = it->second;
        allFull = allFull && o.allFull;
        if (!o.supported) {
          if (supported)
            why = o.why + " at N=" + std::to_string(ns_[k]);
          supported = false;
        } else if (!o.mismatch.empty() && mismatch.empty()) {
          mismatch = "N=" + std::to_string(ns_[k]) + ": " + o.mismatch;
        }
      }
      if (supported && mismatch.empty())
        readResults_[path] = ""; // computed
      else if (supported)
        readResults_[path] = "its result does not follow from the trace's writes (" + mismatch +
                             "): it depends on data the trace does not hold, e.g. a file that existed before the run";
      else if (!allFull)
        readResults_[path] = "a short read whose result the trace cannot explain: " + why;
      // else: fitted as before (every input read all it asked for)
    }
  }

  /// The results of a read in one loop that changes from one iteration to
  /// the next on some ranks (sequential reads across the end of the file):
  /// per group of ranks with the same results, a table indexed by the loop.
  static std::optional<ElasticValue> iterationTable(const ReadOutcome &o) {
    if (o.loopDepth != 1)
      return std::nullopt;
    std::map<std::vector<int64_t>, std::vector<int64_t>> byResults;
    for (const auto &[rank, results] : o.sequence)
      byResults[results].push_back(rank);
    if (byResults.size() > 4096)
      return std::nullopt;
    ElasticValue v;
    for (auto &[results, ranks] : byResults) {
      // The runtime's form (its IntraRank sequence fitter): a line where
      // the results are affine in the index, else a table of the
      // differences from the first result plus that result.
      bool affine = true;
      for (size_t k = 2; k < results.size() && affine; ++k)
        affine = results[k] - results[k - 1] == results[1] - results[0];
      Expr x(results.empty() ? 0 : results[0]);
      if (results.size() > 1 && affine) {
        x = x + Expr(results[1] - results[0]) * Expr::loopIndex(0);
      } else if (results.size() > 1) {
        std::vector<int64_t> shifted;
        for (int64_t r : results)
          shifted.push_back(r - results[0]);
        x = Expr::table(std::move(shifted), Expr::loopIndex(0)) + x;
      }
      v.entries().push_back({RankList::fromRanks(std::move(ranks)), Value(std::move(x))});
    }
    return v;
  }

  void computeReadResults(Trace &out) const {
    const auto sim = simulateReads(out, false);
    std::function<void(std::vector<Node> &, const std::string &)> fill = [&](std::vector<Node> &nodes,
                                                                             const std::string &path) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string here = path + "[" + std::to_string(i) + "]";
        Node &node = nodes[i];
        if (node.isLoop()) {
          fill(node.loop().body, here + ".body");
          continue;
        }
        if (!computedReads_.count(here))
          continue;
        Event &e = node.event();
        const std::string where = describe(e, here);
        auto it = sim.find(here);
        if (it == sim.end() || !it->second.supported)
          throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": at " +
                            std::to_string(options_.targetRanks) + " ranks " +
                            (it == sim.end() ? std::string("it does not run") : it->second.why));
        const ReadOutcome &o = it->second;
        Param *result = nullptr;
        for (Param &p : e.params)
          if (p.name == "result")
            result = &p;
        if (o.iterationDependent) {
          if (auto v = iterationTable(o)) {
            result->value = std::move(*v);
            continue;
          }
          throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": at " +
                            std::to_string(options_.targetRanks) +
                            " ranks a rank's result changes from one iteration to the next of nested loops (a "
                            "loop that reads across the end of the file)");
        }
        // Every rank read all it asked for: the result is the request, still a
        // formula of nranks (count, or count times the datatype's size).
        if (o.full) {
          const Param *count = e.param("count");
          int64_t size = isPosixRead(e.op) ? 1 : 0; // 0: not known
          if (!size) {
            const Param *dt = e.param("datatype");
            const Expr *id = dt && dt->value.isUniform() ? std::get_if<Expr>(&dt->value.entries()[0].value) : nullptr;
            for (const ObjectEntry &d : out.datatypes)
              if (id && id->constantValue() == d.id && d.kind == "named" && d.fields.count("size") &&
                  !d.fields.at("size").empty())
                size = d.fields.at("size")[0].constantValue().value_or(0);
          }
          if (count && size > 0) {
            ElasticValue v = count->value;
            bool exprs = true;
            for (ElasticEntry &x : v.entries())
              if (Expr *c = std::get_if<Expr>(&x.value))
                x.value = *c * Expr(size);
              else
                exprs = false;
            if (exprs) {
              result->value = std::move(v);
              continue;
            }
          }
        }
        // One entry per distinct result, over the ranks that get it.
        std::map<int64_t, std::vector<int64_t>> byValue;
        for (const auto &[rank, got] : o.perRank)
          byValue[got].push_back(rank);
        if (byValue.size() > 4096)
          throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": " +
                            std::to_string(byValue.size()) + " different results at the target");
        ElasticValue v;
        for (auto &[got, ranks] : byValue)
          v.entries().push_back({RankList::fromRanks(std::move(ranks)), Value(Expr(got))});
        result->value = std::move(v);
      }
    };
    fill(out.body, "body");
  }

  // MPI_Dims_create's output is a function sio knows: it is recomputed at
  // the target from the (fitted) nnodes and ndims, never fitted itself. The
  // trace records the output grid only, not the dims the program preset, so
  // each way of presetting entries that were the same at every input is a
  // hypothesis; those that reproduce every input must agree at the target
  // (or --prefer grid / --prefer preset chooses).
  void recomputeDims(const std::vector<const Event *> &events, const std::string &where, Event &out) const {
    auto uniform = [](const ElasticValue &v) -> std::optional<int64_t> {
      if (!v.isUniform())
        return std::nullopt;
      const Expr *x = std::get_if<Expr>(&v.entries()[0].value);
      return x ? x->constantValue() : std::nullopt;
    };
    auto fail = [&](const std::string &why) {
      throw ExtrapError("cannot recompute the output of " + where + " at " + std::to_string(options_.targetRanks) +
                        " ranks: " + why);
    };
    std::vector<int64_t> nnodes;
    std::vector<std::vector<int64_t>> grids;
    int64_t ndims = 0;
    for (const Event *e : events) {
      const Param *n = e->param("nnodes"), *d = e->param("ndims");
      auto nv = n ? uniform(n->value) : std::nullopt, dv = d ? uniform(d->value) : std::nullopt;
      if (!nv || !dv || *dv < 1 || (ndims && *dv != ndims))
        fail("nnodes and ndims must be the same on every rank, and ndims the same at every rank count");
      ndims = *dv;
      nnodes.push_back(*nv);
      std::vector<int64_t> g;
      for (int64_t k = 0; k < std::min<int64_t>(ndims, 4); ++k) {
        const Param *x = e->param("dims" + std::to_string(k));
        auto v = x ? uniform(x->value) : std::nullopt;
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

  Event fitEvent(const std::vector<const Event *> &events, const std::string &path) {
    const Event &ref = *events.back();
    std::string where = describe(ref, path);
    std::vector<std::string> shown;
    for (const Event *e : events)
      shown.push_back(e->op);
    for (const Event *e : events) {
      if (e->op != ref.op || e->layer != ref.layer || e->inner != ref.inner)
        differ(path, "different calls", shown);
      if (e->site != ref.site)
        differ(where, "different call sites", shown);
      if (e->params.size() != ref.params.size())
        differ(where, "different parameters", shown);
      for (size_t p = 0; p < ref.params.size(); ++p)
        if (e->params[p].name != ref.params[p].name)
          differ(where, "different parameters", shown);
    }
    Event out;
    out.op = ref.op;
    out.layer = ref.layer;
    out.site = ref.site;
    out.inner = ref.inner;
    const bool dimsCreate = ref.op == "MPI_Dims_create" && !ref.param("error");
    for (size_t p = 0; p < ref.params.size(); ++p) {
      if (dimsCreate && ref.params[p].name.rfind("dims", 0) == 0) {
        out.params.push_back({ref.params[p].name, {}}); // recomputed below, never fitted
        continue;
      }
      if (isModeledRead(ref.op) && ref.params[p].name == "result") {
        auto how = readResults_.find(path);
        if (how != readResults_.end() && how->second.empty()) {
          out.params.push_back({"result", {}}); // computed at the target from the file's extent
          computedReads_.insert(path);
          continue;
        }
        if (how != readResults_.end())
          throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": " + how->second);
      }
      std::vector<const ElasticValue *> values;
      for (const Event *e : events)
        values.push_back(&e->params[p].value);
      out.params.push_back({ref.params[p].name, fitElastic(where, "parameter '" + ref.params[p].name + "'", values)});
    }
    if (dimsCreate)
      recomputeDims(events, where, out);
    std::vector<const TimingStats *> compute, duration;
    for (const Event *e : events) {
      compute.push_back(&e->compute);
      duration.push_back(&e->duration);
    }
    out.compute = fitTimingStats(compute, where + " compute");
    out.duration = fitTimingStats(duration, where + " duration");
    return out;
  }

  std::vector<Node> fitBody(const std::vector<const std::vector<Node> *> &bodies, const std::string &path) {
    const size_t size = bodies.back()->size();
    for (const auto *b : bodies)
      if (b->size() != size) {
        std::vector<std::string> shown;
        for (const auto *x : bodies)
          shown.push_back(std::to_string(x->size()) + " nodes");
        differ(path, "different number of calls and loops", shown);
      }
    std::vector<Node> out;
    for (size_t i = 0; i < size; ++i) {
      std::string here = path + "[" + std::to_string(i) + "]";
      std::vector<const Node *> nodes;
      std::vector<std::string> kinds;
      for (const auto *b : bodies) {
        nodes.push_back(&(*b)[i]);
        kinds.push_back((*b)[i].isEvent() ? (*b)[i].event().op : "loop");
      }
      for (const Node *n : nodes)
        if (n->isEvent() != nodes.back()->isEvent())
          differ(here, "a call in one input is a loop in another", kinds);
      Node node;
      std::vector<const RankList *> ranks;
      for (const Node *n : nodes)
        ranks.push_back(&n->ranks);
      if (nodes.back()->isEvent()) {
        std::vector<const Event *> events;
        for (const Node *n : nodes)
          events.push_back(&n->event());
        Event e = fitEvent(events, here);
        node.ranks = fitRanks(describe(e, here), "the ranks", ranks);
        node.item = std::move(e);
      } else {
        const Loop &ref = nodes.back()->loop();
        std::vector<const ElasticValue *> iterations;
        std::vector<const std::vector<Node> *> inner;
        for (const Node *n : nodes) {
          if (n->loop().id != ref.id)
            differ(here, "different loops", kinds);
          iterations.push_back(&n->loop().iterations);
          inner.push_back(&n->loop().body);
        }
        std::string where = "loop " + here;
        if (const LoopInfo *l = in_.back()->loopInfo(ref.id))
          where += " (" + l->file + ":" + std::to_string(l->line) + ":" + std::to_string(l->column) + ")";
        Loop loop;
        loop.id = ref.id;
        loop.iterations = fitElastic(where, "the iteration count", iterations);
        node.ranks = fitRanks(where, "the ranks", ranks);
        loop.body = fitBody(inner, here + ".body");
        node.item = std::move(loop);
      }
      out.push_back(std::move(node));
    }
    return out;
  }

  // ------------------------------------------------------------ tables
  void unionTables(Trace &out) const {
    std::set<uint64_t> sites, loops;
    for (const Trace *t : in_) {
      for (const SiteInfo &s : t->sites)
        if (sites.insert(s.id).second)
          out.sites.push_back(s);
      for (const LoopInfo &l : t->loops)
        if (loops.insert(l.id).second)
          out.loops.push_back(l);
    }
  }

  static bool sameShape(const FileEntry &a, const FileEntry &b) {
    if (a.id != b.id || a.name.size() != b.name.size())
      return false;
    for (size_t p = 0; p < a.name.size(); ++p)
      if (a.name[p].text != b.name[p].text || a.name[p].field.has_value() != b.name[p].field.has_value() ||
          a.name[p].width != b.name[p].width)
        return false;
    return true;
  }

  std::vector<FileEntry> fitFiles() const {
    std::vector<std::string> counts;
    for (const Trace *t : in_)
      counts.push_back(std::to_string(t->files.size()) + " files");
    for (const Trace *t : in_)
      if (t->files.size() != in_.back()->files.size())
        differ("the file table", "different numbers of files", counts);
    std::vector<FileEntry> out;
    for (size_t f = 0; f < in_.back()->files.size(); ++f) {
      const FileEntry &ref = in_.back()->files[f];
      std::string where = "file f" + std::to_string(ref.id) + " \"" + ref.formatStr() + "\"";
      std::vector<std::string> shown;
      for (const Trace *t : in_)
        shown.push_back(t->files[f].formatStr());
      // A small run can make a rank field constant (out_<rank/4> is out_0000
      // on 4 ranks): fit on the inputs that show the field, then check that
      // the format reproduces the literal names of the others.
      std::vector<size_t> fitted, literal;
      for (size_t k = 0; k < in_.size(); ++k) {
        const FileEntry &e = in_[k]->files[f];
        if (sameShape(e, ref))
          fitted.push_back(k);
        else if (e.id == ref.id)
          literal.push_back(k); // checked below against the fitted format
        else
          refuse(where, "the file name", shown, {"same name format at every rank count"});
      }
      std::vector<int64_t> ns;
      for (size_t k : fitted)
        ns.push_back(ns_[k]);
      FileEntry entry;
      entry.id = ref.id;
      for (size_t p = 0; p < ref.name.size(); ++p) {
        FileNamePart part = ref.name[p];
        if (part.field) {
          std::vector<const Expr *> fields;
          for (size_t k : fitted)
            fields.push_back(&*in_[k]->files[f].name[p].field);
          part.field = fitExprAt(ns, where, "the file name field", fields);
        }
        entry.name.push_back(std::move(part));
      }
      // The other inputs (a field that is a literal there, `group_0` on 4
      // ranks): the format must give their names, for every rank that names
      // the file there, at a few loop indices.
      const uint32_t depth = std::min<uint32_t>(3, entry.loopDepthUsed());
      for (size_t k : literal) {
        const FileEntry &e = in_[k]->files[f];
        if (e.loopDepthUsed() > depth)
          refuseNames(where, f, shown);
        std::set<int64_t> users;
        ranksNaming(in_[k]->body, e.id, ns_[k], users);
        std::vector<int64_t> idx(depth, 0);
        for (;;) {
          for (int64_t r : users)
            if (entry.nameFor(r, ns_[k], idx) != e.nameFor(r, ns_[k], idx))
              refuseNames(where, f, shown);
          size_t d = 0;
          while (d < idx.size() && ++idx[d] == 3)
            idx[d++] = 0;
          if (d == idx.size())
            break;
        }
      }
      out.push_back(std::move(entry));
    }
    return out;
  }

  /// The ranks (up to 4096) of the calls that name file `id`.
  static void ranksNaming(const std::vector<Node> &nodes, int64_t id, int64_t n, std::set<int64_t> &out) {
    for (const Node &node : nodes) {
      if (node.isLoop()) {
        ranksNaming(node.loop().body, id, n, out);
        continue;
      }
      for (const Param &p : node.event().params) {
        if (!isFileParam(p.name))
          continue;
        for (const ElasticEntry &e : p.value.entries()) {
          const Expr *x = std::get_if<Expr>(&e.value);
          if (x && x->constantValue() == id)
            for (int64_t r = 0; r < std::min<int64_t>(n, 4096); ++r)
              if (out.size() < 4096 && e.ranks.contains(r) && node.ranks.contains(r))
                out.insert(r);
        }
      }
    }
  }

  /// The names of file f differ between inputs in a way no format explains.
  /// When they differ in one directory component only, that is a per-run
  /// directory (`/scratch/run4/out` vs `/scratch/run8/out`): say so, with
  /// the --path-map that maps them to one.
  [[noreturn]] void refuseNames(const std::string &where, size_t f, const std::vector<std::string> &shown) const {
    auto components = [](const std::string &s) {
      std::vector<std::string> parts;
      size_t start = 0;
      for (size_t slash = s.find('/'); slash != std::string::npos; slash = s.find('/', start)) {
        parts.push_back(s.substr(start, slash - start));
        start = slash + 1;
      }
      parts.push_back(s.substr(start));
      return parts;
    };
    std::vector<std::vector<std::string>> parts;
    for (const Trace *t : in_)
      parts.push_back(components(t->files[f].formatStr()));
    std::optional<size_t> differing;
    bool one = true;
    for (size_t k = 0; k < parts.size() && one; ++k) {
      if (parts[k].size() != parts.front().size()) {
        one = false;
        break;
      }
      for (size_t c = 0; c < parts[k].size(); ++c)
        if (parts[k][c] != parts.front()[c]) {
          if (differing && *differing != c)
            one = false;
          differing = c;
        }
    }
    if (one && differing && *differing + 1 < parts.front().size()) {
      std::string msg = "cannot extrapolate the file name of " + where +
                        ": the inputs name it in different directories, a "
                        "per-run directory that differs "
                        "between the runs:";
      std::string maps;
      for (size_t k = 0; k < in_.size(); ++k) {
        std::string dir;
        for (size_t c = 0; c <= *differing; ++c)
          dir += (c ? "/" : "") + parts[k][c];
        msg += "\n  N=" + std::to_string(ns_[k]) + ": " + dir;
        std::string common;
        for (size_t c = 0; c < *differing; ++c)
          common += parts[k][c] + "/";
        maps += " --path-map " + dir + "=" + common + "RUN";
      }
      std::string common;
      for (size_t c = 0; c < *differing; ++c)
        common += parts.front()[c] + "/";
      msg += "\n  name them alike, e.g." + maps + "\n  (and run the replay with --path-map " + common +
             "RUN=DIR to choose its directory)";
      throw ExtrapError(msg);
    }
    refuse(where, "the file name", shown, {"one name format at every rank count"});
  }

  static std::optional<int64_t> decimalValue(const std::string &text) {
    if (text.empty() || text.size() > 18 || (text.size() > 1 && text[0] == '0'))
      return std::nullopt;
    int64_t v = 0;
    for (char c : text) {
      if (c < '0' || c > '9')
        return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }

  // Info values are strings; a hint whose value is a decimal integer that
  // differs between inputs (cb_nodes = nranks/2) is fitted like any integer
  // and written back in decimal. Keys and other values must agree.
  std::map<std::string, std::string> fitStrings(const std::string &where, bool numeric, size_t i,
                                                std::vector<ObjectEntry> Trace::*table) const {
    const auto &ref = (in_.back()->*table)[i].strings;
    std::map<std::string, std::string> out;
    for (const Trace *t : in_) {
      const auto &s = (t->*table)[i].strings;
      bool sameKeys = s.size() == ref.size() && std::equal(s.begin(), s.end(), ref.begin(), [](const auto &a, const auto &b) {
                        return a.first == b.first;
                      });
      if (!sameKeys)
        differ(where, "different keys", {});
    }
    for (const auto &[key, value] : ref) {
      std::vector<std::string> shown;
      std::vector<int64_t> numbers;
      bool same = true;
      for (const Trace *t : in_) {
        const std::string &v = (t->*table)[i].strings.at(key);
        shown.push_back("\"" + v + "\"");
        same = same && v == value;
        if (auto d = decimalValue(v))
          numbers.push_back(*d);
      }
      if (same) {
        out[key] = value;
        continue;
      }
      if (!numeric || numbers.size() != in_.size())
        refuse(where, "the value of '" + key + "'", shown, {"identical strings", "decimal integers"});
      out[key] = std::to_string(fitInt(where, "the value of '" + key + "'", numbers));
    }
    return out;
  }

  // A field whose length changes with N (the q blocks of an indexed type
  // on a q x q grid, one per grid column): its length is fitted like any
  // integer, and its entries must be an arithmetic progression a + d*j at
  // every input (j the entry's index), a and d fitted like any value. nullopt
  // when the lengths agree (fitted entry by entry).
  std::optional<std::vector<Expr>> fitTableField(const std::string &where, size_t i, const std::string &name,
                                                 std::vector<ObjectEntry> Trace::*table) const {
    std::vector<int64_t> lengths;
    std::vector<Expr> firsts, steps;
    bool same = true;
    for (const Trace *t : in_) {
      auto it = (t->*table)[i].fields.find(name);
      if (it == (t->*table)[i].fields.end())
        differ(where, "different field '" + name + "'", {});
      lengths.push_back(int64_t(it->second.size()));
      same = same && lengths.back() == lengths.front();
    }
    if (same)
      return std::nullopt;
    std::vector<std::string> shown;
    for (const Trace *t : in_) {
      const std::vector<Expr> &v = (t->*table)[i].fields.at(name);
      std::string s;
      for (const Expr &e : v)
        s += (s.empty() ? "" : ", ") + e.str();
      shown.push_back("[" + s + "]");
      if (v.size() < 2)
        refuse(where, "field '" + name + "' (a table whose length changes)", shown,
               {"a length fitted like any integer and entries a + d*j (two entries or more at every input)"});
      const Expr d = v[1] - v[0];
      for (size_t j = 2; j < v.size(); ++j)
        if (v[j] != v[0] + d * Expr(int64_t(j)))
          refuse(where, "field '" + name + "' (a table whose length changes)", shown,
                 {"a length fitted like any integer and entries a + d*j (an arithmetic progression)"});
      firsts.push_back(v[0]);
      steps.push_back(d);
    }
    const int64_t length = fitInt(where, "the length of field '" + name + "'", lengths);
    if (length < 0 || length > (int64_t(1) << 20))
      throw ExtrapError("cannot extrapolate field '" + name + "' of " + where +
                        ": its length at N=" + std::to_string(targetN()) + " would be " + std::to_string(length));
    std::vector<const Expr *> a, d;
    for (size_t k = 0; k < firsts.size(); ++k) {
      a.push_back(&firsts[k]);
      d.push_back(&steps[k]);
    }
    const Expr first = fitExpr(where, "field '" + name + "'[0]", a);
    const Expr step = fitExpr(where, "field '" + name + "' (the step between entries)", d);
    std::vector<Expr> out;
    for (int64_t j = 0; j < length; ++j)
      out.push_back(first + step * Expr(j));
    return out;
  }

  std::vector<ObjectEntry> fitObjects(const char *kind, std::vector<ObjectEntry> Trace::*table) const {
    std::vector<ObjectEntry> out;
    const auto &refTable = in_.back()->*table;
    std::vector<std::string> counts;
    for (const Trace *t : in_)
      counts.push_back(std::to_string((t->*table).size()) + " entries");
    for (const Trace *t : in_)
      if ((t->*table).size() != refTable.size())
        differ(std::string("the ") + kind + " table", "different numbers of entries", counts);
    for (size_t i = 0; i < refTable.size(); ++i) {
      const ObjectEntry &ref = refTable[i];
      std::string where = std::string(kind) + " " + std::to_string(ref.id) + " (" + ref.kind + ")";
      ObjectEntry entry = ref;
      for (const Trace *t : in_) {
        const ObjectEntry &e = (t->*table)[i];
        if (e.id != ref.id || e.kind != ref.kind || e.name != ref.name || e.fields.size() != ref.fields.size())
          differ(where, "different definitions", {e.kind + " " + e.name, ref.kind + " " + ref.name});
      }
      entry.strings = fitStrings(where, table == &Trace::infos, i, table);
      // A named datatype's fields (its size and extent) are MPI's, the same
      // at every rank count: taken as they are, never fitted.
      if (table == &Trace::datatypes && ref.kind == "named") {
        for (const Trace *t : in_)
          if ((t->*table)[i].fields != ref.fields)
            differ(where, "different fields of a named datatype", {});
        out.push_back(std::move(entry));
        continue;
      }
      for (auto &[name, values] : entry.fields) {
        if (auto progression = fitTableField(where, i, name, table)) {
          values = std::move(*progression);
          continue;
        }
        for (size_t v = 0; v < values.size(); ++v) {
          std::vector<const Expr *> samples;
          for (const Trace *t : in_) {
            auto it = (t->*table)[i].fields.find(name);
            if (it == (t->*table)[i].fields.end() || it->second.size() != values.size())
              differ(where, "different field '" + name + "'", {});
            samples.push_back(&it->second[v]);
          }
          const std::string what =
              "field '" + name + "'" + (values.size() > 1 ? "[" + std::to_string(v) + "]" : std::string());
          values[v] = fitExpr(where, what, samples);
        }
      }
      out.push_back(std::move(entry));
    }
    return out;
  }

  std::vector<const Trace *> in_;
  std::vector<int64_t> ns_;
  std::set<int64_t> dimsGrids_; ///< ndims of MPI_Dims_create(nranks, ndims) calls every input made
  mutable std::vector<std::string> choices_; ///< what --prefer settled (metadata "extrap_choices")
  mutable int64_t targetOverride_ = 0;       ///< fitOnLargerInputs: fit for another rank count
  mutable std::string bias_;                 ///< fitOnLargerInputs: the family taken when models disagree

  std::set<int64_t> blockLengths_; ///< array lengths the floor/ceil values admit (ModelsDecomp.h)
  std::set<int64_t> recordedLengths_; ///< global sizes of subarray and darray types (ModelsGridBlock.h)
  /// The rank count models are evaluated for (the target, but for trial fits).
  int64_t targetN() const { return targetOverride_ ? targetOverride_ : options_.targetRanks; }
  /// Read events by path: "" when the result is computed from the file's
  /// extent, else why it cannot be extrapolated; absent: fitted as before.
  std::map<std::string, std::string> readResults_;
  std::set<std::string> computedReads_; ///< the reads whose result computeReadResults fills
  const ExtrapOptions &options_;
  size_t timingFits_ = 0;
  double worstTimingError_ = 0;
};

} // namespace

namespace {

// ------------------------------------------------------------ file identity
//
// The file tables of the inputs are matched by the events that use them, not
// by position: a small run can list its files in another order (a name that
// is a literal at 4 ranks, `group_0`, becomes the format `group_<rank/4>` at
// 8 and moves in the table). Walking the bodies in lock step, each constant
// file id of an input is paired with the reference's (the largest input) at
// the same parameter of the same call; the input's table is then renumbered
// to the reference's ids. Where the bodies differ the walk stops (the
// structural error comes later, from the fit itself).

using FileMap = std::map<int64_t, int64_t>;

bool pairFiles(const std::vector<Node> &in, const std::vector<Node> &ref, FileMap &map) {
  if (in.size() != ref.size())
    return true;
  for (size_t i = 0; i < in.size(); ++i) {
    const Node &a = in[i], &b = ref[i];
    if (a.isEvent() != b.isEvent())
      return true;
    if (a.isLoop()) {
      if (!pairFiles(a.loop().body, b.loop().body, map))
        return false;
      continue;
    }
    const Event &ea = a.event(), &eb = b.event();
    if (ea.op != eb.op || ea.params.size() != eb.params.size())
      continue;
    for (size_t p = 0; p < ea.params.size(); ++p) {
      if (!isFileParam(ea.params[p].name) || ea.params[p].name != eb.params[p].name)
        continue;
      const auto &xa = ea.params[p].value.entries(), &xb = eb.params[p].value.entries();
      if (xa.size() != xb.size())
        continue;
      for (size_t k = 0; k < xa.size(); ++k) {
        const Expr *ia = std::get_if<Expr>(&xa[k].value), *ib = std::get_if<Expr>(&xb[k].value);
        auto ca = ia ? ia->constantValue() : std::nullopt, cb = ib ? ib->constantValue() : std::nullopt;
        if (!ca || !cb)
          continue;
        auto [it, inserted] = map.emplace(*ca, *cb);
        if (!inserted && it->second != *cb)
          return false; // one file of the input used as two of the reference:
                        // no matching
      }
    }
  }
  return true;
}

void renumberFiles(std::vector<Node> &nodes, const FileMap &map) {
  for (Node &node : nodes) {
    if (node.isLoop()) {
      renumberFiles(node.loop().body, map);
      continue;
    }
    for (Param &p : node.event().params) {
      if (!isFileParam(p.name))
        continue;
      for (ElasticEntry &e : p.value.entries())
        if (const Expr *x = std::get_if<Expr>(&e.value))
          if (auto id = x->constantValue())
            if (auto it = map.find(*id); it != map.end())
              e.value = Expr(it->second);
    }
  }
}

bool onlyConstantFileIds(const std::vector<Node> &nodes) {
  for (const Node &node : nodes) {
    if (node.isLoop()) {
      if (!onlyConstantFileIds(node.loop().body))
        return false;
      continue;
    }
    for (const Param &p : node.event().params)
      if (isFileParam(p.name))
        for (const ElasticEntry &e : p.value.entries()) {
          const Expr *x = std::get_if<Expr>(&e.value);
          if (!x || !x->constantValue())
            return false;
        }
  }
  return true;
}

void alignFiles(std::vector<Trace> &inputs) {
  const Trace &ref = inputs.back();
  if (!onlyConstantFileIds(ref.body))
    return;
  for (size_t k = 0; k + 1 < inputs.size(); ++k) {
    Trace &t = inputs[k];
    FileMap map;
    if (t.files.size() != ref.files.size() || !onlyConstantFileIds(t.body) || !pairFiles(t.body, ref.body, map))
      continue;
    // Ids no call pairs keep their place among the unpaired ids of the
    // reference.
    std::set<int64_t> taken;
    bool oneToOne = true;
    for (const auto &[from, to] : map)
      oneToOne = oneToOne && taken.insert(to).second;
    if (!oneToOne)
      continue; // two files of this input used as one of the reference: left as they are
    std::vector<int64_t> freeIds;
    for (const FileEntry &f : ref.files)
      if (!taken.count(f.id))
        freeIds.push_back(f.id);
    size_t next = 0;
    std::vector<FileEntry> sorted = t.files;
    std::sort(sorted.begin(), sorted.end(), [](const FileEntry &a, const FileEntry &b) { return a.id < b.id; });
    for (const FileEntry &f : sorted)
      if (!map.count(f.id))
        map[f.id] = next < freeIds.size() ? freeIds[next++] : f.id;
    for (FileEntry &f : t.files)
      f.id = map.at(f.id);
    std::sort(t.files.begin(), t.files.end(), [](const FileEntry &a, const FileEntry &b) { return a.id < b.id; });
    renumberFiles(t.body, map);
  }
}

} // namespace

namespace {

std::string label(const std::vector<Trace> &inputs, const std::vector<std::string> &names, size_t k) {
  return names[k] + " (N=" + std::to_string(inputs[k].header.nranks) + ")";
}

/// Refuses inputs that cannot be extrapolated together, naming the input at
/// fault by its file: an extrapolated trace (docs/extrap.md's glob
/// `app.*.sio.json` also matches the output of an earlier run), or inputs
/// of different programs (the odd ones out against the program most inputs
/// share; each input with its program when no program has a majority).
void checkInputs(const std::vector<Trace> &inputs, const std::vector<std::string> &names) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto &meta = inputs[k].header.metadata;
    if (auto from = meta.find("extrapolated_from_ranks"); from != meta.end())
      throw ExtrapError(names[k] + " is an extrapolated trace (sio-extrap's output at N=" +
                        std::to_string(inputs[k].header.nranks) + ", from the traces at N=" + echoValue(from->second) +
                        "), not the trace of a run: give only traced runs as inputs (a glob such as "
                        "app.*.sio.json also matches an earlier output; write it under another name)");
  }
  std::map<std::string, size_t> count;
  for (const Trace &t : inputs)
    ++count[t.header.program];
  if (count.size() <= 1)
    return;
  const std::string *majority = nullptr;
  size_t best = 0;
  bool tie = false;
  for (const auto &[program, n] : count) {
    if (n > best) {
      best = n;
      majority = &program;
      tie = false;
    } else if (n == best) {
      tie = true;
    }
  }
  std::string msg = "inputs are not all the same program:";
  if (tie) {
    for (size_t k = 0; k < inputs.size(); ++k)
      msg += (k ? ", " : " ") + label(inputs, names, k) + " is '" + echoValue(inputs[k].header.program) + "'";
    throw ExtrapError(msg);
  }
  std::string others;
  bool first = true;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].header.program == *majority) {
      others += (others.empty() ? "" : ", ") + names[k];
      continue;
    }
    msg += (first ? " " : ", ") + label(inputs, names, k) + " is '" + echoValue(inputs[k].header.program) + "'";
    first = false;
  }
  throw ExtrapError(msg + ", while the others (" + others + ") are '" + echoValue(*majority) + "'");
}

} // namespace

void mapPaths(Trace &t, const std::vector<std::pair<std::string, std::string>> &maps) {
  for (FileEntry &f : t.files) {
    if (f.name.empty() || f.name.front().field)
      continue;
    std::string &text = f.name.front().text;
    const std::pair<std::string, std::string> *best = nullptr;
    for (const auto &m : maps)
      if (text.compare(0, m.first.size(), m.first) == 0 && (!best || m.first.size() > best->first.size()))
        best = &m;
    if (best)
      text = best->second + text.substr(best->first.size());
  }
}

// ------------------------------------------------------- one-iteration loops
// A loop that runs once at the target (96/N steps at N = 64: 1) has index 0
// in its only iteration. The runtime records that iteration's values as they
// are (offset 0, not 64*i0), so the extrapolated trace writes them the same
// way: the same values, and the form `sio-trace diff` compares.

namespace {

using namespace sio::trace;

Expr zeroLoopIndex(const Expr &e, uint32_t depth) {
  if (e.loopDepthUsed() <= depth)
    return e;
  Expr out;
  for (const auto &[monomial, coefficient] : e.terms()) {
    Monomial kept;
    Expr factor(coefficient);
    for (const auto &[atom, exponent] : monomial) {
      Expr a;
      if (atom.kind == Atom::Kind::Loop && atom.loopDepth == depth)
        a = Expr(0);
      else if (atom.kind == Atom::Kind::Mod && atom.lhs && atom.rhs)
        a = Expr::mod(zeroLoopIndex(*atom.lhs, depth), zeroLoopIndex(*atom.rhs, depth));
      else if (atom.kind == Atom::Kind::Table && atom.table && atom.rhs)
        a = Expr::table(*atom.table, zeroLoopIndex(*atom.rhs, depth));
      else {
        kept.emplace_back(atom, exponent);
        continue;
      }
      for (int32_t k = 0; k < exponent; ++k) // loop, mod and table atoms have positive exponents
        factor = factor * a;
    }
    out = out + Expr::ofMonomial(kept) * factor;
  }
  return out;
}

void zeroLoopIndex(ElasticValue &v, uint32_t depth) {
  for (ElasticEntry &e : v.entries())
    if (Expr *x = std::get_if<Expr>(&e.value))
      *x = zeroLoopIndex(*x, depth);
}

bool runsOnce(const ElasticValue &iterations, int64_t nranks) {
  return std::all_of(iterations.entries().begin(), iterations.entries().end(), [&](const ElasticEntry &e) {
    const Expr *x = std::get_if<Expr>(&e.value);
    return x && x->bindNRanks(nranks).constantValue() == 1;
  });
}

void zeroOneIterationIndices(std::vector<Node> &nodes, uint32_t depth, int64_t nranks,
                             const std::vector<uint32_t> &once) {
  for (Node &node : nodes) {
    if (node.isEvent()) {
      for (Param &p : node.event().params)
        for (uint32_t d : once)
          zeroLoopIndex(p.value, d);
      continue;
    }
    Loop &loop = node.loop();
    for (uint32_t d : once)
      zeroLoopIndex(loop.iterations, d);
    std::vector<uint32_t> inner = once;
    if (runsOnce(loop.iterations, nranks))
      inner.push_back(depth);
    zeroOneIterationIndices(loop.body, depth + 1, nranks, inner);
  }
}

} // namespace

Trace extrapolate(std::vector<Trace> inputs, const ExtrapOptions &options) {
  if (options.targetRanks <= 0)
    throw ExtrapError("the target rank count must be positive");
  // Inputs are checked as given, each named by its file: another program, an
  // extrapolation, a rank count twice.
  std::vector<std::string> names(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k)
    names[k] = k < options.inputNames.size() ? options.inputNames[k] : "input " + std::to_string(k + 1);
  checkInputs(inputs, names);
  std::vector<size_t> order(inputs.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return inputs[a].header.nranks < inputs[b].header.nranks; });
  for (size_t i = 1; i < order.size(); ++i)
    if (inputs[order[i]].header.nranks == inputs[order[i - 1]].header.nranks)
      throw ExtrapError("two inputs were taken at the same rank count (" +
                        std::to_string(inputs[order[i]].header.nranks) + "): " + names[order[i - 1]] + " and " +
                        names[order[i]] + "; each input must come from a different rank count");
  std::vector<Trace> sorted;
  sorted.reserve(inputs.size());
  for (size_t k : order)
    sorted.push_back(std::move(inputs[k]));
  inputs = std::move(sorted);
  if (inputs.size() < options.minInputs)
    throw ExtrapError("need traces at " + std::to_string(options.minInputs) + " different rank counts, got " +
                      std::to_string(inputs.size()) + " (the models are verified on the inputs they do not need)");
  for (Trace &t : inputs)
    mapPaths(t, options.pathMaps);
  alignFiles(inputs);
  std::vector<const Trace *> ptrs;
  for (const Trace &t : inputs)
    ptrs.push_back(&t);
  Trace out = Extrapolator(std::move(ptrs), options).run();
  zeroOneIterationIndices(out.body, 0, options.targetRanks, {});
  return out;
}

} // namespace sio::extrap
