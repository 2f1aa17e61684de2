#include "sio/part/ProbeCache.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace sio::part {

std::optional<CachedProbe> ProbeCache::find(const std::vector<std::string> &targets, double now,
                                            double lifetime) const {
  if (!(lifetime > 0))
    return std::nullopt;
  for (const Entry &e : entries_)
    if (e.targets == targets) {
      const double age = now - e.probe.probedAt;
      if (age >= 0 && age <= lifetime)
        return e.probe;
      return std::nullopt;
    }
  return std::nullopt;
}

void ProbeCache::store(const std::vector<std::string> &targets, CachedProbe probe) {
  for (Entry &e : entries_)
    if (e.targets == targets) {
      e.probe = std::move(probe);
      return;
    }
  entries_.push_back({targets, std::move(probe)});
}

std::optional<double> parseProbeLifetime(std::string_view text, std::string *error) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  if (text == "run")
    return std::numeric_limits<double>::infinity();
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0) {
    if (error)
      *error = "bad probe lifetime '" + std::string(text) + "': expected seconds >= 0 (0: probe every file) or 'run'";
    return std::nullopt;
  }
  return v;
}

} // namespace sio::part
