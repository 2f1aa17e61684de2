// The bandwidth probe of Son et al. 2013 §III-A: just before the files are
// created, write a small amount of dummy data to each storage target with
// O_DIRECT (so it is not absorbed by the client's page cache) and time it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

namespace sio::part {

inline constexpr std::size_t kProbeBlock = std::size_t(1) << 20; ///< 1 MiB, the least a target is probed with
inline constexpr std::size_t kProbeChunk = std::size_t(1) << 16; ///< 64 KiB, one write() of the probe

/// When the probes of several targets run at once: a target still writing
/// when the deadline (seconds since `start`) passes stops after the chunk
/// it is writing, and its bandwidth is what it wrote by then over the time
/// it took. The caller moves the deadline earlier as the other targets
/// finish (see kProbeDeadlineFactor), and gives the time the first target
/// finished its block (`firstFinish`), after which a target clearly slower
/// than that one stops at once (kProbeSeparatedFraction).
struct ProbeDeadline {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::atomic<double> seconds{std::numeric_limits<double>::infinity()};
  /// Seconds since `start` at which the first target anywhere finished its block.
  std::atomic<double> firstFinish{std::numeric_limits<double>::infinity()};
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  /// Moves the deadline to `at` if that is earlier.
  void limit(double at) { lower(seconds, at); }
  /// A target finished its block `at` seconds after the start: the first
  /// finish and the deadline (kProbeDeadlineFactor times it) move earlier.
  void finished(double at);

private:
  static void lower(std::atomic<double> &v, double at) {
    double cur = v.load();
    while (at < cur && !v.compare_exchange_weak(cur, at)) {
    }
  }
};

/// The deadline is this many times the time the first target took to finish
/// its block: a target still writing then is less than half as fast as the
/// fastest, which the selection rule excludes at any threshold above -50 %,
/// and what it wrote by then gives its bandwidth.
inline constexpr double kProbeDeadlineFactor = 2.0;

/// Once the first target has finished its block (in t1 seconds), a target
/// still writing whose bandwidth so far is below this fraction of that one's
/// (block / t1) stops after the chunk in progress instead of writing on to
/// the deadline: it is already clearly separated, less than half as fast as
/// the fastest, which the selection rule leaves out at any threshold above
/// -50 %, as the deadline's stop does. In the benchmark's round (7 targets
/// at 16 MiB/s, one at 4 MiB/s) the slow target so stopped at t1 plus one
/// chunk instead of 2 x t1: 78 instead of 140 ms per round.
inline constexpr double kProbeSeparatedFraction = 0.5;

/// Whether a target that has written `written` of `total` bytes in its own
/// `mine` seconds is clearly slower than the first finisher, which wrote
/// `total` in `first` seconds: its bandwidth is below kProbeSeparatedFraction
/// of that one's over a window at least as long (`mine` >= `first`). A
/// shorter window is not judged: under load a target's thread can start
/// late and then have written one chunk whose time is mostly noise
/// (bench/partitioning.sh at load 34-54 stopped a fast target after one
/// 64 KiB chunk in 12 ms when any window counted).
inline bool clearlySlower(std::size_t written, double mine, std::size_t total, double first) {
  return mine >= first && double(written) * first < kProbeSeparatedFraction * double(total) * mine;
}

inline void ProbeDeadline::finished(double at) {
  lower(firstFinish, at);
  limit(kProbeDeadlineFactor * at);
}

struct ProbeResult {
  double bytesPerSecond = 0; ///< 0 when the probe failed
  double seconds = 0;
  std::size_t bytes = 0;
  bool direct = false;  ///< O_DIRECT was used (else refused by the file system)
  bool stopped = false; ///< stopped at the deadline before writing all of `bytes`
  std::string error;    ///< why it failed, naming the directory
};

/// Writes `bytes` (in whole 1 MiB blocks, rounded down, at least one) to a
/// temporary file in `dir`, in 64 KiB writes, with O_DIRECT and aligned
/// buffers when the file system accepts them, then fsync, and removes the
/// file. With a deadline, stops early when it passes, or once a first finish
/// is known when this target's bandwidth so far is below
/// kProbeSeparatedFraction of the first finisher's (after one chunk at
/// least).
ProbeResult probeDirectory(const std::string &dir, std::size_t bytes, const ProbeDeadline *deadline = nullptr);

} // namespace sio::part
