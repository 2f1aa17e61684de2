// One coefficient of a value over the iterations of a loop being folded:
// an affine line while the samples follow one, then a packed table (the
// store). The building block of ValueFitter (ValueFitter.h).
#pragma once

#include "ExprUtil.h"

#include "sio/trace/Column.h"
#include "sio/trace/Expr.h"

#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

namespace sio::rt::detail {

using sio::trace::ColumnBuilder;
using sio::trace::ElasticValue;
using sio::trace::Event;
using sio::trace::IntColumn;
using sio::trace::Loop;
using sio::trace::Node;
using sio::trace::Param;
using sio::trace::RankList;
using sio::trace::Rational;
using sio::trace::Value;
using sio::trace::WideInt;

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

} // namespace sio::rt::detail
