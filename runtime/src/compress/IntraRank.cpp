#include "IntraRank.h"

#include "ExprUtil.h"
#include "Structure.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

namespace sio::rt {
namespace detail {

using namespace sio::trace;

// While a rank's trace is built, loop index atoms are *relative*: i0 is the
// innermost loop around the value, i1 the next one out, and so on. Wrapping a
// window of nodes into a new loop then never rewrites the values inside it;
// finish() renames them once to the absolute form of the trace (i0 outermost).

/// The samples of a coefficient that stopped fitting a line: a packed
/// column (the per-site store of values that follow no model, ~2 bytes a
/// random offset), or Rationals in the rare case of a non-integer sample;
/// and the last samples, for the retry on a sample (Frame::retryAt).
struct TableStore {
  static constexpr size_t kTail = 8;
  /// The integer samples less the first (model() takes the first out as a
  /// constant term), modulo 2^64: the column the trace holds, built once,
  /// not copied shifted at the end.
  ColumnBuilder column;
  int64_t first = 0;
  bool shiftOverflowed = false;    ///< some sample - first overflowed int64_t
  std::vector<Rational> rationals; ///< used instead of column once non-empty
  std::array<int64_t, kTail> tail{};
  static constexpr size_t kHead = 4;
  std::array<int64_t, kHead> head{}; ///< the first samples (SequenceFitter::mayNest)

  void push(const Rational &y) {
    if (rationals.empty() && y.den() == 1) {
      pushInt(y.num());
      return;
    }
    if (rationals.empty()) { // first non-integer: the column becomes Rationals
      rationals.reserve(column.size() + 1);
      ColumnBuilder(column).finish().forEach([&](int64_t d) { rationals.emplace_back(unshift(d)); });
      column = ColumnBuilder();
    }
    rationals.push_back(y);
  }
  void pushInt(int64_t v) {
    const size_t n = column.size();
    tail[n % kTail] = v;
    if (n < kHead)
      head[n] = v;
    if (n == 0)
      first = v;
    int64_t d;
    shiftOverflowed |= __builtin_sub_overflow(v, first, &d);
    column.push(int64_t(uint64_t(v) - uint64_t(first)));
  }
  /// A free sample (SequenceFitter::addUnknown): the last value again, which
  /// packs to nothing in a block of differences.
  void pushFiller() {
    const size_t n = size();
    if (!integral())
      rationals.push_back(rationals.back());
    else
      pushInt(n ? tail[(n - 1) % kTail] : 0);
  }
  int64_t unshift(int64_t d) const { return int64_t(uint64_t(d) + uint64_t(first)); }
  bool integral() const { return rationals.empty(); }
  size_t size() const { return integral() ? column.size() : rationals.size(); }
  /// The last kTail - 1 samples and `next` are equally spaced.
  bool tailFits(int64_t next) const {
    size_t n = column.size();
    if (!integral() || n < kTail - 1)
      return false;
    auto at = [&](size_t back) { return static_cast<WideInt>(tail[(n - back) % kTail]); }; // back = 1: last
    WideInt step = static_cast<WideInt>(next) - at(1);
    for (size_t back = 1; back + 1 < kTail; ++back)
      if (at(back) - at(back + 1) != step)
        return false;
    return true;
  }
  size_t bytes() const { return sizeof(*this) + column.heapBytes() + rationals.capacity() * sizeof(Rational); }
};

/// One coefficient over the iterations of a loop: y_k = y0 + step*(k - k0)
/// while that holds, an explicit table afterwards (then no model is looked
/// for again: samples are appended to the store). Constant memory while
/// affine. Some samples are unknown (the coefficient of i1 when that inner
/// loop ran once): they fit any model.
class SequenceFitter {
public:
  SequenceFitter() = default;
  SequenceFitter(const SequenceFitter &o) { *this = o; }
  SequenceFitter(SequenceFitter &&) noexcept = default;
  SequenceFitter &operator=(SequenceFitter &&) noexcept = default;
  SequenceFitter &operator=(const SequenceFitter &o) {
    if (this != &o) {
      count_ = o.count_;
      known_ = o.known_;
      integral_ = o.integral_;
      k0_ = o.k0_;
      y0_ = o.y0_;
      step_ = o.step_;
      tabled_ = o.tabled_;
      table_ = o.table_ ? std::make_unique<TableStore>(*o.table_) : nullptr;
    }
    return *this;
  }

  void add(const Rational &y) {
    const int64_t k = static_cast<int64_t>(count_);
    integral_ = integral_ && y.isInteger();
    if (tabled_) {
      table_->push(y);
    } else if (known_ == 0) {
      k0_ = k;
      y0_ = y;
      known_ = 1;
    } else if (known_ == 1) {
      try {
        step_ = (y - y0_) / Rational(k - k0_);
        known_ = 2;
      } catch (const std::exception &) { // overflow
        toTable();
        table_->push(y);
      }
    } else if (!fits(k, y)) {
      toTable();
      table_->push(y);
    }
    ++count_;
  }

  void addUnknown(uint64_t n = 1) {
    if (tabled_)
      for (uint64_t k = 0; k < n; ++k)
        table_->pushFiller();
    count_ += n;
  }

  /// Tabled with integer samples only: the store takes integers as they come.
  bool columnar() const { return tabled_ && table_->integral(); }
  const TableStore *table() const { return tabled_ ? table_.get() : nullptr; }
  /// add() of an integer sample when columnar().
  void addColumn(int64_t v) {
    table_->pushInt(v);
    ++count_;
  }

  /// n zero samples in O(1) unless they break the affine model.
  void addZeros(uint64_t n) {
    if (n <= 2 || tabled_) {
      for (uint64_t k = 0; k < n; ++k)
        add(Rational(0));
      return;
    }
    SequenceFitter saved = *this;
    add(Rational(0)); // a line with two zeros is zero between them
    count_ += n - 2;
    add(Rational(0));
    if (tabled_) {
      *this = std::move(saved);
      for (uint64_t k = 0; k < n; ++k)
        add(Rational(0));
    }
  }

  Expr model(const Expr &index) const {
    if (!tabled_) {
      if (known_ < 2)
        return Expr(known_ ? y0_ : Rational(0));
      return Expr(y0_ - step_ * Rational(k0_)) + Expr(step_) * index;
    }
    // The first value is taken out as a constant term, so that tables that
    // differ between ranks only by a rank term (`table[i0] + c*rank`) are the
    // same table on every rank and the merge fits the constant to rank.
    if (table_->integral()) {
      // The column moved out (model() is called once, when the loop is
      // materialized and its folder dropped), already shifted.
      IntColumn shifted = std::move(table_->column).finish();
      if (!table_->shiftOverflowed)
        return Expr::table(std::move(shifted), index) + Expr(table_->first);
      ColumnBuilder values; // keep the values as they are
      shifted.forEach([&](int64_t d) { values.push(table_->unshift(d)); });
      shifted = IntColumn();
      return Expr::table(std::move(values).finish(), index);
    }
    // Tables hold integers: scale by the common denominator (1 in practice,
    // since affine fits of integers at consecutive indices are integral).
    int64_t scale = 1;
    for (const Rational &v : table_->rationals)
      scale = std::lcm(scale, v.den());
    std::vector<int64_t> values;
    values.reserve(table_->rationals.size());
    for (const Rational &v : table_->rationals)
      values.push_back(*((v - table_->rationals.front()) * Rational(scale)).asInteger());
    return Expr::table(std::move(values), index) * Expr(Rational(1, scale)) + Expr(table_->rationals.front());
  }

  size_t bytes() const { return sizeof(*this) + (table_ ? table_->bytes() : 0); }

  /// The next sample and the step after it, when the line is known and both
  /// are integers (the steady state of an affine parameter).
  bool predict(int64_t &next, int64_t &step) const {
    if (tabled_ || known_ != 2)
      return false;
    try {
      std::optional<int64_t> y = at(static_cast<int64_t>(count_)).asInteger(), d = step_.asInteger();
      if (!y || !d)
        return false;
      next = *y;
      step = *d;
      return true;
    } catch (const std::exception &) { // overflow
      return false;
    }
  }

  /// add() of the sample predict() gave: it fits the line by construction.
  void addPredicted(uint64_t n) { count_ += n; }

  bool tabled() const { return tabled_; }
  uint64_t count() const { return count_; }

