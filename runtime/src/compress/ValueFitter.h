// One value slot (a parameter or an inner loop's trip count) over the
// iterations of a loop being folded: each polynomial coefficient fitted on
// its own by a SequenceFitter, with the record of which samples leave some
// coefficients free (DegenerateMask).
#pragma once

#include "ExprUtil.h"
#include "SequenceFitter.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace sio::rt::detail {

/// Bit r set: the loop index i<r> (relative) was always 0 in this sample,
/// because that loop ran once, so coefficients of monomials in it are free.
/// kNotRun instead: a loop around the value did not run in this sample (an
/// alternative of a choice run that the iteration did not take), so every
/// coefficient is free.
using DegenerateMask = uint64_t;
constexpr DegenerateMask kNotRun = DegenerateMask(1) << 63;

/// The mask of the body of a loop (trip count `count`) in a sample of mask `mask`.
inline DegenerateMask innerMask(DegenerateMask mask, const Value &count) {
  const Expr *n = std::get_if<Expr>(&count);
  std::optional<int64_t> c = n ? n->constantValue() : std::nullopt;
  if ((mask & kNotRun) || c == 0)
    return kNotRun;
  return ((mask << 1) | (c == 1 ? 1 : 0)) & ~kNotRun;
}

inline bool mentionsDegenerate(const Monomial &m, DegenerateMask mask) {
  if (mask & kNotRun)
    return true;
  for (const auto &[atom, exponent] : m)
    if (atom.kind == Atom::Kind::Loop && atom.loopDepth < 64 && (mask >> atom.loopDepth & 1))
      return true;
  return false;
}

/// One parameter (or inner loop count) over the iterations of the loop being
/// folded: each polynomial coefficient is fitted on its own, so nested loops
/// give e.g. `960*i1 + 64*i0 + 7` (relative indices) and `i1 + 1` counts.
class ValueFitter {
public:
  explicit ValueFitter(uint32_t indexVar) : indexVar_(indexVar) {}

  /// Tables over inner indices must be the same in every iteration: a table
  /// built for one inner trip count would be indexed out of its range in
  /// another. Iterations that differ there start a new run instead.
  bool accepts(const Value &v) const {
    if (isText(v))
      return true;
    std::set<Monomial> tables = tableMonomials(v);
    return sampled_ ? tables == tables_ : true;
  }

  void add(const Value &v, DegenerateMask mask) {
    if (!sampled_ && !isText(v))
      tables_ = tableMonomials(v);
    sampled_ = true;
    if (masks_.empty() || masks_.back().first != mask)
      masks_.emplace_back(mask, 0);
    if (isText(v)) {
      text_ = std::get<std::string>(v); // equal in every iteration: structure
      ++masks_.back().second;
      return;
    }
    const auto &terms = std::get<Expr>(v).terms();
    auto fit = coefficients_.begin();
    auto term = terms.begin();
    auto addTo = [mask](const Monomial &m, SequenceFitter &f, const Rational &y) {
      if (mentionsDegenerate(m, mask))
        f.addUnknown();
      else
        f.add(y);
    };
    while (fit != coefficients_.end() || term != terms.end()) {
      if (term == terms.end() || (fit != coefficients_.end() && fit->first < term->first)) {
        addTo(fit->first, fit->second, Rational(0));
        ++fit;
      } else if (fit == coefficients_.end() || term->first < fit->first) {
        auto inserted = coefficients_.emplace_hint(fit, term->first, fresh(term->first));
        addTo(term->first, inserted->second, term->second);
        ++term;
      } else {
        addTo(fit->first, fit->second, term->second);
        ++fit;
        ++term;
      }
    }
    ++masks_.back().second;
  }

  /// n samples in which the value's loop did not run (kNotRun): any value
  /// fits there. They extend the last run of masks rather than start one, so
  /// that a choice run's slots keep a short history: a coefficient first seen
  /// later then takes zeros or free samples there (fresh), both right.
  void addFree(uint64_t n) {
    for (auto &[monomial, fitter] : coefficients_)
      fitter.addUnknown(n);
    if (masks_.empty())
      masks_.emplace_back(kNotRun, 0);
    masks_.back().second += n;
  }

  /// n samples of the value 0 (a choice run's guard before its alternative
  /// was first taken), in O(coefficients).
  void addZeros(uint64_t n) {
    for (auto &[monomial, fitter] : coefficients_)
      fitter.addZeros(n);
    sampled_ = true;
    if (masks_.empty() || masks_.back().first != 0)
      masks_.emplace_back(0, 0);
    masks_.back().second += n;
  }

