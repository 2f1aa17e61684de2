#include "ModelsDecomp.h"

#include "sio/extrap/Extrapolate.h"
#include "sio/trace/Fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace sio::extrap {
using sio::trace::Rational;

std::optional<int64_t> integerRoot(int64_t n, int r) {
  if (n < 1 || (r != 2 && r != 3))
    return std::nullopt;
  auto q = int64_t(std::llround(r == 2 ? std::sqrt(double(n)) : std::cbrt(double(n))));
  for (int64_t c = std::max<int64_t>(1, q - 1); c <= q + 1; ++c)
    if ((r == 2 ? c * c : c * c * c) == n)
      return c;
  return std::nullopt;
}

namespace {

// A root model: coefficients of powers of q (the exponents listed).
struct RootModel {
  const char *name;
  std::vector<int> powers;
};

std::string powerText(int p) {
  switch (p) {
  case 0:
    return "";
  case 1:
    return "*q";
  case -1:
    return "/q";
  default:
    return p > 0 ? "*q^" + std::to_string(p) : "/q^" + std::to_string(-p);
  }
}

} // namespace

std::vector<FamilyFit> fitRootModels(const std::vector<int64_t> &ns, const std::vector<Rational> &values) {
  std::vector<FamilyFit> out;
  if (ns.size() < 3)
    return out;
  for (int r : {2, 3}) {
    std::vector<int64_t> qs;
    for (int64_t n : ns)
      if (auto q = integerRoot(n, r))
        qs.push_back(*q);
    if (qs.size() != ns.size())
      continue;
    // q^2 = N (sqrt) and q^3 = N (cbrt) are the scaling models' k*N: left out.
    std::vector<RootModel> models = {{"k*q", {1}}, {"k/q", {-1}}, {"k*q + b", {0, 1}}, {"k/q + b", {0, -1}}};
    if (r == 3)
      models.insert(models.end(), {{"k*q^2", {2}}, {"k/q^2", {-2}}, {"k*q^2 + b", {0, 2}}, {"k/q^2 + b", {0, -2}}});
    const std::string root = r == 2 ? "sqrt(N)" : "cbrt(N)";
    for (const RootModel &model : models) {
      // Determined by the samples and checked on at least one more.
      if (model.powers.size() + 1 > ns.size())
        continue;
      auto basis = [&](int64_t q, int p) {
        return p >= 0 ? Rational(int64_t(std::pow(double(q), p))) : Rational(1, int64_t(std::pow(double(q), -p)));
      };
      std::optional<sio::trace::LinearSolution> solution;
      try {
        std::vector<std::vector<Rational>> rows;
        for (int64_t q : qs) {
          std::vector<Rational> row;
          for (int p : model.powers)
            row.push_back(basis(q, p));
          rows.push_back(std::move(row));
        }
        solution = sio::trace::solveExact(rows, values);
      } catch (const std::exception &) {
        continue;
      }
      if (!solution || !solution->unique)
        continue;
      std::vector<Rational> x = solution->x;
      bool rootTerm = false;
      for (size_t i = 0; i < x.size(); ++i)
        rootTerm = rootTerm || (model.powers[i] != 0 && !x[i].isZero());
      if (!rootTerm)
        continue;
      std::vector<int> powers = model.powers;
      auto at = [r, x, powers, basis](int64_t n) -> std::optional<Rational> {
        auto q = integerRoot(n, r);
        if (!q)
          return std::nullopt;
        try {
          Rational v;
          for (size_t i = 0; i < x.size(); ++i)
            v += x[i] * basis(*q, powers[i]);
          return v.isInteger() ? std::optional<Rational>(v) : std::nullopt;
        } catch (const std::exception &) {
          return std::nullopt;
        }
      };
      std::string text;
      for (size_t i = 0; i < x.size(); ++i)
        if (!x[i].isZero())
          text += (text.empty() ? "" : " + ") + x[i].str() + powerText(powers[i]);
      out.push_back({"root", text + " (q = " + root + ")", at, [r](int64_t n) { return integerRoot(n, r).has_value(); },
                     r == 2 ? "a square" : "a cube"});
    }
  }
  return out;
}

