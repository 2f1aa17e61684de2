// Reuse of a probe across the files of one run. Son et al. 2013 §III-A probes
// at each file creation; a program that creates several files in a row over
// the same targets (FLASH-IO: a checkpoint and two plot files within seconds)
// paid a probe of 2-5 rounds per file, which for small files cost more than
// partitioning saved (docs/partitioning.md, "FLASH-IO and S3D against tuned
// ROMIO"). So a confident probe's rounds are kept per target list for a
// lifetime (hint sio_part_probe_lifetime, default kDefaultProbeLifetime
// seconds; 0 probes every file), and the selection is computed again from
// them with the new file's threshold: reused only when that is confident
// too. No MPI or I/O here: lib/ProbeTargets.cpp decides on rank 0 and broadcasts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sio::part {

/// Seconds a probe is reused: long enough for the files one output step of
/// an application writes (FLASH-IO's three), short enough that the next
/// step, typically minutes later, probes again (the paper's premise: the
/// targets' load fluctuates).
inline constexpr double kDefaultProbeLifetime = 60.0;

struct CachedProbe {
  std::vector<std::vector<double>> rounds; ///< rounds[j][t], as given to selectFromRounds
  double probedAt = 0;                     ///< seconds (the caller's clock) when the probe ended
  double probeSeconds = 0;                 ///< what the probe took
};

class ProbeCache {
public:
  /// The probe of exactly these targets (same list, same order) that ended
  /// at most `lifetime` seconds before `now`; nothing when there is none,
  /// or `lifetime` is 0.
  std::optional<CachedProbe> find(const std::vector<std::string> &targets, double now, double lifetime) const;
  /// Keeps (replaces) the probe of these targets.
  void store(const std::vector<std::string> &targets, CachedProbe probe);

private:
  struct Entry {
    std::vector<std::string> targets;
    CachedProbe probe;
  };
  std::vector<Entry> entries_;
};

/// Parses sio_part_probe_lifetime: seconds >= 0 ("30", "0.5"; 0: probe every
/// file) or "run" (the whole run). Returns nothing (and sets *error) otherwise.
std::optional<double> parseProbeLifetime(std::string_view text, std::string *error = nullptr);

} // namespace sio::part
