// Nests found without markers (ScalaIOTrace's PRSDs over one flat RSD).
//
// A loop the detector found on line whose iterations all have the same
// structure is one flat RSD even when the program ran a nest: a time-step
// loop around a cell loop with no call in between gives n*m equal calls.
// When a value is not affine over the flat index k but is over a nest
// k = j0 + P1*(j1 + P2*j2) (affine within each block of P1 iterations with
// the same slope, the block starts affine again or nested once more), the
// loop is rewritten as that nest, smallest periods first. Depth at most 3.
// Only the call's own parameters decide the nest: results (`result`,
// `error`, the handle an open returns) are what the system answered, and a
// read that comes up short at the end of a file makes a step in them that
// is no loop.

#include "Folder.h"

#include <optional>
#include <vector>

namespace sio::rt::detail {

namespace {

/// Periods P1 (innermost), P2, ... of the nest all sequences follow, or
/// nullopt. `levels` is how many loops may still be added.
std::optional<std::vector<uint64_t>> nestPeriods(const std::vector<std::vector<Rational>> &seqs, uint64_t n,
                                                 int levels) {
  auto affine = [n](const std::vector<Rational> &y) {
    for (uint64_t k = 2; k < n; ++k)
      if (y[k] - y[k - 1] != y[1] - y[0])
        return false;
    return true;
  };
  if (std::all_of(seqs.begin(), seqs.end(), affine))
    return std::vector<uint64_t>{};
  if (levels == 0)
    return std::nullopt;
  for (uint64_t p = 2; p * 2 <= n; ++p) {
    if (n % p)
      continue;
    bool ok = true;
    for (const auto &y : seqs) {
      // The same slope in every block of p.
      Rational slope = y[1] - y[0];
      for (uint64_t q = 0; ok && q < n / p; ++q)
        for (uint64_t j = 1; ok && j < p; ++j)
          ok = y[q * p + j] - y[q * p + j - 1] == slope;
      if (!ok)
        break;
    }
    if (!ok)
      continue;
    std::vector<std::vector<Rational>> starts;
    for (const auto &y : seqs) {
      starts.emplace_back();
      for (uint64_t q = 0; q < n / p; ++q)
        starts.back().push_back(y[q * p]);
    }
    if (auto outer = nestPeriods(starts, n / p, levels - 1)) {
      outer->insert(outer->begin(), p);
      return outer;
    }
  }
  return std::nullopt;
}

/// Trip counts of the nest, innermost first: the periods, then what they
/// leave for the outermost loop.
std::vector<uint64_t> nestTrips(const std::vector<uint64_t> &periods, uint64_t n) {
  std::vector<uint64_t> trips = periods;
  uint64_t inner = 1;
  for (uint64_t p : periods)
    inner *= p;
  trips.push_back(n / inner);
  return trips;
}

/// The affine model of a sequence over the nest: c + sum_l a_l * j_l, with
/// j_0 the innermost index (relative loop index `base`), then base+1, ...;
/// nullopt when the sequence does not follow it.
std::optional<Expr> nestModel(const std::vector<Rational> &y, const std::vector<uint64_t> &trips, uint32_t base) {
  std::vector<Rational> slopes;
  uint64_t stride = 1;
  for (uint64_t count : trips) {
    slopes.push_back(count > 1 ? y[stride] - y[0] : Rational(0));
    stride *= count;
  }
  std::vector<uint64_t> j(trips.size(), 0);
  for (uint64_t k = 0; k < y.size(); ++k) {
    Rational v = y[0];
    for (size_t l = 0; l < trips.size(); ++l)
      v = v + slopes[l] * Rational(static_cast<int64_t>(j[l]));
    if (v != y[k])
      return std::nullopt;
    for (size_t l = 0; l < trips.size() && ++j[l] == trips[l]; ++l)
      j[l] = 0;
  }
  Expr model(y[0]);
  for (size_t l = 0; l < trips.size(); ++l)
    if (slopes[l] != Rational(0))
      model = model + Expr(slopes[l]) * Expr::loopIndex(base + static_cast<uint32_t>(l));
  return model;
}

/// A sequence that follows no model of the nest: a table over the flat
/// index, rebuilt from the nest's indices (j0 + P1*j1 + P1*P2*j2), with the
/// first value as the constant term as SequenceFitter::model does.
Expr nestTable(const std::vector<Rational> &y, const std::vector<uint64_t> &trips, uint32_t base) {
  Expr index;
  int64_t stride = 1;
  for (size_t l = 0; l < trips.size(); ++l) {
    index = index + Expr(stride) * Expr::loopIndex(base + static_cast<uint32_t>(l));
    stride *= static_cast<int64_t>(trips[l]);
  }
  int64_t scale = 1;
  for (const Rational &v : y)
    scale = std::lcm(scale, v.den());
  std::vector<int64_t> values;
  values.reserve(y.size());
  for (const Rational &v : y)
    values.push_back(*((v - y.front()) * Rational(scale)).asInteger());
  return Expr::table(std::move(values), index) * Expr(Rational(1, scale)) + Expr(y.front());
}

/// Per value slot of a body (visitSlots order): whether it is a result of
/// the call rather than one of its parameters.
void resultSlots(const std::vector<Node> &body, std::vector<bool> &out) {
  for (const Node &node : body) {
    if (node.isEvent()) {
      const Event &ev = node.event();
      const bool opens = ev.param("file") != nullptr;
      for (const Param &p : ev.params)
        out.push_back(p.name == "result" || p.name == "error" ||
                      (opens && (p.name == "fd" || p.name == "fh" || p.name == "stream" || p.name == "dir")));
    } else {
      out.push_back(false); // the trip count
      resultSlots(node.loop().body, out);
    }
  }
}

} // namespace

bool refoldNest(Loop &loop, Folder &folder) {
  const uint64_t n = folder.iterations;
  if (n < 4)
    return false;
  std::vector<bool> results;
  resultSlots(loop.body, results);
  if (results.size() != folder.values.size())
    return false;
  bool tabled = false;
  for (size_t s = 0; s < folder.values.size(); ++s) {
    const ValueFitter &v = folder.values[s];
    if (v.text())
      continue;
    if (!v.plain() || v.hasTables())
      return false;
    for (const auto &[m, f] : v.coefficients()) {
      if (f.count() != n)
        return false;
      tabled |= f.tabled() && !results[s];
    }
  }
  if (!tabled)
    return false;
  for (size_t s = 0; s < folder.values.size(); ++s)
    if (!results[s])
      for (const auto &[m, f] : folder.values[s].coefficients())
        if (f.tabled() && !f.mayNest(n))
          return false; // what nestPeriods would find, without decoding the tables
  auto samples = [](const SequenceFitter &f) { return f.samples(); };
  std::vector<Value> values; // the new value of each slot
  std::vector<uint64_t> trips;
  try {
    std::vector<std::vector<Rational>> seqs;
    for (size_t s = 0; s < folder.values.size(); ++s)
      if (!results[s])
        for (const auto &[m, f] : folder.values[s].coefficients())
          if (f.tabled())
            seqs.push_back(samples(f));
    // Fewest loops first: a nest of 4 x 3 also splits as 2 x 2 x 3.
    std::optional<std::vector<uint64_t>> periods;
    for (int levels = 1; levels <= 2 && !periods; ++levels)
      periods = nestPeriods(seqs, n, levels);
    if (!periods || periods->empty())
      return false;
    trips = nestTrips(*periods, n);
    // Each coefficient as a function of the nest's indices. A value at depth
    // d of the body had the loop's index as relative i<d>; the nest's indices
    // are i<d> (innermost) up to i<d + levels> (the old loop, outermost).
    for (const ValueFitter &fitter : folder.values) {
      if (fitter.text()) {
        values.emplace_back(*fitter.text());
        continue;
      }
      Expr sum;
      for (const auto &[m, f] : fitter.coefficients()) {
        std::vector<Rational> y = samples(f);
        std::optional<Expr> model = nestModel(y, trips, fitter.indexVar());
        // Only a result can miss the model: the parameters chose the nest.
        sum = sum + (model ? *model : nestTable(y, trips, fitter.indexVar())) * monomialExpr(m);
      }
      values.emplace_back(std::move(sum));
    }
  } catch (const std::exception &) { // overflow: keep the flat loop
    return false;
  }
  size_t slot = 0;
  auto setValue = [&](Value &v, uint32_t, DegenerateMask) { v = std::move(values[slot++]); };
  auto onEvent = [](Event &) {};
  visitSlots(loop.body, 0, 0, setValue, onEvent);
  // Innermost loop first, each wrapped by the next; the old loop is outermost.
  std::vector<Node> body = std::move(loop.body);
  for (size_t l = 0; l + 1 < trips.size(); ++l) {
    Loop nested;
    nested.iterations = ElasticValue(Value(Expr(static_cast<int64_t>(trips[l]))), RankList());
    nested.body = std::move(body);
    body = std::vector<Node>();
    body.push_back(Node{RankList(), std::move(nested)});
  }
  loop.body = std::move(body);
  loop.iterations = ElasticValue(Value(Expr(static_cast<int64_t>(trips.back()))), RankList());
  return true;
}

} // namespace sio::rt::detail