namespace {

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

// The block functions of an array length n and a rank count N.
struct BlockFunction {
  const char *name;
  bool primary; ///< its values alone fix n to an interval
  int64_t (*f)(int64_t n, int64_t N);
  std::string (*show)(int64_t n);
};

const std::vector<BlockFunction> &blockFunctions() {
  static const std::vector<BlockFunction> fns = {
      {"floor", true, [](int64_t n, int64_t N) { return floorDiv(n, N); },
       [](int64_t n) { return "floor(" + std::to_string(n) + "/N)"; }},
      {"ceil", true, [](int64_t n, int64_t N) { return ceilDiv(n, N); },
       [](int64_t n) { return "ceil(" + std::to_string(n) + "/N)"; }},
      {"mod", false, [](int64_t n, int64_t N) { return n % N; },
       [](int64_t n) { return "(" + std::to_string(n) + " % N)"; }},
      {"rest", false, [](int64_t n, int64_t N) { return N - n % N; },
       [](int64_t n) { return "(N - " + std::to_string(n) + " % N)"; }},
      {"last", false, [](int64_t n, int64_t N) { return n - (N - 1) * ceilDiv(n, N); },
       [](int64_t n) { return "(" + std::to_string(n) + " - (N-1)*ceil(" + std::to_string(n) + "/N))"; }},
  };
  return fns;
}

// Positive divisors of g up to a bound (the element or record size of a
// block: the interval of n it leaves is what matters, not its factor).
std::vector<int64_t> smallDivisors(int64_t g) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min<int64_t>(g, 4096); ++d)
    if (g % d == 0)
      out.push_back(d);
  return out;
}

bool integral(const std::vector<Rational> &values, std::vector<int64_t> &out) {
  out.clear();
  for (const Rational &v : values) {
    if (!v.isInteger())
      return false;
    out.push_back(v.num());
  }
  return true;
}

bool varies(const std::vector<int64_t> &v) {
  return std::any_of(v.begin(), v.end(), [&](int64_t x) { return x != v.front(); });
}

// The lengths n with c*floor(n/N_k) (or ceil) = v_k at every input: one
// interval, at most min(N) wide.
std::optional<std::pair<int64_t, int64_t>> primaryInterval(const BlockFunction &fn, const std::vector<int64_t> &ns,
                                                           const std::vector<int64_t> &v, int64_t c) {
  int64_t lo = 1, hi = INT64_MAX / 4;
  for (size_t k = 0; k < ns.size(); ++k) {
    if (v[k] % c)
      return std::nullopt;
    const int64_t u = v[k] / c, n = ns[k];
    if (u < 0 || u > INT64_MAX / 8 / n)
      return std::nullopt;
    const bool floor = std::string(fn.name) == "floor";
    lo = std::max(lo, floor ? u * n : (u - 1) * n + 1);
    hi = std::min(hi, floor ? u * n + n - 1 : u * n);
  }
  if (lo > hi)
    return std::nullopt;
  return std::make_pair(lo, hi);
}

} // namespace

void blockLengths(const std::vector<int64_t> &ns, const std::vector<Rational> &values, std::set<int64_t> &out) {
  std::vector<int64_t> v;
  // A value a scaling model fits (960/N) divides evenly at every input: it
  // is no evidence of an array with a remainder.
  if (ns.size() < 3 || !integral(values, v) || !varies(v) || !fitAllScaling(ns, values).empty())
    return;
  int64_t g = 0;
  for (int64_t x : v)
    g = std::gcd(g, x);
  if (g <= 0)
    return;
  for (const BlockFunction &fn : blockFunctions())
    if (fn.primary)
      for (int64_t c : smallDivisors(g))
        if (auto in = primaryInterval(fn, ns, v, c); in && in->second - in->first < 64)
          for (int64_t n = in->first; n <= in->second; ++n)
            out.insert(n);
}

