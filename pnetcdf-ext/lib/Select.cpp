#include "sio/part/Select.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

namespace sio::part {

Selection selectTargets(std::span<const double> bandwidths, double threshold) {
  Selection s;
  const std::size_t n = bandwidths.size();
  if (n == 0)
    return s;
  std::vector<double> bw(n);
  for (std::size_t i = 0; i < n; ++i)
    bw[i] = std::isfinite(bandwidths[i]) && bandwidths[i] > 0 ? bandwidths[i] : 0.0;
  s.order.resize(n);
  std::iota(s.order.begin(), s.order.end(), std::size_t{0});
  std::stable_sort(s.order.begin(), s.order.end(), [&](std::size_t a, std::size_t b) { return bw[a] > bw[b]; });

  s.aggregate.resize(n);
  s.slope.resize(n);
  s.count = 1;
  bool stopped = false;
  for (std::size_t i = 0; i < n; ++i) {
    s.aggregate[i] = double(i + 1) * bw[s.order[i]];
    if (i == 0) {
      s.slope[i] = 0;
      continue;
    }
    const double prev = s.aggregate[i - 1];
    s.slope[i] = prev > 0 ? (s.aggregate[i] - prev) / prev : (s.aggregate[i] > 0 ? INFINITY : -1.0);
    if (!stopped && s.slope[i] >= threshold && bw[s.order[i]] > 0)
      s.count = i + 1;
    else
      stopped = true;
  }
  return s;
}

std::optional<double> parseThreshold(std::string_view text, std::string *error) {
  auto fail = [&](const std::string &why) -> std::optional<double> {
    if (error)
      *error = "bad threshold '" + std::string(text) + "': " + why;
    return std::nullopt;
  };
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  bool percent = !text.empty() && text.back() == '%';
  if (percent)
    text.remove_suffix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  if (!text.empty() && text.front() == '+')
    text.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return fail("expected a percentage like -15% or a fraction like -0.15");
  if (percent)
    v /= 100.0;
  else if (std::fabs(v) > 1.0)
    return fail("a fraction must lie in (-1, 1]; write a percentage with '%'");
  if (!(v > -1.0 && v <= 1.0))
    return fail("must lie in (-100%, 100%]");
  return v;
}

std::vector<std::string> splitTargets(std::string_view text) {
  std::vector<std::string> out;
  while (true) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
      item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
      item.remove_suffix(1);
    if (!item.empty())
      out.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

} // namespace sio::part
