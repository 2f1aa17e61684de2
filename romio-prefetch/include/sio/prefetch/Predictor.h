// Where a rank reads next (Byna et al. SC08 §V-A, §V-C and Figure 5).
//
// A Predictor follows one rank's reads of one file, in the view's logical
// bytes. With a signature (`sio-signature --format json`, expanded into the
// rank's access plan) it is in the paper's learning state until the first
// read, which gives the initial position (the plan is shifted onto it), unless
// the signature's rank rule already placed the plan: then it predicts from the
// start, so the rank's first reads can be prefetched too, and a first read
// elsewhere re-places the plan as in the learning state; it is
// stable while reads follow the plan, and adjusts (re-synchronises its
// position in the plan, as when "the prefetching thread is falling behind")
// when a read is elsewhere in the plan. Reads the plan cannot explain three
// times in a row, or six of the last eight reads not the predicted ones,
// mean a wrong or stale signature: the predictor then learns
// online instead, with signature-gen's OnlineDetector (Figure 3), and a file
// without a signature learns online from the start.
#pragma once

#include "sio/signature/Signature.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sio::prefetch {

struct Access {
  int64_t offset = 0;
  int64_t size = 0;
  friend bool operator==(const Access &, const Access &) = default;
};

enum class PredictorState { Learning, Stable, Adjust };
const char *stateName(PredictorState state);

/// The accesses a trace signature describes (docs/signatures.md, "To rebuild
/// a rank's accesses"), at most `limit` of them; nullopt when a component's
/// stride is not fixed (random or Markov: nothing to expand).
std::optional<std::vector<Access>> expandSignature(const signature::TraceSignature &sig, size_t limit = size_t(1)
                                                                                                        << 20);

class Predictor {
public:
  /// Learn online.
  Predictor() = default;
  /// Follow a plan (empty plan: learn online). With `placed`, the plan is
  /// shifted by that many bytes before the first read (the rank's initial
  /// position from the signature's rank rule, minus the plan's): the
  /// predictor is stable from the start and predicts the first accesses.
  explicit Predictor(std::vector<Access> plan, std::optional<int64_t> placed = std::nullopt);

  /// The application read `size` bytes at `offset`. Returns whether the
  /// predictor had predicted it.
  bool observe(int64_t offset, int64_t size);
  /// The next `n` predicted accesses after the last observed one. In the
  /// learning state: none with a signature; online, the one access the
  /// detector's unconfirmed hypothesis expects (a tentative prefetch, so that
  /// learning from the first reads costs one miss fewer per confirmation).
  std::vector<Access> upcoming(size_t n) const;
  /// Whether upcoming() has something (cheap: no detector copy).
  bool predicts() const {
    return state_ != PredictorState::Learning || (plan_.empty() && expected_ && *expected_ >= 0);
  }

  PredictorState state() const { return state_; }
  bool followsSignature() const { return !plan_.empty(); }
  /// Fell back from a signature to online learning.
  bool abandonedSignature() const { return abandoned_; }
  uint64_t adjustments() const { return adjustments_; }

private:
  std::optional<size_t> locate(int64_t relOffset) const;
  void fallBack();

  std::vector<Access> plan_;
  std::unordered_map<int64_t, size_t> index_; ///< plan offset -> first index
  size_t cursor_ = 0;                         ///< plan index of the next read
  int64_t shift_ = 0;
  int unexplained_ = 0;
  uint32_t missHistory_ = 0; ///< bit i: the (i+1)-th last read was not the predicted one
  uint32_t observed_ = 0;
  bool started_ = false;
  bool placed_ = false; ///< shift_ came from the rank rule, before any read
  bool abandoned_ = false;
  uint64_t adjustments_ = 0;
  std::vector<Access> recent_; ///< last reads (bounded), replayed into the detector on fallback

  signature::OnlineDetector detector_;
  int64_t lastSize_ = 0;
  std::optional<int64_t> expected_;
  PredictorState state_ = PredictorState::Learning;
};

} // namespace sio::prefetch
