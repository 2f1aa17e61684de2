// Figure 3 of Byna et al. SC08 as a streaming detector. The offline analysis
// (Detect.cpp) sees whole streams; this one sees one offset at a time, the
// way a prefetch thread does, and says when a pattern became stable.
#include "sio/signature/Signature.h"

#include <map>

namespace sio::signature {

namespace {
constexpr size_t kHistory = 64;
constexpr size_t kMarkovMinHistory = 8;
/// Longest stride cycle tried: nested strided reads of up to this many
/// accesses per group (PIO-Bench's nested strided uses 4, Byna et al. SC08
/// §VI) are followed exactly instead of by the Markov chain, which predicts
/// only the likeliest successor and misses once per group.
constexpr int kMaxPeriod = 16;
} // namespace

std::optional<int64_t> OnlineDetector::predictStride() const {
  if (strides_.empty())
    return std::nullopt;
  switch (kind_) {
  case Spatial::FixedStrided:
  case Spatial::NegativeStrided:
    return strides_.back();
  case Spatial::KdStrided:
    if (strides_.size() >= size_t(period_))
      return strides_[strides_.size() - size_t(period_)];
    return std::nullopt;
  case Spatial::VariableStrided: {
    // The likeliest successor of the last stride seen so far.
    std::map<int64_t, int> next;
    for (size_t i = 0; i + 1 < strides_.size(); ++i)
      if (strides_[i] == strides_.back())
        ++next[strides_[i + 1]];
    std::optional<int64_t> best;
    int bestCount = 0;
    for (const auto &[s, n] : next)
      if (n > bestCount) {
        best = s;
        bestCount = n;
      }
    return best;
  }
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> OnlineDetector::predictNext() const {
  auto s = predictStride();
  if (!s || !last_ || state_ == DetectorState::Init)
    return std::nullopt;
  return *last_ + *s;
}

bool OnlineDetector::explains(Spatial kind, int period) const {
  const size_t n = strides_.size();
  switch (kind) {
  case Spatial::FixedStrided:
    return n == 1 || (n >= 2 && strides_[n - 1] == strides_[n - 2]);
  case Spatial::KdStrided: {
    // The last two cycles agree, and the cycle is not one repeated stride.
    const size_t p = size_t(period);
    if (n < p + 1)
      return false;
    bool allSame = true;
    for (size_t i = n - std::min(n, 2 * p); i < n; ++i) {
      if (i >= p && strides_[i] != strides_[i - p])
        return false;
      allSame = allSame && strides_[i] == strides_[n - 1];
    }
    return !allSame;
  }
  case Spatial::VariableStrided: {
    if (n < kMarkovMinHistory)
      return false;
    // Each of the last few strides followed from the history before it.
    OnlineDetector probe(*this);
    probe.kind_ = Spatial::VariableStrided;
    for (int back = 4; back >= 1; --back) {
      probe.strides_.assign(strides_.begin(), strides_.end() - back);
      if (probe.predictStride() != strides_[n - size_t(back)])
        return false;
    }
    return true;
  }
  default:
    return false;
  }
}

void OnlineDetector::chooseHypothesis() {
  confirmed_ = 0;
  state_ = DetectorState::Learning;
  period_ = 1;
  if (explains(Spatial::FixedStrided, 1)) {
    kind_ = strides_.back() < 0 ? Spatial::NegativeStrided : Spatial::FixedStrided;
    return;
  }
  for (int p = 2; p <= kMaxPeriod; ++p)
    if (explains(Spatial::KdStrided, p)) {
      kind_ = Spatial::KdStrided;
      period_ = p;
      return;
    }
  if (explains(Spatial::VariableStrided, 1)) {
    kind_ = Spatial::VariableStrided;
    return;
  }
  // Nothing explains the history: back to init, keeping the newest stride.
  kind_ = Spatial::None;
  state_ = DetectorState::Init;
}

void OnlineDetector::observe(int64_t offset) {
  if (!last_) {
    last_ = offset;
    return;
  }
  const int64_t stride = offset - *last_;
  const std::optional<int64_t> predicted = state_ == DetectorState::Init ? std::nullopt : predictStride();
  last_ = offset;
  strides_.push_back(stride);
  if (strides_.size() > kHistory)
    strides_.erase(strides_.begin());
  if (predicted && *predicted == stride) {
    if (++confirmed_ >= confirmations_)
      state_ = DetectorState::Stable;
    return;
  }
  chooseHypothesis();
}

} // namespace sio::signature
