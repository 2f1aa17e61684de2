// The bandwidth probe of Son et al. 2013 §III-A: just before the files are
// created, write a small amount of dummy data to each storage target with
// O_DIRECT (so it is not absorbed by the client's page cache) and time it.
#pragma once

#include <cstdint>
#include <string>

namespace sio::part {

inline constexpr std::size_t kProbeBlock = std::size_t(1) << 20; ///< 1 MiB, the probe's write unit

struct ProbeResult {
  double bytesPerSecond = 0; ///< 0 when the probe failed
  double seconds = 0;
  std::size_t bytes = 0;
  bool direct = false; ///< O_DIRECT was used (else refused by the file system)
  std::string error;   ///< why it failed, naming the directory
};

/// Writes `bytes` (in whole 1 MiB blocks, rounded down, at least one) to a
/// temporary file in `dir`, with O_DIRECT and aligned buffers when the file
/// system accepts them, then fsync, and removes the file.
ProbeResult probeDirectory(const std::string &dir, std::size_t bytes);

} // namespace sio::part