  /// False when the samples cannot follow a nest of loops (refoldNest,
  /// nestPeriods): an innermost period p >= 2 that divides `n` makes the
  /// first block (p >= 3) or the second (p == 2) step by y1 - y0. Read from
  /// the table's first samples, so that a random table (the store) is never
  /// decoded for it; true when it cannot tell.
  bool mayNest(uint64_t n) const {
    if (!tabled_ || !table_->integral() || table_->size() < TableStore::kHead)
      return true;
    const auto &y = table_->head;
    const WideInt step = static_cast<WideInt>(y[1]) - y[0];
    return static_cast<WideInt>(y[2]) - y[1] == step || (n % 2 == 0 && static_cast<WideInt>(y[3]) - y[2] == step);
  }
  /// Sample k (k < count()); unknown samples read as 0.
  /// Every sample, in order (unknown samples read as 0).
  std::vector<Rational> samples() const {
    std::vector<Rational> y;
    y.reserve(count_);
    if (tabled_ && table_->integral()) {
      ColumnBuilder(table_->column).finish().forEach([&](int64_t d) { y.emplace_back(table_->unshift(d)); });
    } else if (tabled_) {
      y = table_->rationals;
    } else {
      for (uint64_t k = 0; k < count_; ++k)
        y.push_back(at(static_cast<int64_t>(k)));
    }
    return y;
  }

private:
  Rational at(int64_t k) const { return known_ < 2 ? (known_ ? y0_ : Rational(0)) : y0_ + step_ * Rational(k - k0_); }

  bool fits(int64_t k, const Rational &y) const {
    // Integer lines and samples (the common case) in 128 bits, without
    // Rational arithmetic; a product past 64 bits takes the Rational path,
    // which refuses it as before.
    if (y0_.isInteger() && step_.isInteger() && y.isInteger()) {
      const WideInt product = static_cast<WideInt>(step_.num()) * (static_cast<WideInt>(k) - k0_);
      if (product >= INT64_MIN && product <= INT64_MAX)
        return static_cast<WideInt>(y0_.num()) + product == static_cast<WideInt>(y.num());
    }
    try {
      return at(k) == y;
    } catch (const std::exception &) {
      return false;
    }
  }

  void toTable() {
    tabled_ = true;
    table_ = std::make_unique<TableStore>();
    for (uint64_t k = 0; k < count_; ++k) {
      Rational y = at(static_cast<int64_t>(k));
      // Known samples are on the line; with integers only, a fraction is an
      // unknown sample between them (a choice run's free samples), and any
      // integer does there: keep the store integral.
      if (integral_ && !y.isInteger())
        y = Rational(y.num() / y.den());
      table_->push(y);
    }
  }

