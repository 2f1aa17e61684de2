// Scalars and formulas: each coefficient of a value's polynomial fitted as
// a function of N (fitExprAt), with the fits a formula falls back on when a
// coefficient fits no model: the inputs whose formula has the largest
// input's shape (fitOnLargerInputs), grid coordinates and grid blocks
// (GridValues.cpp).
#include "Extrapolator.h"

#include <algorithm>

namespace sio::extrap::detail {

Expr Extrapolator::fitScalar(const std::string &where, const std::string &what, const std::vector<Rational> &values,
                             const std::vector<std::string> &shown) const {
  std::vector<std::string> tried;
  if (auto e = fitCoefficient(ns_, values, what + " of " + where, &tried))
    return *e;
  refuse(where, what, shown, tried);
}

int64_t Extrapolator::atTarget(const Expr &model, const std::string &where, const std::string &what) const {
  auto v = model.evaluate({0, options_.targetRanks, {}});
  if (!v)
    throw ExtrapError("cannot extrapolate " + what + " of " + where + ": its model " + model.str() +
                      " is not an integer at " + std::to_string(options_.targetRanks) + " ranks");
  return *v;
}

int64_t Extrapolator::fitInt(const std::string &where, const std::string &what,
                             const std::vector<int64_t> &values) const {
  std::vector<Rational> r(values.begin(), values.end());
  std::vector<std::string> shown;
  for (int64_t v : values)
    shown.push_back(std::to_string(v));
  return atTarget(fitScalar(where, what, r, shown), where, what);
}

// A formula: each coefficient of its polynomial is fitted as a function of N.
Expr Extrapolator::fitExpr(const std::string &where, const std::string &what, const std::vector<const Expr *> &values,
                           const std::vector<const RankList *> *ranks) const {
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

// At a small rank count two models can coincide (100*(rank % 4) is 100*rank
// on 4 ranks), and the trace holds the simpler one. Fit on the inputs whose
// formula has the shape of the largest input's, then accept the model only
// if it reproduces every other input's values exactly, rank by rank.
std::optional<Expr> Extrapolator::fitOnLargerInputs(const std::vector<const Expr *> &values,
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
    return atFewLoopIndices(depth, [&](const std::vector<int64_t> &idx) {
      for (int64_t r : rankSet)
        if (model.evaluate({r, ns_[k], idx}) != values[k]->evaluate({r, ns_[k], idx}))
          return false;
      return true;
    });
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

Expr Extrapolator::fitExprAt(const std::vector<int64_t> &ns, const std::string &where, const std::string &what,
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

Value Extrapolator::fitValue(const std::string &where, const std::string &what,
                             const std::vector<const Value *> &values,
                             const std::vector<const RankList *> *ranks) const {
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

} // namespace sio::extrap::detail
