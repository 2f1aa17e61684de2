// Timing statistics of one event: the computation time before it and its
// duration, merged over iterations and ranks. Merging is exact and
// associative (log2 histogram bins), so the inter-rank merge tree may combine
// in any order and give the same statistics.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace sio::trace {

class TimingStats {
public:
  /// Bin b holds samples with floor(log2(ns)) == b - 1; bin 0 holds 0 ns.
  static constexpr int kBins = 48;

  /// Inline: the runtime's steady-state path adds two samples per call.
  void add(uint64_t ns) {
    ++count_;
    min_ = std::min(min_, ns);
    max_ = std::max(max_, ns);
    double d = static_cast<double>(ns);
    sum_ += d;
    sumSq_ += d * d;
    ++bins_[binOf(ns)];
  }
  void merge(const TimingStats &other);

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? sum_ / double(count_) : 0.0; }
  /// Population variance.
  double variance() const;
  double sum() const { return sum_; }
  double sumOfSquares() const { return sumSq_; }
  const std::array<uint64_t, kBins> &histogram() const { return bins_; }

  /// Lower and upper bound (ns) of a bin.
  static uint64_t binLow(int bin);
  static uint64_t binHigh(int bin);
  static int binOf(uint64_t ns) { return std::min(static_cast<int>(std::bit_width(ns)), kBins - 1); }

  /// Rebuilds stats from stored fields (the JSON reader). Returns false if
  /// they are inconsistent (bins do not sum to count, min > max, ...).
  bool assign(uint64_t count, uint64_t min, uint64_t max, double sum, double sumSq,
              const std::array<uint64_t, kBins> &bins);

  friend bool operator==(const TimingStats &, const TimingStats &) = default;

private:
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  double sum_ = 0;
  double sumSq_ = 0;
  std::array<uint64_t, kBins> bins_{};
};

} // namespace sio::trace