  uint64_t count_ = 0;
  bool integral_ = true; ///< every known sample was an integer
  int known_ = 0;        ///< known samples seen, up to 2 (enough to fix the line)
  int64_t k0_ = 0;
  Rational y0_, step_;
  bool tabled_ = false;
  std::unique_ptr<TableStore> table_; ///< once tabled
};

/// Bit r set: the loop index i<r> (relative) was always 0 in this sample,
/// because that loop ran once, so coefficients of monomials in it are free.
/// kNotRun instead: a loop around the value did not run in this sample (an
/// alternative of a choice run that the iteration did not take), so every
/// coefficient is free.
using DegenerateMask = uint64_t;
constexpr DegenerateMask kNotRun = DegenerateMask(1) << 63;

/// The mask of the body of a loop (trip count `count`) in a sample of mask `mask`.
DegenerateMask innerMask(DegenerateMask mask, const Value &count) {
  const Expr *n = std::get_if<Expr>(&count);
  std::optional<int64_t> c = n ? n->constantValue() : std::nullopt;
  if ((mask & kNotRun) || c == 0)
    return kNotRun;
  return ((mask << 1) | (c == 1 ? 1 : 0)) & ~kNotRun;
}

bool mentionsDegenerate(const Monomial &m, DegenerateMask mask) {
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

/// A loop node being folded: its body (the first iteration, as template) and
/// one fitter per value slot of the body, in traversal order.
struct Folder {
  std::vector<ValueFitter> values;
  std::vector<uint64_t> bodyHashes;
  uint64_t iterations = 0;
  /// Scratch of sampleIteration, kept to avoid two allocations per iteration.
  std::vector<std::pair<Value *, DegenerateMask>> scratchValues;
  std::vector<Event *> scratchEvents;
};

namespace {

/// Visits every value slot of a body in a fixed order with its nesting (the
/// relative index of the loop that owns the body), and every event.
template <typename OnValue, typename OnEvent>
void visitSlots(std::vector<Node> &body, uint32_t nesting, DegenerateMask mask, OnValue &onValue,
                OnEvent &onEvent) {
  for (Node &node : body) {
    if (node.isEvent()) {
      onEvent(node.event());
      for (Param &p : node.event().params)
        onValue(soleValue(p.value), nesting, mask);
    } else {
      Value &count = soleValue(node.loop().iterations);
      onValue(count, nesting, mask);
      visitSlots(node.loop().body, nesting + 1, innerMask(mask, count), onValue, onEvent);
    }
  }
}

std::unique_ptr<Folder> startFolder(std::vector<Node> &body, std::vector<uint64_t> bodyHashes) {
  auto folder = std::make_unique<Folder>();
  folder->bodyHashes = std::move(bodyHashes);
  auto onValue = [&](Value &v, uint32_t nesting, DegenerateMask mask) {
    folder->values.emplace_back(nesting);
    folder->values.back().add(v, mask);
  };
  auto onEvent = [](Event &) {};
  visitSlots(body, 0, 0, onValue, onEvent);
  folder->iterations = 1;
  return folder;
}

/// Where a body's slots are in its folder: from `firstSlot` on, the body at
/// `nesting` under loops of mask `mask` (the whole body of a loop: 0, 0 and
/// 0; an alternative of a choice run: under its guard, which ran once).
struct SlotRange {
  size_t firstSlot = 0;
  uint32_t nesting = 0;
  DegenerateMask mask = 0;
};

/// Whether an iteration of the template's structure can join the folder.
bool accepts(Folder &folder, std::vector<Node> &iteration, SlotRange at = {}) {
  size_t slot = at.firstSlot;
  bool ok = true;
  auto check = [&](Value &v, uint32_t, DegenerateMask) { ok = ok && folder.values[slot++].accepts(v); };
  auto onEvent = [](Event &) {};
  visitSlots(iteration, at.nesting, at.mask, check, onEvent);
  return ok;
}

/// Adds the values of `iteration` (the template's structure) to the folder's
/// slots from `at` on, and merges its timing into the template's events.
void sampleSlots(Folder &folder, std::vector<Node> &templ, std::vector<Node> &iteration, SlotRange at) {
  auto &values = folder.scratchValues;
  auto &events = folder.scratchEvents;
  values.clear();
  events.clear();
  auto collectValue = [&](Value &v, uint32_t, DegenerateMask mask) { values.emplace_back(&v, mask); };
  auto collectEvent = [&](Event &e) { events.push_back(&e); };
  visitSlots(iteration, at.nesting, at.mask, collectValue, collectEvent);
  size_t k = 0, eventIndex = 0;
  auto addValue = [&](Value &, uint32_t, DegenerateMask) {
    folder.values[at.firstSlot + k].add(*values[k].first, values[k].second);
    ++k;
  };
  auto mergeTiming = [&](Event &e) {
    e.compute.merge(events[eventIndex]->compute);
    e.duration.merge(events[eventIndex]->duration);
    ++eventIndex;
  };
  visitSlots(templ, at.nesting, at.mask, addValue, mergeTiming);
}

/// Adds one more iteration (same structure as the template) to a folder; the
/// iteration's timing merges into the template's events.
void sampleIteration(Folder &folder, std::vector<Node> &templ, std::vector<Node> &iteration) {
  sampleSlots(folder, templ, iteration, {});
  ++folder.iterations;
}

// ---- nests found without markers (ScalaIOTrace's PRSDs over one flat RSD) ----
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

/// Rewrites a marker-less loop whose parameters are tables over the flat
/// index as the nest they follow; false (nothing changed) when there is none.
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

/// Writes the fitted models into the template; the loop is final afterwards.
void materialize(Loop &loop, Folder &folder) {
  if (loop.id == 0 && refoldNest(loop, folder))
    return;
  size_t slot = 0;
  auto setValue = [&](Value &v, uint32_t, DegenerateMask) { v = folder.values[slot++].model(); };
  auto onEvent = [](Event &) {};
  visitSlots(loop.body, 0, 0, setValue, onEvent);
  soleValue(loop.iterations) = Expr(static_cast<int64_t>(folder.iterations));
}

size_t valueBytes(const Value &v) {
  if (isText(v))
    return sizeof(Value) + std::get<std::string>(v).capacity();
  size_t b = sizeof(Value);
  for (const auto &[monomial, c] : std::get<Expr>(v).terms()) {
    b += 64 + monomial.size() * sizeof(monomial[0]);
    for (const auto &[atom, e] : monomial)
      if (atom.table)
        b += sizeof(IntColumn) + atom.table->heapBytes();
  }
  return b;
}

size_t nodeBytes(const Node &node) {
  size_t b = sizeof(Node);
  if (node.isEvent()) {
    const Event &e = node.event();
    b += e.op.capacity() + e.params.capacity() * sizeof(Param);
    for (const Param &p : e.params)
      b += p.name.capacity() + valueBytes(soleValue(p.value));
  } else {
    b += valueBytes(soleValue(node.loop().iterations));
    for (const Node &n : node.loop().body)
      b += nodeBytes(n);
  }
  return b;
}

} // namespace

/// A sequence of nodes under construction, with on-line repetition detection.
struct Sequence {
  std::vector<Node> nodes;
  std::vector<uint64_t> hashes;
  std::vector<std::unique_ptr<Folder>> open; // marker-less loops that may still grow

  bool empty() const { return nodes.empty(); }

  void append(Node node, uint64_t hash, const CompressorOptions &opts) {
    nodes.push_back(std::move(node));
    hashes.push_back(hash);
    open.emplace_back();
    if (!opts.detectRepetition)
      return;
    // A fold makes a new last node, which may complete a longer pattern (PRSD).
    while (tryExtend(opts.maxWindow) || tryFold(opts.maxWindow)) {
    }
  }

  void materializeAt(size_t k) {
    if (open[k]) {
      materialize(nodes[k].loop(), *open[k]);
      open[k].reset();
      hashes[k] = structureHash(nodes[k]); // a refolded nest has another structure
    }
  }

  /// Closes every open loop and hands the nodes over.
  std::vector<Node> take() {
    materializeAll();
    std::vector<Node> out = std::move(nodes);
    clear();
    return out;
  }

  void materializeAll() {
    for (size_t k = 0; k < nodes.size(); ++k)
      materializeAt(k);
  }

  void clear() {
    nodes.clear();
    hashes.clear();
    open.clear();
  }

  size_t bytes() const {
    size_t b = sizeof(*this) + hashes.capacity() * sizeof(uint64_t) + open.capacity() * sizeof(void *);
    for (const Node &n : nodes)
      b += nodeBytes(n);
    for (const auto &f : open)
      if (f) {
        b += sizeof(Folder) + f->bodyHashes.capacity() * sizeof(uint64_t);
        for (const ValueFitter &v : f->values)
          b += v.bytes();
      }
    return b;
  }

  /// Whether appending the body of the open loop that ends the sequence,
  /// one call at a time, would fold nothing until its last call, which
  /// extends that loop by one iteration: what the steady-state path of a
  /// marker-less loop assumes (FastPath::open). The sequence is a fixpoint of
  /// append() (nothing folds), so only the states with part of an iteration
  /// appended are looked at, on hashes alone: any other candidate of
  /// tryExtend or tryFold whose hashes match refuses, even one whose
  /// structure would then differ.
  bool appendsOnlyExtendLast(size_t maxWindow) const {
    const size_t n = nodes.size();
    if (n == 0 || !open[n - 1])
      return false;
    const std::vector<uint64_t> &body = open[n - 1]->bodyHashes;
    const size_t w = body.size();
    if (w == 0 || w > maxWindow)
      return false;
    // No candidate reaches further back than 2 * maxWindow nodes.
    const size_t lo = n - std::min(n, 2 * maxWindow);
    std::vector<uint64_t> h(hashes.begin() + static_cast<std::ptrdiff_t>(lo), hashes.end());
    auto hashAt = [&](size_t k) { return h.begin() + static_cast<std::ptrdiff_t>(k - lo); };
    for (size_t m = 1; m <= w; ++m) {
      h.push_back(body[m - 1]);
      const size_t size = n + m;
      for (size_t ww = 1; ww <= maxWindow && ww < size; ++ww) { // tryExtend
        const size_t at = size - 1 - ww;
        if (at >= n || !open[at] || nodes[at].loop().body.size() != ww ||
            !std::equal(hashAt(at + 1), h.end(), open[at]->bodyHashes.begin(), open[at]->bodyHashes.end()))
          continue;
        return m == w && at == n - 1; // the first candidate: the loop itself, complete
      }
      for (size_t ww = 1; ww <= maxWindow && 2 * ww <= size; ++ww) { // tryFold
        const size_t first = size - 2 * ww, second = size - ww;
        if (std::equal(hashAt(first), hashAt(second), hashAt(second)))
          return false;
      }
    }
    return false; // not reached: at m == w the loop itself is a candidate
  }

private:
  /// The last w nodes repeat the body of the open loop right before them.
  bool tryExtend(size_t maxWindow) {
    const size_t n = nodes.size();
    for (size_t w = 1; w <= maxWindow && w < n; ++w) {
      const size_t at = n - 1 - w;
      if (!open[at] || nodes[at].loop().body.size() != w)
        continue;
      if (!std::equal(hashes.begin() + at + 1, hashes.end(), open[at]->bodyHashes.begin()))
        continue;
      std::span<const Node> tail(nodes.data() + at + 1, w);
      if (!sameStructure(std::span<const Node>(nodes[at].loop().body), tail))
        continue;
      for (size_t k = at + 1; k < n; ++k)
        materializeAt(k);
      if (!sameAfterClosing(open[at]->bodyHashes, at + 1) ||
          !sameStructure(std::span<const Node>(nodes[at].loop().body), tail))
        continue;
      std::vector<Node> iteration(std::make_move_iterator(nodes.begin() + at + 1),
                                  std::make_move_iterator(nodes.end()));
      if (!accepts(*open[at], iteration)) {
        std::move(iteration.begin(), iteration.end(), nodes.begin() + at + 1);
        continue;
      }
      sampleIteration(*open[at], nodes[at].loop().body, iteration);
      truncate(at + 1);
      return true;
    }
    return false;
  }

  /// The last w nodes repeat the w nodes before them: fold both into a loop.
  bool tryFold(size_t maxWindow) {
    const size_t n = nodes.size();
    for (size_t w = 1; w <= maxWindow && 2 * w <= n; ++w) {
      const size_t first = n - 2 * w, second = n - w;
      if (hashes[n - 1] != hashes[second - 1])
        continue;
      if (!std::equal(hashes.begin() + first, hashes.begin() + second, hashes.begin() + second))
        continue;
      if (!sameStructure(std::span<const Node>(nodes.data() + first, w),
                         std::span<const Node>(nodes.data() + second, w)))
        continue;
      for (size_t k = first; k < n; ++k)
        materializeAt(k);
      if (!sameAfterClosing(std::span<const uint64_t>(hashes.data() + first, w), second) ||
          !sameStructure(std::span<const Node>(nodes.data() + first, w),
                         std::span<const Node>(nodes.data() + second, w)))
        continue;
      std::vector<uint64_t> bodyHashes(hashes.begin() + first, hashes.begin() + second);
      Loop loop;
      loop.body.assign(std::make_move_iterator(nodes.begin() + first),
                       std::make_move_iterator(nodes.begin() + second));
      std::vector<Node> iteration(std::make_move_iterator(nodes.begin() + second),
                                  std::make_move_iterator(nodes.end()));
      uint64_t hash = loopHash(0, bodyHashes);
      auto folder = startFolder(loop.body, std::move(bodyHashes));
      if (!accepts(*folder, iteration)) {
        std::move(loop.body.begin(), loop.body.end(), nodes.begin() + first);
        std::move(iteration.begin(), iteration.end(), nodes.begin() + second);
        continue;
      }
      loop.iterations = ElasticValue(Value(Expr(2)), RankList());
      sampleIteration(*folder, loop.body, iteration);
      truncate(first);
      nodes.push_back(Node{RankList(), std::move(loop)});
      hashes.push_back(hash);
      open.push_back(std::move(folder));
      return true;
    }
    return false;
  }

  /// Closing open loops may refold one into a nest and not its copy (their
  /// values differ): the nodes from `from` on must still match `expected`.
  bool sameAfterClosing(std::span<const uint64_t> expected, size_t from) const {
    return std::equal(expected.begin(), expected.end(), hashes.begin() + static_cast<std::ptrdiff_t>(from),
                      hashes.end());
  }

  void truncate(size_t size) {
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(size), nodes.end());
    hashes.resize(size);
    open.resize(size);
  }
};

/// The steady state of a loop whose body is events only (a marker loop's
/// run, or the marker-less loop the frame's iteration ends with): what the
/// next iteration's calls will be, so that a call that matches is only
/// counted (RawEvent path). The pointers are into the loop's body and its
/// folder, which do not change while the path is armed; any other change to
/// the frame disarms it first (CompressorState::settle).
///
/// Cost per call is what makes it fast: a constant or text slot is counted
/// in its fitter only when the path disarms (`uncounted` iterations at once),
/// so an iteration touches only the slots that move (`moving`: affine ones
/// advance their prediction, store slots append the value).
struct FastPath {
  struct Slot {
    ValueFitter *fitter;
    const std::string *name;
    const char *nameSeen;    ///< an address that holds *name (see sameName)
    const std::string *text; ///< text slot: the text; else integer
    int64_t next, step;      ///< column slot: next is the value matched
    SequenceFitter *line = nullptr;   ///< predicted slot: its fitter's predictedLine()
    SequenceFitter *column = nullptr; ///< a store slot: any integer, appended
  };
  struct Call {
    Event *templ;
    size_t firstSlot;
    const char *opSeen; ///< an address that holds templ->op (see sameName)
  };
  bool armed = false;
  /// Armed on the open marker-less loop that ends the frame's iteration
  /// (Sequence::appendsOnlyExtendLast) rather than on the frame's run: an
  /// iteration commits as its last call matches, not at an iter marker.
  bool open = false;
  Folder *folder = nullptr; ///< the loop's: the run's, or the open loop's
  std::vector<Call> calls;
  std::vector<Slot> slots;
  std::vector<size_t> moving;                         ///< the slots an iteration changes: affine and store slots
  size_t matched = 0;                                 ///< calls of the current iteration matched so far
  std::vector<std::pair<uint64_t, uint64_t>> timings; ///< their compute, duration
  uint64_t uncounted = 0; ///< committed iterations not yet added to the predicted slots' fitters
};

/// The steady state of a choice run (RawEvent path): the next iteration's
/// calls are matched against every alternative at once (alternatives may
/// share their first calls); at the iteration's end the one alternative
/// matched in full is committed as sampleChoice would, without an Event.
/// Armed when every guard's trip count is predicted (a line) or stored (a
/// column), for the alternatives whose calls' integer slots all are too
/// (an alternative taken once so far, or holding a loop, is left to the
/// general path). Per iteration the guards' columns and the stored slots
/// take a value (the alternatives not taken a filler, as addFree does);
/// predicted slots, and every slot of the alternatives left out, are
/// counted when the path disarms, taken or free alike (a free sample fits
/// any line).
struct ChoicePath {
  struct Slot {
    ValueFitter *fitter;
    const std::string *name;
    const char *nameSeen;
    const std::string *text;
    int64_t base = 0, step = 0;       ///< predicted: the value at run iteration j is base + step*(j - j0)
    SequenceFitter *line = nullptr;   ///< predicted slot: its fitter's predictedLine()
    SequenceFitter *column = nullptr; ///< stored slot
  };
  struct Call {
    Event *templ;
    size_t firstSlot;
    const char *opSeen;
  };
  struct Alternative {
    std::vector<Call> calls;
    Slot guard; ///< its trip count: 1 when taken, 0 otherwise
  };
  bool armed = false;
  Folder *folder = nullptr;
  std::vector<Alternative> alts;
  std::vector<Slot> slots;           ///< every alternative's, in call order
  std::vector<size_t> columns;       ///< the stored slots, per alternative (columnsOf)
  std::vector<size_t> columnsAt;     ///< alternative a's stored slots: columns[columnsAt[a] .. columnsAt[a + 1])
  uint64_t j0 = 0;                   ///< the run's iteration count when armed
  uint64_t uncounted = 0;            ///< committed iterations not yet added to the predicted slots
  uint32_t all = 0;                  ///< the alternatives matched (the others' iterations take the general path)
  uint32_t candidates = 0;           ///< of those, the ones that match the calls so far
  std::vector<ValueFitter *> frozen; ///< the slots of the others: free in every committed iteration
  /// The calls of the current iteration matched so far, with what replaying
  /// them needs: the template call of a candidate, the values, the timing.
  struct Matched {
    const Call *call;
    size_t firstValue;
    uint64_t computeNs, durationNs;
  };
  std::vector<Matched> matched;
  std::vector<int64_t> values;
  std::vector<const std::string *> texts;
};

/// Whether a caller's name (RawEvent::op, RawParam::name) is the template's
/// `name`. Callers pass the same static string on every call of a site, so
/// the address that matched last (`seen`) is compared first; only another
/// address costs a string comparison, and becomes `seen` when it matches.
/// RawEvent documents that the text at an address does not change.
bool sameNameByText(const std::string &name, const char *raw, const char *&seen) {
  if (name != raw)
    return false;
  seen = raw;
  return true;
}
inline bool sameName(const std::string &name, const char *raw, const char *&seen) {
  return raw == seen || sameNameByText(name, raw, seen);
}

/// The Event a RawEvent stands for (one entry per value, one timing sample).
Event toEvent(const RawEvent &raw) {
  Event ev;
  ev.op = raw.op;
  ev.layer = raw.layer;
  ev.site = raw.site;
  ev.inner = raw.inner;
  ev.params.reserve(raw.nparams);
  for (size_t i = 0; i < raw.nparams; ++i) {
    const RawParam &p = raw.params[i];
    Value v = p.text ? Value(*p.text) : Value(Expr(p.value));
    ev.params.push_back(Param{p.name, ElasticValue(std::move(v), RankList())});
  }
  ev.compute.add(raw.computeNs);
  ev.duration.add(raw.durationNs);
  return ev;
}

/// An instrumented loop being recorded (or the root, the program itself).
struct Frame {
  uint64_t loopId = 0;
  bool isRoot = false;
  bool inIteration = false; ///< false before the first iter marker
  Sequence iteration;       ///< the current iteration's nodes (root: the program)
  std::optional<Node> run;  ///< equal-structure iterations folded so far
  std::unique_ptr<Folder> runFolder;
  uint64_t runHash = 0;
  /// Retry on a sample: when the run reaches this many iterations, a run
  /// whose stored (tabled) values have turned regular again is split there,
  /// so that the rest compresses to a model; the next retry is at twice the
  /// iterations (exponential back-off: no model search in between).
  static constexpr uint64_t kFirstRetry = 256;
  uint64_t retryAt = kFirstRetry;
  FastPath fast;
  ChoicePath choiceFast;