namespace {

using sio::trace::Expr;
using sio::trace::Node;
using sio::trace::Trace;

void collectValues(const std::vector<int64_t> &ns, const std::vector<const sio::trace::ElasticValue *> &vals,
                   std::set<int64_t> &out) {
  const size_t entries = vals.front()->entries().size();
  for (const auto *v : vals)
    if (v->entries().size() != entries) {
      // One group per rank: the runs' slopes and intercepts (n/N + 1 and
      // n/N elements) admit the lengths of a remainder distribution.
      std::vector<std::vector<RankRun>> runs;
      for (size_t k = 0; k < vals.size(); ++k) {
        auto r = affineRuns(*vals[k], ns[k]);
        if (!r || (k && r->size() != runs.front().size()))
          return;
        runs.push_back(std::move(*r));
      }
      for (size_t j = 0; j < runs.front().size(); ++j)
        for (bool slope : {true, false}) {
          std::set<sio::trace::Monomial> monos;
          for (const auto &r : runs)
            for (const auto &kv : slope ? r[j].slope : r[j].intercept)
              monos.insert(kv.first);
          for (const auto &m : monos) {
            std::vector<Rational> col;
            for (const auto &r : runs) {
              const auto &map = slope ? r[j].slope : r[j].intercept;
              auto it = map.find(m);
              col.push_back(it == map.end() ? Rational(0) : it->second);
            }
            blockLengths(ns, col, out);
          }
        }
      return;
    }
  for (size_t i = 0; i < entries; ++i) {
    std::map<sio::trace::Monomial, std::vector<Rational>> coefficients;
    bool exprs = true;
    for (size_t k = 0; k < vals.size() && exprs; ++k) {
      const Expr *e = std::get_if<Expr>(&vals[k]->entries()[i].value);
      if (!e) {
        exprs = false;
        break;
      }
      for (const auto &[m, c] : e->terms()) {
        auto &col = coefficients[m];
        col.resize(vals.size());
        col[k] = c;
      }
    }
    if (!exprs)
      continue;
    for (auto &[m, col] : coefficients) {
      col.resize(vals.size());
      blockLengths(ns, col, out);
    }
  }
}

void walk(const std::vector<int64_t> &ns, const std::vector<const std::vector<Node> *> &bodies,
          std::set<int64_t> &out) {
  const size_t size = bodies.front()->size();
  for (const auto *b : bodies)
    if (b->size() != size)
      return;
  for (size_t i = 0; i < size; ++i) {
    const Node &first = (*bodies.front())[i];
    for (const auto *b : bodies)
      if ((*b)[i].isLoop() != first.isLoop())
        return;
    if (first.isLoop()) {
      std::vector<const std::vector<Node> *> inner;
      std::vector<const sio::trace::ElasticValue *> its;
      for (const auto *b : bodies) {
        inner.push_back(&(*b)[i].loop().body);
        its.push_back(&(*b)[i].loop().iterations);
      }
      collectValues(ns, its, out);
      walk(ns, inner, out);
      continue;
    }
    const auto &params = first.event().params;
    for (size_t p = 0; p < params.size(); ++p) {
      std::vector<const sio::trace::ElasticValue *> vals;
      for (const auto *b : bodies) {
        const auto &e = (*b)[i].event();
        if (e.params.size() != params.size() || e.params[p].name != params[p].name)
          return;
        vals.push_back(&e.params[p].value);
      }
      collectValues(ns, vals, out);
    }
  }
}

} // namespace

std::set<int64_t> blockLengthsOf(const std::vector<const Trace *> &inputs) {
  std::set<int64_t> out;
  if (inputs.size() < 3)
    return out;
  std::vector<int64_t> ns;
  std::vector<const std::vector<Node> *> bodies;
  for (const Trace *t : inputs) {
    ns.push_back(t->header.nranks);
    bodies.push_back(&t->body);
  }
  walk(ns, bodies, out);
  return out;
}

