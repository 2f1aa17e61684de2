#include "sio/trace/Timing.h"

#include <algorithm>

namespace sio::trace {

uint64_t TimingStats::binLow(int bin) { return bin <= 0 ? 0 : uint64_t(1) << (bin - 1); }

uint64_t TimingStats::binHigh(int bin) {
  if (bin <= 0)
    return 0;
  if (bin >= kBins - 1)
    return UINT64_MAX;
  return (uint64_t(1) << bin) - 1;
}

void TimingStats::merge(const TimingStats &o) {
  if (o.count_ == 0)
    return;
  count_ += o.count_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
  sumSq_ += o.sumSq_;
  for (int b = 0; b < kBins; ++b)
    bins_[b] += o.bins_[b];
}

double TimingStats::variance() const {
  if (count_ == 0)
    return 0;
  double m = mean();
  return std::max(0.0, sumSq_ / double(count_) - m * m);
}

bool TimingStats::assign(uint64_t count, uint64_t min, uint64_t max, double sum, double sumSq,
                         const std::array<uint64_t, kBins> &bins) {
  uint64_t total = 0;
  for (uint64_t b : bins) {
    if (total + b < total)
      return false;
    total += b;
  }
  if (total != count || sum < 0 || sumSq < 0)
    return false;
  if (count == 0) {
    *this = TimingStats();
    return true;
  }
  if (min > max)
    return false;
  count_ = count;
  min_ = min;
  max_ = max;
  sum_ = sum;
  sumSq_ = sumSq;
  bins_ = bins;
  return true;
}

} // namespace sio::trace