  /// A choice run (CompressorState::endIteration) when not empty: the run's
  /// body holds one guard loop per alternative, in the order of guardHash.
  struct Alternative {
    std::vector<uint64_t> hashes; ///< of the alternative's nodes
    uint64_t guardHash = 0;       ///< of its guard loop
    size_t slots = 0;             ///< value slots of the alternative (the guard's count not included)
  };
  std::vector<Alternative> alts;
  /// Runs that start at a change of structure are choice runs: set when this
  /// execution's runs left more nodes below than its repetition detection can
  /// fold, and for every later execution of the loop.
  bool choice = false;
  int64_t nodesLeft = 0; ///< net nodes this execution's runs added to the sequence below

  /// The fast path may commit the current iteration: no retry is due.
  bool mayCommitFast() const { return runFolder && runFolder->iterations < retryAt; }
};

namespace {

/// Whether every stored slot of the folder (an integer slot whose values
/// went to a table) has its last samples and this iteration's value equally
/// spaced, and there is at least one such slot.
bool tailTurnedRegular(Folder &folder, std::vector<Node> &iteration) {
  size_t slot = 0;
  bool any = false, regular = true;
  auto onValue = [&](Value &v, uint32_t, DegenerateMask) {
    SequenceFitter *column = folder.values[slot++].columnSlot();
    if (!column || !regular)
      return;
    any = true;
    const Expr *e = std::get_if<Expr>(&v);
    std::optional<int64_t> c = e ? e->constantValue() : std::nullopt;
    regular = c && column->table()->tailFits(*c);
  };
  auto onEvent = [](Event &) {};
  visitSlots(iteration, 0, 0, onValue, onEvent);
  return any && regular;
}

} // namespace

struct CompressorState {
  CompressorOptions opts;
  std::vector<Frame> frames;
  uint64_t events = 0;
  uint64_t fastEvents = 0;