std::vector<FamilyFit> fitBlockModels(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                                      const std::set<int64_t> &lengths, int64_t target) {
  std::vector<FamilyFit> out;
  std::vector<int64_t> v;
  // Where a scaling model fits, the block models agree with it wherever it
  // gives an integer (floor(963/N) is 960/N for every N > 3 dividing 960):
  // they would only turn its "not an integer at N" refusal into an
  // ambiguous one.
  if (ns.size() < 3 || !integral(values, v) || !varies(v) || !fitAllScaling(ns, values).empty())
    return out;
  int64_t g = 0;
  for (int64_t x : v)
    g = std::gcd(g, x);
  for (const BlockFunction &fn : blockFunctions()) {
    // (c, n) pairs that reproduce every sample.
    struct Fit {
      int64_t c, n, b;
    };
    std::vector<Fit> fits;
    if (fn.primary) {
      if (g <= 0)
        continue;
      for (int64_t c : smallDivisors(g))
        if (auto in = primaryInterval(fn, ns, v, c); in && in->second - in->first < 4096)
          for (int64_t n = in->first; n <= in->second; ++n)
            fits.push_back({c, n, 0});
    } else {
      // c*f + b: c and b from two inputs where f differs, checked on all
      // (n % N + 1 bounds the ranks of a remainder's offsets).
      for (int64_t n : lengths) {
        std::vector<int64_t> f;
        for (int64_t N : ns)
          f.push_back(fn.f(n, N));
        size_t j = 1;
        while (j < f.size() && f[j] == f[0])
          ++j;
        if (j == f.size() || (v[j] - v[0]) % (f[j] - f[0]))
          continue;
        const int64_t c = (v[j] - v[0]) / (f[j] - f[0]), b = v[0] - c * f[0];
        bool all = c != 0;
        for (size_t k = 0; k < ns.size() && all; ++k)
          all = c * f[k] + b == v[k];
        if (all)
          fits.push_back({c, n, b});
      }
    }
    // One model per value at the target: the n within a group need not be
    // told apart.
    std::map<int64_t, Fit> byTarget;
    for (const Fit &x : fits)
      byTarget.emplace(target >= 1 ? x.c * fn.f(x.n, target) + x.b : 0, x);
    for (const auto &[value, x] : byTarget) {
      auto f = fn.f;
      auto at = [x, f](int64_t N) -> std::optional<Rational> {
        if (N < 1)
          return std::nullopt;
        return Rational(x.c * f(x.n, N) + x.b);
      };
      out.push_back({"block",
                     (x.c == 1 ? std::string() : std::to_string(x.c) + "*") + fn.show(x.n) +
                         (x.b ? (x.b > 0 ? " + " : " - ") + std::to_string(std::abs(x.b)) : std::string()),
                     at, [](int64_t N) { return N >= 1; }, ""});
      out.back().length = x.n;
    }
  }
  return out;
}

std::optional<std::vector<RankRun>> affineRuns(const sio::trace::ElasticValue &value, int64_t nranks) {
  using Coefficients = std::map<sio::trace::Monomial, Rational>;
  if (nranks < 1 || nranks > 4096)
    return std::nullopt;
  // Each rank's value as coefficients of the loop-index monomials.
  std::vector<Coefficients> v(static_cast<size_t>(nranks));
  for (int64_t r = 0; r < nranks; ++r) {
    const sio::trace::Value *x = value.valueFor(r);
    const Expr *e = x ? std::get_if<Expr>(x) : nullptr;
    if (!e)
      return std::nullopt;
    try {
      for (const auto &[mono, c] : e->terms()) {
        // The loop indices stay symbolic; the rest (rank, nranks, and
        // rank grids such as (rank % 3)) is evaluated at this rank.
        sio::trace::Monomial loops, rest;
        for (const auto &[atom, power] : mono)
          (atom.kind == sio::trace::Atom::Kind::Loop ? loops : rest).emplace_back(atom, power);
        auto k = Expr::ofMonomial(rest, c).evaluateRational({r, nranks, {}});
        if (!k)
          return std::nullopt;
        v[size_t(r)][loops] += *k;
      }
    } catch (const std::exception &) {
      return std::nullopt;
    }
    std::erase_if(v[size_t(r)], [](const auto &kv) { return kv.second.isZero(); });
  }
  auto minus = [](const Coefficients &a, const Coefficients &b) {
    Coefficients d = a;
    for (const auto &[m, c] : b)
      d[m] -= c;
    std::erase_if(d, [](const auto &kv) { return kv.second.isZero(); });
    return d;
  };
  // From the last rank down: a rank where two lines meet (the kink of
  // rank*(n/N) + min(rank, n % N) at rank n % N) goes with the later run, so
  // the bounds are n % N for counts and offsets alike.
  std::vector<RankRun> runs;
  for (int64_t r = nranks; r > 0;) {
    RankRun run{r - 1, r, {}, v[size_t(r) - 1]};
    if (r >= 2) {
      const Coefficients slope = minus(v[size_t(r) - 1], v[size_t(r) - 2]);
      int64_t start = r - 2;
      while (start > 0 && minus(v[size_t(start)], v[size_t(start) - 1]) == slope)
        --start;
      Coefficients intercept = v[size_t(start)];
      for (const auto &[m, c] : slope)
        intercept[m] -= c * Rational(start);
      std::erase_if(intercept, [](const auto &kv) { return kv.second.isZero(); });
      run = {start, r, slope, intercept};
    }
    runs.insert(runs.begin(), run);
    r = run.start;
  }
  return runs;
}

} // namespace sio::extrap
