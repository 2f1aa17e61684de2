// The models of one value sampled at the inputs' rank counts: every
// admissible model that reproduces the samples (scaling, grid, root and
// block models) is a candidate, and the value is extrapolated only when the
// candidates agree at the target or --prefer chooses (docs/extrap.md,
// Ambiguity); otherwise the refusal names the rank count that decides.
#include "Extrapolator.h"

#include "ModelsDecomp.h"

#include <algorithm>
#include <numeric>

namespace sio::extrap::detail {

std::vector<Extrapolator::Candidate> Extrapolator::candidates(const std::vector<int64_t> &ns,
                                                              const std::vector<Rational> &values,
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
    for (int d : {2, 3}) // fitGridBlocks, tried on the whole value after these
      if (dimsGrids_.count(d))
        tried->push_back("blocks of every MPI_Dims_create(N," + std::to_string(d) +
                         ") grid dimension, n/p + (c < n % p) or ceil(n/p), rank by rank");
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
/// 20, 24, 28, ... after 4, 8, 12, 16) where a and b differ, other than the
/// target itself: "add a trace at the rank count you asked for" helps no one.
int64_t Extrapolator::decidingRanks(const std::vector<int64_t> &ns, int64_t target,
                                    const std::function<bool(int64_t)> &differs) {
  auto decides = [&](int64_t n) { return n != target && differs(n); };
  int64_t step = 0;
  for (int64_t n : ns)
    step = std::gcd(step, n);
  const int64_t top = ns.back();
  for (int64_t n = top + step; step > 0 && n <= top + 256 * step; n += step)
    if (decides(n))
      return n;
  for (int64_t n = top + 1; n <= top + 4096; ++n)
    if (decides(n))
      return n;
  return target;
}

/// Index into `cands` of the model to use, or throws AmbiguityError.
/// `agree(i, j, n)` says whether candidates i and j give the same at n.
size_t Extrapolator::choose(const std::vector<int64_t> &ns, const std::vector<std::string> &families,
                            const std::vector<std::string> &names,
                            const std::function<bool(size_t, size_t, int64_t)> &agree,
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
std::optional<Expr> Extrapolator::fitCoefficient(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
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
      throw ExtrapError("cannot extrapolate " + subject + " to N=" + std::to_string(target) + ": it follows " + c.name +
                        " at every input (" + shown + "), and " + std::to_string(target) + " is not " + c.domain +
                        "; choose a target that is " + c.domain + " (" + ok + ", ...)");
    }
  // A root or block model is written as its value at the target: one that
  // gives no integer there (120/q at N = 49) cannot be written.
  for (const Candidate &c : cands)
    if (c.definedAt && !c.at(target))
      throw ExtrapError("cannot extrapolate " + subject + " to N=" + std::to_string(target) + ": it follows " + c.name +
                        " at every input (" + shown + "), which is not an integer at N=" + std::to_string(target));
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

} // namespace sio::extrap::detail