  explicit CompressorState(CompressorOptions o) : opts(o) { reset(); }

  void reset() {
    choiceLoops.clear();
    frames.clear();
    frames.emplace_back();
    frames.back().isRoot = true;
    frames.back().inIteration = true;
  }

  /// Where a node produced at frame `below` (exclusive) goes: the nearest
  /// frame under it that is inside an iteration. Calls made between a loop's
  /// enter and its first iteration (a loop condition) precede the loop.
  Sequence &targetBelow(size_t below) {
    for (size_t k = below; k-- > 0;)
      if (frames[k].inIteration)
        return frames[k].iteration;
    return frames[0].iteration;
  }

  void append(Node node) {
    uint64_t hash = structureHash(node);
    targetBelow(frames.size()).append(std::move(node), hash, opts);
  }

  std::optional<size_t> findFrame(uint64_t loopId) const {
    for (size_t k = frames.size(); k-- > 1;)
      if (frames[k].loopId == loopId)
        return k;
    return std::nullopt;
  }

  /// Loops whose runs became choice runs in an earlier execution.
  std::set<uint64_t> choiceLoops;

  void flushRun(size_t k) {
    Frame &f = frames[k];
    if (!f.run)
      return;
    materialize(f.run->loop(), *f.runFolder);
    Node node = std::move(*f.run);
    f.run.reset();
    f.runFolder.reset();
    f.alts.clear();
    Sequence &below = targetBelow(k);
    const size_t before = below.nodes.size();
    below.append(std::move(node), f.runHash, opts);
    // Repetition detection folds a pattern of p runs once it has seen it
    // twice, leaving at most ~2p nodes: more than that, and the runs follow
    // no pattern of up to kChoiceAfterNodes / 2 runs (periodic branches, a
    // checkpoint every k iterations, fold long before).
    f.nodesLeft += static_cast<int64_t>(below.nodes.size()) - static_cast<int64_t>(before);
    if (!f.choice && !f.isRoot && f.nodesLeft > choiceAfterNodes()) {
      f.choice = true;
      choiceLoops.insert(f.loopId);
    }
  }

  /// Folds the current iteration into the loop's current run, or starts a new
  /// run when its structure differs. Empty iterations are not counted.
  ///
  /// Iterations whose structure changes with the data (a branch inside the
  /// loop: read or write, write and sometimes a read back) make runs of one
  /// or two iterations, each a node below. Once they outgrow what repetition
  /// detection can fold (Frame::choice), a change of structure starts a
  /// *choice run* instead: its body has one guard loop per alternative
  /// structure (up to kMaxAlternatives), which runs once in the iterations
  /// that took it and not at all in the others, so an iteration costs a bit
  /// per alternative in the guards' trip counts (packed tables) and the
  /// values of the calls it made.
  void endIteration(size_t k) {
    Frame &f = frames[k];
    if (f.iteration.empty())
      return;
    // The common case, an iteration like the previous ones, samples the
    // iteration in place so that its vectors keep their capacity.
    f.iteration.materializeAll();
    std::vector<Node> &nodes = f.iteration.nodes;
    if (f.run && !f.alts.empty()) {
      const ChoiceSample sampled = sampleChoice(f, nodes);
      if (sampled == ChoiceSample::Taken) {
        f.iteration.clear();
        return;
      }
      if (sampled == ChoiceSample::NewStructure && f.alts.size() < kMaxAlternatives) {
        std::vector<uint64_t> hashes = f.iteration.hashes;
        addAlternative(f, std::move(hashes), f.iteration.take());
        return;
      }
    } else if (f.run &&
               std::equal(f.iteration.hashes.begin(), f.iteration.hashes.end(), f.runFolder->bodyHashes.begin(),
                          f.runFolder->bodyHashes.end()) &&
               sameStructure(std::span<const Node>(f.run->loop().body), std::span<const Node>(nodes)) &&
               accepts(*f.runFolder, nodes) && !retrySplits(f, nodes)) {
      sampleIteration(*f.runFolder, f.run->loop().body, nodes);
      f.iteration.clear();
      return;
    }
    std::vector<uint64_t> hashes = f.iteration.hashes;
    std::vector<Node> body = f.iteration.take();
    const bool changed = f.run.has_value();
    flushRun(k);
    Frame &g = frames[k]; // flushRun does not reallocate frames, but be explicit
    if (g.choice && changed) {
      startChoice(g, std::move(hashes), std::move(body));
      return;
    }
    g.runHash = loopHash(g.loopId, hashes);
    g.retryAt = Frame::kFirstRetry;
    Loop loop;
    loop.id = g.loopId;
    loop.iterations = ElasticValue(Value(Expr(1)), RankList());
    loop.body = std::move(body);
    g.runFolder = startFolder(loop.body, std::move(hashes));
    g.run = Node{RankList(), std::move(loop)};
  }

  // --- Choice runs (see endIteration) ---

  static constexpr size_t kMaxAlternatives = 16;
  static constexpr int64_t kChoiceAfterExecutionLeft = 16;
  /// Nodes an execution's runs may leave below before its later runs become
  /// choice runs: patterns of up to 16 runs (or maxWindow, if smaller) fold
  /// first.
  int64_t choiceAfterNodes() const { return 2 * static_cast<int64_t>(std::min<size_t>(opts.maxWindow, 16)); }
  /// Where an alternative's body is in the run's folder: under its guard's
  /// trip count, one loop deep, the guard having run once.
  static SlotRange alternativeSlots(size_t guardSlot) { return {guardSlot + 1, 1, 1}; }

  static bool isAlternative(const Frame &f, size_t a, const std::vector<uint64_t> &hashes, std::vector<Node> &nodes) {
    return f.alts[a].hashes == hashes &&
           sameStructure(std::span<const Node>(f.run->loop().body[a].loop().body), std::span<const Node>(nodes));
  }

  /// One iteration's guard samples: 1 for alternative `taken` (none when
  /// taken >= alts), 0 and free values for every other.
  static void sampleGuards(Frame &f, size_t taken) {
    Folder &folder = *f.runFolder;
    for (size_t a = 0, slot = 0; a < f.alts.size(); slot += 1 + f.alts[a++].slots) {
      folder.values[slot].add(Value(Expr(a == taken ? 1 : 0)), 0);
      if (a != taken)
        for (size_t s = 1; s <= f.alts[a].slots; ++s)
          folder.values[slot + s].addFree(1);
    }
  }

  enum class ChoiceSample {
    Taken,        ///< sampled into the alternative of its structure
    Refused,      ///< that alternative cannot take its values
    NewStructure, ///< no alternative has its structure
  };

  /// Samples the iteration into the choice run when one of its alternatives
  /// has its structure and takes its values.
  static ChoiceSample sampleChoice(Frame &f, std::vector<Node> &nodes) {
    Folder &folder = *f.runFolder;
    for (size_t a = 0, slot = 0; a < f.alts.size(); slot += 1 + f.alts[a++].slots) {
      if (!isAlternative(f, a, f.iteration.hashes, nodes))
        continue;
      if (!accepts(folder, nodes, alternativeSlots(slot)))
        return ChoiceSample::Refused; // alternatives differ in structure: no other has it
      sampleGuards(f, a);
      sampleSlots(folder, f.run->loop().body[a].loop().body, nodes, alternativeSlots(slot));
      ++folder.iterations;
      return ChoiceSample::Taken;
    }
    return ChoiceSample::NewStructure;
  }

  static Node guardLoop(std::vector<Node> body) {
    Loop guard; // id 0: a loop the runtime made, not the program
    guard.iterations = ElasticValue(Value(Expr(1)), RankList());
    guard.body = std::move(body);
    return Node{RankList(), std::move(guard)};
  }

