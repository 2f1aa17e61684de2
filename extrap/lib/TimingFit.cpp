#include "TimingFit.h"

#include <cmath>

namespace sio::extrap {

namespace {

// Least squares for y = a*f(N) + b*g(N) (g may be absent).
struct Curve {
  const char *name;
  double (*f)(double);
  double (*g)(double); // nullptr: one-parameter curve
};

double one(double) { return 1; }
double linear(double n) { return n; }
double inverse(double n) { return 1 / n; }

} // namespace

TimingFit fitTiming(const std::vector<int64_t> &ranks, const std::vector<double> &means, int64_t target) {
  static const Curve curves[] = {{"constant", one, nullptr},
                                 {"linear", one, linear},
                                 {"inverse", inverse, nullptr},
                                 {"inverse + constant", one, inverse}};
  double avg = 0;
  for (double m : means)
    avg += m / double(means.size());
  TimingFit best{"constant", avg, INFINITY};
  for (const Curve &c : curves) {
    double a = 0, b = 0;
    if (!c.g) {
      double num = 0, den = 0;
      for (size_t k = 0; k < ranks.size(); ++k) {
        double x = c.f(double(ranks[k]));
        num += x * means[k];
        den += x * x;
      }
      a = den > 0 ? num / den : 0;
    } else {
      // Normal equations of the 2x2 system.
      double s11 = 0, s12 = 0, s22 = 0, t1 = 0, t2 = 0;
      for (size_t k = 0; k < ranks.size(); ++k) {
        double x1 = c.f(double(ranks[k])), x2 = c.g(double(ranks[k]));
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        t1 += x1 * means[k];
        t2 += x2 * means[k];
      }
      double det = s11 * s22 - s12 * s12;
      if (std::fabs(det) < 1e-300)
        continue;
      a = (t1 * s22 - t2 * s12) / det;
      b = (s11 * t2 - s12 * t1) / det;
    }
    auto model = [&](double n) { return a * c.f(n) + (c.g ? b * c.g(n) : 0); };
    double sse = 0;
    for (size_t k = 0; k < ranks.size(); ++k)
      sse += std::pow(model(double(ranks[k])) - means[k], 2);
    double err = avg > 0 ? std::sqrt(sse / double(ranks.size())) / avg : 0;
    // A two-parameter curve must beat a one-parameter one clearly to be chosen.
    if (err + (c.g ? 1e-3 : 0) < best.relativeError) {
      best = {c.name, std::max(0.0, model(double(target))), err};
    }
  }
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
    double mid = (double(sio::trace::TimingStats::binLow(b)) + double(sio::trace::TimingStats::binHigh(b) == UINT64_MAX ? sio::trace::TimingStats::binLow(b) : sio::trace::TimingStats::binHigh(b))) / 2;
    bins[sio::trace::TimingStats::binOf(uint64_t(mid * f))] += stats.histogram()[b];
  }
  sio::trace::TimingStats out;
  uint64_t lo = uint64_t(double(stats.min()) * f), hi = uint64_t(double(stats.max()) * f);
  if (!out.assign(stats.count(), lo, std::max(lo, hi), stats.sum() * f, stats.sumOfSquares() * f * f, bins))
    return stats;
  return out;
}

} // namespace sio::extrap
