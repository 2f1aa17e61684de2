// Timing extrapolation: the one approximate part. Means are fitted against
// the rank count with the four curves of ScalaTrace (constant, linear,
// inverse, inverse + constant) by least squares. The curve is chosen by how
// well it predicts each input from the others (leave-one-out), not by how
// close it passes to all of them: a curve other than the constant must halve
// the constant's error, so noise between a few small inputs is not
// extrapolated as a trend.
#pragma once

#include "sio/trace/Timing.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sio::extrap {

struct TimingFit {
  std::string model;        ///< "constant", "linear", "inverse", "inverse + constant"
  double predicted = 0;     ///< mean at the target rank count (ns)
  double relativeError = 0; ///< RMS residual / mean of the samples
  /// RMS error of predicting each sample from the others / mean of the samples.
  double crossValidationError = 0;
};

TimingFit fitTiming(const std::vector<int64_t> &ranks, const std::vector<double> &means, int64_t target);

/// `stats` with every sample scaled so that its mean becomes `mean`.
sio::trace::TimingStats scaleTiming(const sio::trace::TimingStats &stats, double mean);

} // namespace sio::extrap