  /// The run's hash and its folder's body hashes after a change of guards.
  static void rehashChoice(Frame &f) {
    std::vector<uint64_t> guardHashes;
    for (const Frame::Alternative &alt : f.alts)
      guardHashes.push_back(alt.guardHash);
    f.runHash = loopHash(f.loopId, guardHashes);
    f.runFolder->bodyHashes = std::move(guardHashes);
  }

  /// A choice run whose first iteration is `body`.
  static void startChoice(Frame &g, std::vector<uint64_t> hashes, std::vector<Node> body) {
    const uint64_t guardHash = loopHash(0, hashes);
    Loop loop;
    loop.id = g.loopId;
    loop.iterations = ElasticValue(Value(Expr(1)), RankList());
    loop.body.push_back(guardLoop(std::move(body)));
    g.runFolder = startFolder(loop.body, {guardHash});
    g.alts = {Frame::Alternative{std::move(hashes), guardHash, g.runFolder->values.size() - 1}};
    g.run = Node{RankList(), std::move(loop)};
    rehashChoice(g);
  }

  /// A new alternative, taken by this iteration (`body`) for the first time:
  /// its guard ran 0 times in the earlier iterations, its values are free there.
  static void addAlternative(Frame &f, std::vector<uint64_t> hashes, std::vector<Node> body) {
    Folder &folder = *f.runFolder;
    const uint64_t before = folder.iterations;
    sampleGuards(f, f.alts.size());
    std::vector<ValueFitter> fitters;
    fitters.emplace_back(0);
    fitters.back().addZeros(before);
    fitters.back().add(Value(Expr(1)), 0);
    auto onValue = [&](Value &v, uint32_t nesting, DegenerateMask mask) {
      fitters.emplace_back(nesting);
      fitters.back().addFree(before);
      fitters.back().add(v, mask);
    };
    auto onEvent = [](Event &) {};
    const SlotRange under = alternativeSlots(0);
    visitSlots(body, under.nesting, under.mask, onValue, onEvent);
    // Guards in the order of their hashes, so that ranks that took the same
    // alternatives in another order have runs of the same structure.
    const uint64_t guardHash = loopHash(0, hashes);
    size_t at = 0, slot = 0;
    while (at < f.alts.size() && f.alts[at].guardHash <= guardHash)
      slot += 1 + f.alts[at++].slots;
    folder.values.insert(folder.values.begin() + static_cast<std::ptrdiff_t>(slot),
                         std::make_move_iterator(fitters.begin()), std::make_move_iterator(fitters.end()));
    std::vector<Node> &guards = f.run->loop().body;
    guards.insert(guards.begin() + static_cast<std::ptrdiff_t>(at), guardLoop(std::move(body)));
    f.alts.insert(f.alts.begin() + static_cast<std::ptrdiff_t>(at),
                  Frame::Alternative{std::move(hashes), guardHash, fitters.size() - 1});
    rehashChoice(f);
    ++folder.iterations;
  }

  /// At a retry point of the run (Frame::retryAt): whether the iteration
  /// starts a new run because the stored values turned regular.
  static bool retrySplits(Frame &f, std::vector<Node> &nodes) {
    if (f.runFolder->iterations < f.retryAt)
      return false;
    f.retryAt = 2 * f.runFolder->iterations;
    return tailTurnedRegular(*f.runFolder, nodes);
  }

  // --- Steady-state fast path (see FastPath) ---

  /// Arms the top frame after an iteration when its run is in steady state.
  void tryArm() {
    Frame &f = frames.back();
    disarm(f.fast);
    if (!f.alts.empty()) {
      tryArmChoice();
      return;
    }
    if (f.isRoot || !f.inIteration || !f.run || !f.runFolder || f.runFolder->iterations < 2 ||
        !f.iteration.empty())
      return;
    arm(f.fast, f.run->loop().body, *f.runFolder, false);
  }

  /// Arms the top frame after a call of the general path when its iteration
  /// ends with a marker-less loop that the next calls can only extend.
  void tryArmOpen() {
    Frame &f = frames.back();
    Sequence &seq = f.iteration;
    if (f.fast.armed || !f.inIteration || seq.empty() || !seq.open.back() || !seq.appendsOnlyExtendLast(opts.maxWindow))
      return;
    arm(f.fast, seq.nodes.back().loop().body, *seq.open.back(), true);
  }

  /// The path over `body` (events only, else not armed) and its folder.
  void arm(FastPath &fp, std::vector<Node> &body, Folder &folder, bool open) {
    fp.calls.clear();
    fp.slots.clear();
    fp.moving.clear();
    size_t slot = 0;
    for (Node &n : body) {
      if (!n.isEvent())
        return;
      Event &e = n.event();
      // The templates' own buffers as the first `seen` addresses: never null
      // (a null would match a null name), and replayFast passes them.
      fp.calls.push_back({&e, fp.slots.size(), e.op.c_str()});
      for (Param &p : e.params) {
        ValueFitter &vf = folder.values[slot++];
        FastPath::Slot s{&vf, &p.name, p.name.c_str(), vf.text(), 0, 0, nullptr, nullptr};
        if (s.text || vf.predictNext(s.next, s.step))
          s.line = vf.predictedLine();
        else if (!(s.column = vf.columnSlot()))
          return;
        if (s.column || s.step != 0)
          fp.moving.push_back(fp.slots.size());
        fp.slots.push_back(s);
      }
    }
    if (fp.calls.empty())
      return;
    fp.timings.resize(fp.calls.size());
    fp.matched = 0;
    fp.open = open;
    fp.folder = &folder;
    fp.armed = true;
  }

  bool matchFast(FastPath &fp, const RawEvent &e) {
    if (fp.matched == fp.calls.size())
      return false; // a call more than the iteration has
    FastPath::Call &c = fp.calls[fp.matched];
    const Event &t = *c.templ;
    if (e.site != t.site || e.layer != t.layer || e.inner != t.inner || e.nparams != t.params.size() ||
        !sameName(t.op, e.op, c.opSeen))
      return false;
    for (size_t i = 0; i < e.nparams; ++i) {
      FastPath::Slot &s = fp.slots[c.firstSlot + i];
      const RawParam &p = e.params[i];
      if (!sameName(*s.name, p.name, s.nameSeen))
        return false;
      if (s.column) {
        if (p.text)
          return false;
        // Taken before the whole call matched: harmless, since a call that
        // does not match is never committed nor replayed from its slots.
        s.next = p.value;
      } else if (s.text ? !p.text || *p.text != *s.text : p.text || p.value != s.next) {
        return false;
      }
    }
    fp.timings[fp.matched++] = {e.computeNs, e.durationNs};
    return true;
  }

  /// The iteration matched in full: what sampleIteration would do.
  void commitFast(FastPath &fp) {
    for (size_t j = 0; j < fp.calls.size(); ++j) {
      fp.calls[j].templ->compute.add(fp.timings[j].first);
      fp.calls[j].templ->duration.add(fp.timings[j].second);
    }
    bool overflow = false;
    for (size_t k : fp.moving) {
      FastPath::Slot &s = fp.slots[k];
      if (s.column)
        s.fitter->addColumn(*s.column, s.next);
      else
        overflow |= __builtin_add_overflow(s.next, s.step, &s.next);
    }
    ++fp.uncounted;
    ++fp.folder->iterations;
    fp.matched = 0;
    if (overflow)
      disarm(fp);
  }

  /// Leaves the fast path: the predicted slots' fitters count the committed
  /// iterations, so that they are exact for whatever reads them next.
  static void disarm(FastPath &fp) {
    if (fp.uncounted > 0)
      for (FastPath::Slot &s : fp.slots)
        if (!s.column)
          s.fitter->addPredicted(s.line, fp.uncounted);
    fp.uncounted = 0;
    fp.armed = false;
  }

