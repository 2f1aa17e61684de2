#include "TimingFit.h"

#include <cmath>
#include <optional>

namespace sio::extrap {

namespace {

// y = a*f(N) + b*g(N) (g may be absent), fitted by least squares.
struct Curve {
  const char *name;
  double (*f)(double);
  double (*g)(double); // nullptr: one-parameter curve
};

double one(double) { return 1; }
double linear(double n) { return n; }
double inverse(double n) { return 1 / n; }

constexpr Curve kCurves[] = {{"constant", one, nullptr},
                             {"linear", one, linear},
                             {"inverse", inverse, nullptr},
                             {"inverse + constant", one, inverse}};

/// A curve's coefficients fitted to the samples other than `skip` (none:
/// SIZE_MAX); nullopt when they do not determine it.
std::optional<std::pair<double, double>> fitCurve(const Curve &c, const std::vector<int64_t> &ranks,
                                                  const std::vector<double> &means, size_t skip) {
  if (!c.g) {
    double num = 0, den = 0;
    for (size_t k = 0; k < ranks.size(); ++k) {
      if (k == skip)
        continue;
      const double x = c.f(double(ranks[k]));
      num += x * means[k];
      den += x * x;
    }
    if (den <= 0)
      return std::nullopt;
    return std::pair{num / den, 0.0};
  }
  // Normal equations of the 2x2 system.
  double s11 = 0, s12 = 0, s22 = 0, t1 = 0, t2 = 0;
  for (size_t k = 0; k < ranks.size(); ++k) {
    if (k == skip)
      continue;
    const double x1 = c.f(double(ranks[k])), x2 = c.g(double(ranks[k]));
    s11 += x1 * x1;
    s12 += x1 * x2;
    s22 += x2 * x2;
    t1 += x1 * means[k];
    t2 += x2 * means[k];
  }
  const double det = s11 * s22 - s12 * s12;
  if (std::fabs(det) <= 1e-12 * s11 * s22)
    return std::nullopt;
  return std::pair{(t1 * s22 - t2 * s12) / det, (s11 * t2 - s12 * t1) / det};
}

double evaluate(const Curve &c, std::pair<double, double> ab, double n) {
  return ab.first * c.f(n) + (c.g ? ab.second * c.g(n) : 0);
}

/// Root mean square of the errors of predicting each sample from the
/// others (leave-one-out): what a curve would have got wrong at a rank
/// count it was not fitted to. Infinite when some subset leaves it open.
double crossValidationError(const Curve &c, const std::vector<int64_t> &ranks, const std::vector<double> &means) {
  double sse = 0;
  for (size_t k = 0; k < ranks.size(); ++k) {
    auto ab = fitCurve(c, ranks, means, k);
    if (!ab)
      return INFINITY;
    sse += std::pow(evaluate(c, *ab, double(ranks[k])) - means[k], 2);
  }
  return std::sqrt(sse / double(ranks.size()));
}

} // namespace

TimingFit fitTiming(const std::vector<int64_t> &ranks, const std::vector<double> &means, int64_t target) {
  double avg = 0;
  for (double m : means)
    avg += m / double(means.size());
  TimingFit best{"constant", std::max(0.0, avg), 0};
  double bestCv = ranks.size() >= 2 ? crossValidationError(kCurves[0], ranks, means) : 0;
  for (const Curve &c : kCurves) {
    // Leaving one sample out must leave enough to fit the curve.
    const size_t parameters = c.g ? 2 : 1;
    if (&c == &kCurves[0] || ranks.size() < parameters + 2)
      continue;
    // A curve other than the constant is chosen only when it predicts the
    // samples it was not fitted to clearly better (half the error): timings
    // are noisy, and a slope fitted to the noise between 4 and 16 ranks,
    // extrapolated to 100,000, would be a wild guess with a model's name.
    const double cv = crossValidationError(c, ranks, means);
    if (!(cv < 0.33 * bestCv))
      continue;
    auto ab = fitCurve(c, ranks, means, SIZE_MAX);
    if (!ab)
      continue;
    best = {c.name, std::max(0.0, evaluate(c, *ab, double(target))), 0};
    bestCv = cv;
  }
  // The reported error: RMS residual of the chosen curve over the samples.
  const Curve *chosen = &kCurves[0];
  for (const Curve &c : kCurves)
    if (best.model == c.name)
      chosen = &c;
  if (auto ab = fitCurve(*chosen, ranks, means, SIZE_MAX)) {
    double sse = 0;
    for (size_t k = 0; k < ranks.size(); ++k)
      sse += std::pow(evaluate(*chosen, *ab, double(ranks[k])) - means[k], 2);
    best.relativeError = avg > 0 ? std::sqrt(sse / double(ranks.size())) / avg : 0;
  }
  best.crossValidationError = avg > 0 ? bestCv / avg : 0;
  return best;
}

sio::trace::TimingStats scaleTiming(const sio::trace::TimingStats &stats, double mean) {
  if (stats.count() == 0 || stats.mean() <= 0)
    return stats;
  double f = mean / stats.mean();
  std::array<uint64_t, sio::trace::TimingStats::kBins> bins{};
  for (int b = 0; b < sio::trace::TimingStats::kBins; ++b) {
    if (!stats.histogram()[b])
      continue;
    double mid = (double(sio::trace::TimingStats::binLow(b)) + double(sio::trace::TimingStats::binHigh(b) == UINT64_MAX
                                                                          ? sio::trace::TimingStats::binLow(b)
                                                                          : sio::trace::TimingStats::binHigh(b))) /
                 2;
    bins[sio::trace::TimingStats::binOf(uint64_t(mid * f))] += stats.histogram()[b];
  }
  sio::trace::TimingStats out;
  uint64_t lo = uint64_t(double(stats.min()) * f), hi = uint64_t(double(stats.max()) * f);
  if (!out.assign(stats.count(), lo, std::max(lo, hi), stats.sum() * f, stats.sumOfSquares() * f * f, bins))
    return stats;
  return out;
}

} // namespace sio::extrap
