// Predictor: learning -> stable -> adjust (Byna et al. SC08 §V-C, Figure 5).
#include "sio/prefetch/Predictor.h"

namespace sio::prefetch {

const char *stateName(PredictorState state) {
  switch (state) {
  case PredictorState::Learning:
    return "learning";
  case PredictorState::Stable:
    return "stable";
  case PredictorState::Adjust:
    return "adjust";
  }
  return "?";
}

std::optional<std::vector<Access>> expandSignature(const signature::TraceSignature &sig, size_t limit) {
  auto rebuilt = signature::rebuildAccesses(sig, limit);
  if (!rebuilt)
    return std::nullopt;
  std::vector<Access> out;
  out.reserve(rebuilt->size());
  for (const signature::RebuiltAccess &a : *rebuilt)
    out.push_back({a.offset, a.size});
  return out;
}

Predictor::Predictor(std::vector<Access> plan, std::optional<int64_t> placed) : plan_(std::move(plan)) {
  for (size_t i = 0; i < plan_.size(); ++i)
    index_.emplace(plan_[i].offset, i);
  if (placed && !plan_.empty()) {
    placed_ = true;
    shift_ = *placed;
    state_ = PredictorState::Stable;
  }
}

std::optional<size_t> Predictor::locate(int64_t rel) const {
  // Near the cursor first (the application is a little ahead or behind),
  // then anywhere in the plan.
  const size_t end = std::min(plan_.size(), cursor_ + 4096);
  for (size_t i = cursor_; i < end; ++i)
    if (plan_[i].offset == rel)
      return i;
  auto it = index_.find(rel);
  if (it != index_.end())
    return it->second;
  return std::nullopt;
}

void Predictor::fallBack() {
  plan_.clear();
  index_.clear();
  abandoned_ = true;
  detector_ = signature::OnlineDetector();
  for (const auto &a : recent_)
    detector_.observe(a.offset);
  state_ = detector_.state() == signature::DetectorState::Stable ? PredictorState::Stable : PredictorState::Learning;
  expected_ = detector_.predictNext();
}

bool Predictor::observe(int64_t offset, int64_t size) {
  recent_.push_back({offset, size});
  if (recent_.size() > 16)
    recent_.erase(recent_.begin());
  lastSize_ = size;
  if (!plan_.empty()) {
    if (!started_) {
      // The rank's actual first read sets the initial position, unless the
      // rank rule placed the plan right.
      started_ = true;
      cursor_ = 1;
      state_ = PredictorState::Stable;
      if (placed_ && plan_[0].offset + shift_ == offset)
        return true;
      shift_ = offset - plan_[0].offset;
      return false;
    }
    const bool hit = cursor_ < plan_.size() && plan_[cursor_].offset + shift_ == offset;
    missHistory_ = ((missHistory_ << 1) | (hit ? 0u : 1u)) & 0xffu;
    if (++observed_ >= 8 && __builtin_popcount(missHistory_) >= 6) {
      fallBack();
      return false;
    }
    if (hit) {
      ++cursor_;
      unexplained_ = 0;
      state_ = PredictorState::Stable;
      return true;
    }
    if (auto i = locate(offset - shift_)) {
      cursor_ = *i + 1;
      unexplained_ = 0;
      ++adjustments_;
      state_ = PredictorState::Adjust;
      return false;
    }
    state_ = PredictorState::Learning;
    if (++unexplained_ >= 3)
      fallBack();
    return false;
  }
  const bool predicted = expected_ && *expected_ == offset;
  detector_.observe(offset);
  state_ = detector_.state() == signature::DetectorState::Stable ? PredictorState::Stable : PredictorState::Learning;
  expected_ = detector_.predictNext();
  return predicted;
}

std::vector<Access> Predictor::upcoming(size_t n) const {
  std::vector<Access> out;
  if (state_ == PredictorState::Learning) {
    if (n > 0 && predicts())
      out.push_back({*expected_, lastSize_});
    return out;
  }
  if (!plan_.empty()) {
    for (size_t i = cursor_; i < plan_.size() && out.size() < n; ++i)
      out.push_back({plan_[i].offset + shift_, plan_[i].size});
    return out;
  }
  signature::OnlineDetector d = detector_;
  for (size_t i = 0; i < n; ++i) {
    auto next = d.predictNext();
    if (!next || *next < 0)
      break;
    out.push_back({*next, lastSize_});
    d.observe(*next);
  }
  return out;
}

} // namespace sio::prefetch