  /// The calls matched so far, as the Events they stand for, into the
  /// general path; the frame is disarmed.
  void replayFast(Frame &f) {
    FastPath &fp = f.fast;
    disarm(fp);
    // All Events first: an open loop's templates are in the sequence the
    // appends go to (appendsOnlyExtendLast says they fold nothing there;
    // copies make that an optimisation's assumption, not memory safety's).
    std::vector<Event> events;
    events.reserve(fp.matched);
    std::vector<RawParam> params;
    for (size_t j = 0; j < fp.matched; ++j) {
      const FastPath::Slot *slots = &fp.slots[fp.calls[j].firstSlot];
      events.push_back(matchedEvent(
          *fp.calls[j].templ, slots, [&](size_t i) { return slots[i].next; }, fp.timings[j], params));
    }
    fp.matched = 0;
    for (Event &e : events)
      append(Node{RankList(), std::move(e)});
  }

  /// The Event a call matched on a steady-state path stands for: the
  /// template's op and parameter names (text values from the slots, which
  /// matched), the call's integer values (`value(i)`) and timing.
  template <typename Slot, typename ValueOf>
  static Event matchedEvent(const Event &t, const Slot *slots, ValueOf value, std::pair<uint64_t, uint64_t> timing,
                            std::vector<RawParam> &params) {
    params.clear();
    for (size_t i = 0; i < t.params.size(); ++i)
      params.push_back({slots[i].name->c_str(), slots[i].text, value(i)});
    return toEvent(
        RawEvent{t.op.c_str(), t.layer, t.site, t.inner, params.data(), params.size(), timing.first, timing.second});
  }

  // --- Steady state of a choice run (see ChoicePath) ---

  /// A slot's steady state under `steady` (its samples' mask): text, a line
  /// or a column; false when it has none yet.
  static bool steadySlot(ValueFitter &vf, DegenerateMask steady, ChoicePath::Slot &s) {
    s.fitter = &vf;
    s.text = vf.text();
    if (s.text) {
      s.line = vf.predictedLine();
      return true;
    }
    if (vf.predictNext(s.base, s.step, steady)) {
      s.line = vf.predictedLine();
      return true;
    }
    return (s.column = vf.columnSlot(steady)) != nullptr;
  }

  /// The value a predicted slot predicts for run iteration j; false on overflow.
  static bool predicted(const ChoicePath &cp, const ChoicePath::Slot &s, uint64_t j, int64_t &value) {
    int64_t offset;
    return !__builtin_mul_overflow(s.step, static_cast<int64_t>(j - cp.j0), &offset) &&
           !__builtin_add_overflow(s.base, offset, &value);
  }

  /// Arms the top frame's choice run after an iteration, when every guard
  /// and every slot of every alternative (events only) is in steady state.
  void tryArmChoice() {
    Frame &f = frames.back();
    ChoicePath &cp = f.choiceFast;
    cp.armed = false;
    if (f.isRoot || !f.inIteration || !f.run || !f.runFolder || !f.iteration.empty())
      return;
    Folder &folder = *f.runFolder;
    std::vector<Node> &guards = f.run->loop().body;
    cp.alts.clear();
    cp.slots.clear();
    cp.columns.clear();
    cp.columnsAt.clear();
    cp.frozen.clear();
    cp.all = 0;
    size_t slot = 0;
    for (size_t a = 0; a < f.alts.size(); ++a) {
      ChoicePath::Alternative alt;
      if (!steadySlot(folder.values[slot++], 0, alt.guard) || alt.guard.text)
        return;
      cp.columnsAt.push_back(cp.columns.size());
      const size_t firstSlot = slot, slotsBefore = cp.slots.size();
      bool steady = true;
      for (Node &n : guards[a].loop().body) {
        if (!(steady = n.isEvent()))
          break;
        Event &e = n.event();
        alt.calls.push_back({&e, cp.slots.size(), e.op.c_str()});
        for (Param &p : e.params) {
          ChoicePath::Slot s{};
          s.name = &p.name;
          s.nameSeen = p.name.c_str();
          if (!(steady = steadySlot(folder.values[slot++], alternativeSlots(0).mask, s)))
            break;
          if (s.column)
            cp.columns.push_back(cp.slots.size());
          cp.slots.push_back(s);
        }
        if (!steady)
          break;
      }
      slot = firstSlot + f.alts[a].slots;
      if (steady) {
        cp.all |= uint32_t(1) << a; // kMaxAlternatives <= 16
      } else {                      // taken too rarely yet (or holds a loop): its iterations take the general path
        alt.calls.clear();
        cp.slots.resize(slotsBefore);
        cp.columns.resize(cp.columnsAt.back());
        for (size_t k = firstSlot; k < slot; ++k)
          cp.frozen.push_back(&folder.values[k]);
      }
      cp.alts.push_back(std::move(alt));
    }
    cp.columnsAt.push_back(cp.columns.size());
    if (!cp.all)
      return;
    cp.j0 = folder.iterations;
    cp.uncounted = 0;
    cp.matched.clear();
    cp.values.clear();
    cp.candidates = cp.all;
    cp.folder = &folder;
    cp.armed = true;
  }

  static bool matchChoiceCall(ChoicePath &cp, ChoicePath::Call &c, const RawEvent &e, uint64_t j) {
    const Event &t = *c.templ;
    if (e.site != t.site || e.layer != t.layer || e.inner != t.inner || e.nparams != t.params.size() ||
        !sameName(t.op, e.op, c.opSeen))
      return false;
    for (size_t i = 0; i < e.nparams; ++i) {
      ChoicePath::Slot &s = cp.slots[c.firstSlot + i];
      const RawParam &p = e.params[i];
      if (!sameName(*s.name, p.name, s.nameSeen))
        return false;
      if (s.text ? !p.text || *p.text != *s.text : p.text != nullptr)
        return false;
      int64_t want;
      if (!s.text && !s.column && (!predicted(cp, s, j, want) || p.value != want))
        return false;
    }
    return true;
  }

  /// The call against the candidates' next call: false (nothing changed)
  /// when it matches none.
  bool matchChoice(ChoicePath &cp, const RawEvent &e) {
    const size_t m = cp.matched.size();
    const uint64_t j = cp.folder->iterations;
    uint32_t still = 0;
    const ChoicePath::Call *first = nullptr;
    for (uint32_t bits = cp.candidates; bits; bits &= bits - 1) {
      const size_t a = static_cast<size_t>(__builtin_ctz(bits));
      std::vector<ChoicePath::Call> &calls = cp.alts[a].calls;
      if (m < calls.size() && matchChoiceCall(cp, calls[m], e, j)) {
        still |= uint32_t(1) << a;
        if (!first)
          first = &calls[m];
      }
    }
    if (!still)
      return false;
    cp.candidates = still;
    cp.matched.push_back({first, cp.values.size(), e.computeNs, e.durationNs});
    for (size_t i = 0; i < e.nparams; ++i)
      cp.values.push_back(e.params[i].value);
    return true;
  }

  /// The iteration ends: what sampleChoice would do for the one candidate
  /// matched in full; false (nothing changed) when none is, or when a guard
  /// on a line did not predict it.
  static bool commitChoice(ChoicePath &cp) {
    const uint64_t j = cp.folder->iterations;
    size_t taken = cp.alts.size();
    for (uint32_t bits = cp.candidates; bits; bits &= bits - 1) {
      const size_t a = static_cast<size_t>(__builtin_ctz(bits));
      if (cp.alts[a].calls.size() == cp.matched.size()) {
        taken = a;
        break;
      }
    }
    if (taken == cp.alts.size())
      return false;
    for (size_t a = 0; a < cp.alts.size(); ++a) {
      const ChoicePath::Slot &g = cp.alts[a].guard;
      int64_t want;
      if (!g.column && (!predicted(cp, g, j, want) || want != (a == taken ? 1 : 0)))
        return false;
    }
    for (size_t a = 0; a < cp.alts.size(); ++a) {
      ChoicePath::Alternative &alt = cp.alts[a];
      if (alt.guard.column)
        alt.guard.fitter->addColumn(*alt.guard.column, a == taken ? 1 : 0);
      if (a == taken)
        continue;
      for (size_t k = cp.columnsAt[a]; k < cp.columnsAt[a + 1]; ++k)
        cp.slots[cp.columns[k]].fitter->addFree(1);
    }
    ChoicePath::Alternative &alt = cp.alts[taken];
    for (size_t c = 0; c < alt.calls.size(); ++c) {
      const ChoicePath::Call &call = alt.calls[c];
      const ChoicePath::Matched &m = cp.matched[c];
      for (size_t i = 0; i < call.templ->params.size(); ++i) {
        ChoicePath::Slot &s = cp.slots[call.firstSlot + i];
        if (s.column)
          s.fitter->addColumn(*s.column, cp.values[m.firstValue + i]);
      }
      call.templ->compute.add(m.computeNs);
      call.templ->duration.add(m.durationNs);
    }
    ++cp.uncounted;
    ++cp.folder->iterations;
    cp.matched.clear();
    cp.values.clear();
    cp.candidates = cp.all;
    return true;
  }