  /// Text slot: its text, equal in every iteration.
  const std::string *text() const { return text_ ? &*text_ : nullptr; }

  /// Every sample was taken with all inner loops running more than once (no
  /// free coefficients): the coefficient sequences are complete.
  bool plain() const {
    return std::all_of(masks_.begin(), masks_.end(), [](const auto &m) { return m.first == 0; });
  }
  bool hasTables() const { return !tables_.empty(); }
  const std::map<Monomial, SequenceFitter> &coefficients() const { return coefficients_; }
  uint32_t indexVar() const { return indexVar_; }

  /// The next integer sample when the model already predicts it: a constant
  /// or affine value with no other terms, after samples of mask `steady`
  /// only (0: every inner loop ran more than once; 1 for the calls of a
  /// choice run's alternative, whose guard ran once).
  bool predictNext(int64_t &next, int64_t &step, DegenerateMask steady = 0) const {
    if (text_ || masks_.empty() || masks_.back().first != steady || !tables_.empty())
      return false;
    if (coefficients_.empty()) { // zero so far
      next = step = 0;
      return true;
    }
    if (coefficients_.size() != 1 || !coefficients_.begin()->first.empty())
      return false;
    return coefficients_.begin()->second.predict(next, step);
  }

  /// The store of a plain integer slot that stopped fitting a line: its one
  /// coefficient (the constant term) is tabled with integer samples (after
  /// samples of mask `steady`, as predictNext).
  SequenceFitter *columnSlot(DegenerateMask steady = 0) {
    if (text_ || masks_.empty() || masks_.back().first != steady || !tables_.empty() || coefficients_.size() != 1 ||
        !coefficients_.begin()->first.empty())
      return nullptr;
    SequenceFitter &f = coefficients_.begin()->second;
    return f.columnar() ? &f : nullptr;
  }

  /// add() of an integer sample to columnSlot(), in O(1).
  void addColumn(SequenceFitter &f, int64_t v) {
    f.addColumn(v);
    ++masks_.back().second;
  }

  /// The one coefficient predictNext() reads, or null while the value is
  /// zero so far (and for text): what addPredicted() advances. Map nodes do
  /// not move, so the pointer holds until the next add().
  SequenceFitter *predictedLine() { return coefficients_.empty() ? nullptr : &coefficients_.begin()->second; }

  /// add() of the sample predictNext() gave (or of the text), n times
  /// over, in O(1); line is predictedLine().
  void addPredicted(SequenceFitter *line, uint64_t n) {
    if (line)
      line->addPredicted(n);
    masks_.back().second += n;
  }

  Value model() const {
    if (text_)
      return *text_;
    Expr index = Expr::loopIndex(indexVar_);
    Expr sum;
    for (const auto &[monomial, fitter] : coefficients_)
      sum = sum + fitter.model(index) * monomialExpr(monomial);
    return sum;
  }

  size_t bytes() const {
    size_t b = sizeof(*this) + (text_ ? text_->capacity() : 0) + masks_.capacity() * sizeof(masks_[0]);
    for (const auto &[monomial, fitter] : coefficients_)
      b += 64 + monomial.size() * sizeof(monomial[0]) + fitter.bytes();
    return b;
  }

private:
  static std::set<Monomial> tableMonomials(const Value &v) {
    std::set<Monomial> out;
    for (const auto &[m, c] : std::get<Expr>(v).terms())
      if (std::any_of(m.begin(), m.end(), [](const auto &a) { return a.first.kind == Atom::Kind::Table; }))
        out.insert(m);
    return out;
  }

  /// A coefficient first seen now was 0 (or free) in every earlier sample.
  SequenceFitter fresh(const Monomial &m) const {
    SequenceFitter f;
    for (const auto &[mask, count] : masks_) {
      if (mentionsDegenerate(m, mask))
        f.addUnknown(count);
      else
        f.addZeros(count);
    }
    return f;
  }

  uint32_t indexVar_;
  bool sampled_ = false; ///< add() or addZeros() was called (not only addFree())
  std::set<Monomial> tables_;
  std::optional<std::string> text_;
  std::map<Monomial, SequenceFitter> coefficients_;
  /// Run-length history of the samples' masks: constant size in regular loops.
  std::vector<std::pair<DegenerateMask, uint64_t>> masks_;
};

} // namespace sio::rt::detail