  /// Leaves the path: the predicted slots and guards count the committed
  /// iterations (taken or free, each fits the line).
  static void disarmChoice(ChoicePath &cp) {
    if (cp.uncounted > 0) {
      for (ChoicePath::Alternative &alt : cp.alts)
        if (!alt.guard.column)
          alt.guard.fitter->addPredicted(alt.guard.line, cp.uncounted);
      for (ChoicePath::Slot &s : cp.slots)
        if (!s.column)
          s.fitter->addPredicted(s.line, cp.uncounted);
      for (ValueFitter *v : cp.frozen)
        v->addFree(cp.uncounted);
    }
    cp.uncounted = 0;
    cp.armed = false;
  }

  /// The calls matched so far, as the Events they stand for, into the
  /// general path; the path is disarmed.
  void replayChoice(Frame &f) {
    ChoicePath &cp = f.choiceFast;
    disarmChoice(cp);
    std::vector<Event> events;
    events.reserve(cp.matched.size());
    std::vector<RawParam> params;
    for (const ChoicePath::Matched &m : cp.matched)
      events.push_back(matchedEvent(
          *m.call->templ, &cp.slots[m.call->firstSlot], [&](size_t i) { return cp.values[m.firstValue + i]; },
          {m.computeNs, m.durationNs}, params));
    cp.matched.clear();
    cp.values.clear();
    for (Event &e : events)
      append(Node{RankList(), std::move(e)});
  }

  /// Before anything but a matching call touches the top frame: a complete
  /// matched iteration is committed if the iteration ends here, a partial
  /// one replayed; the frame is disarmed either way.
  void settle(bool iterationEnds) {
    Frame &f = frames.back();
    if (f.choiceFast.armed) {
      if (!(iterationEnds && !f.choiceFast.matched.empty() && commitChoice(f.choiceFast)))
        replayChoice(f);
      disarmChoice(f.choiceFast);
      return;
    }
    if (!f.fast.armed)
      return;
    if (!f.fast.open && iterationEnds && f.fast.matched == f.fast.calls.size() && f.mayCommitFast())
      commitFast(f.fast);
    else
      replayFast(f);
    disarm(f.fast);
  }

  void closeFrame() {
    size_t k = frames.size() - 1;
    if (frames[k].inIteration)
      endIteration(k);
    flushRun(k);
    // An execution too short to reach the switch that still left more nodes
    // than a pattern repetition detection folds would (a short loop of
    // random branches inside a time-step loop): the next ones start choice
    // runs at their first change of structure.
    if (!frames[k].isRoot && frames[k].nodesLeft > kChoiceAfterExecutionLeft)
      choiceLoops.insert(frames[k].loopId);
    frames.pop_back();
  }
};

namespace {

/// Relative loop indices to absolute ones and rank lists on everything.
void finalizeNodes(std::vector<Node> &nodes, uint32_t depth, const RankList &ranks) {
  auto absolute = [depth](uint32_t relative) { return depth - 1 - relative; };
  auto fix = [&](ElasticValue &ev) {
    Value &v = soleValue(ev);
    if (!isText(v) && std::get<Expr>(v).loopDepthUsed() > 0)
      v = renameLoops(std::get<Expr>(v), absolute);
    ev.entries().resize(1);
    ev.entries().front().ranks = ranks;
  };
  for (Node &node : nodes) {
    node.ranks = ranks;
    if (node.isEvent()) {
      for (Param &p : node.event().params)
        fix(p.value);
    } else {
      fix(node.loop().iterations);
      finalizeNodes(node.loop().body, depth + 1, ranks);
    }
  }
}

} // namespace
} // namespace detail

IntraRankCompressor::IntraRankCompressor(CompressorOptions opts)
    : state_(std::make_unique<detail::CompressorState>(opts)) {}
IntraRankCompressor::~IntraRankCompressor() = default;
IntraRankCompressor::IntraRankCompressor(IntraRankCompressor &&) noexcept = default;
IntraRankCompressor &IntraRankCompressor::operator=(IntraRankCompressor &&) noexcept = default;

void IntraRankCompressor::loopEnter(uint64_t loopId) {
  state_->settle(false);
  state_->frames.emplace_back();
  state_->frames.back().loopId = loopId;
  state_->frames.back().choice = state_->choiceLoops.count(loopId) > 0;
}

void IntraRankCompressor::loopIter(uint64_t loopId) {
  detail::Frame &top = state_->frames.back();
  if (top.choiceFast.armed && !top.isRoot && top.loopId == loopId) {
    if (top.choiceFast.matched.empty())
      return; // an empty iteration counts for nothing
    if (state_->commitChoice(top.choiceFast))
      return;
  }
  if (top.fast.armed && !top.fast.open && !top.isRoot && top.loopId == loopId) {
    if (top.fast.matched == top.fast.calls.size() && top.mayCommitFast()) {
      state_->commitFast(top.fast);
      if (!top.fast.armed) // the prediction overflowed: ask the fitters again
        state_->tryArm();
      return;
    }
    if (top.fast.matched == 0)
      return; // an empty iteration counts for nothing
  }
  auto k = state_->findFrame(loopId);
  // An iter of a loop that is open ends the top frame's iteration (its own,
  // or by closing it); one of an unknown loop enters it inside the iteration.
  state_->settle(k.has_value());
  if (!k) {
    loopEnter(loopId);
    k = state_->frames.size() - 1;
  }
  while (state_->frames.size() - 1 > *k)
    state_->closeFrame();
  auto &frame = state_->frames[*k];
  if (frame.inIteration)
    state_->endIteration(*k);
  state_->frames[*k].inIteration = true;
  state_->tryArm();
}

void IntraRankCompressor::loopExit(uint64_t loopId) {
  auto k = state_->findFrame(loopId);
  if (!k)
    return;
  state_->settle(true);
  while (state_->frames.size() > *k)
    state_->closeFrame();
}

void IntraRankCompressor::event(sio::trace::Event ev) {
  state_->settle(false);
  for (auto &p : ev.params)
    detail::soleValue(p.value); // exactly one entry from here on
  ++state_->events;
  state_->append(sio::trace::Node{sio::trace::RankList(), std::move(ev)});
}

void IntraRankCompressor::event(const RawEvent &raw) {
  detail::Frame &top = state_->frames.back();
  if (top.choiceFast.armed && state_->matchChoice(top.choiceFast, raw)) {
    ++state_->events;
    ++state_->fastEvents;
    return;
  }
  if (top.fast.armed && state_->matchFast(top.fast, raw)) {
    ++state_->events;
    ++state_->fastEvents;
    if (top.fast.open && top.fast.matched == top.fast.calls.size()) {
      state_->commitFast(top.fast); // what append() would do: extend the loop
      if (!top.fast.armed)          // the prediction overflowed: ask the fitters again
        state_->tryArmOpen();
    }
    return;
  }
  event(detail::toEvent(raw)); // settles the fast path first
  state_->tryArmOpen();
}

std::vector<sio::trace::Node> IntraRankCompressor::finish(int64_t rank, int64_t nranks) {
  state_->settle(true);
  while (state_->frames.size() > 1)
    state_->closeFrame();
  std::vector<sio::trace::Node> nodes = state_->frames[0].iteration.take();
  detail::finalizeNodes(nodes, 0, sio::trace::RankList::single(rank));
  state_->reset();
  state_->events = 0;
  state_->fastEvents = 0;
  return nodes;
}

size_t IntraRankCompressor::approxBytes() const {
  size_t b = sizeof(*state_);
  for (const auto &f : state_->frames) {
    b += sizeof(f) + f.iteration.bytes();
    if (f.run)
      b += detail::nodeBytes(*f.run);
    if (f.runFolder)
      for (const auto &v : f.runFolder->values)
        b += v.bytes();
  }
  return b;
}

uint64_t IntraRankCompressor::eventCount() const { return state_->events; }
uint64_t IntraRankCompressor::fastEventCount() const { return state_->fastEvents; }

} // namespace sio::rt
