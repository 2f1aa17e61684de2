// The probe's early stop (docs/partitioning.md, "The probe"): a target still
// writing when the deadline passes stops after the chunk it is writing and
// reports what it wrote by then.
#include "sio/part/Probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <unistd.h>

using namespace sio::part;

namespace {

std::string tempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/sio-probe-test-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ProbeDirectory, WritesTheWholeBlockWithoutDeadline) {
  std::string dir = tempDir();
  ProbeResult r = probeDirectory(dir, 2 * kProbeBlock);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.bytes, 2 * kProbeBlock);
  EXPECT_FALSE(r.stopped);
  EXPECT_GT(r.bytesPerSecond, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir)); // the probe file is removed
  std::filesystem::remove_all(dir);
}

TEST(ProbeDirectory, StopsAfterOneChunkWhenTheDeadlineHasPassed) {
  std::string dir = tempDir();
  ProbeDeadline deadline;
  deadline.limit(0.0);
  ProbeResult r = probeDirectory(dir, 4 * kProbeBlock, &deadline);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.bytes, kProbeChunk);
  EXPECT_GT(r.bytesPerSecond, 0);
  std::filesystem::remove_all(dir);
}

// A target clearly slower than the first finisher (here: the first target
// wrote its 4 MiB in 1 us, 4 TB/s, far above any disk or tmpfs) stops
// after its first chunk, although the deadline has not passed.
TEST(ProbeDirectory, StopsWhenClearlySlowerThanTheFirstFinish) {
  std::string dir = tempDir();
  ProbeDeadline deadline;
  deadline.firstFinish = 1e-6;
  ASSERT_TRUE(std::isinf(deadline.seconds.load()));
  ProbeResult r = probeDirectory(dir, 4 * kProbeBlock, &deadline);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.bytes, kProbeChunk);
  EXPECT_GT(r.bytesPerSecond, 0);
  std::filesystem::remove_all(dir);
}

// A target faster than half the first finisher's bandwidth (4 MiB in 100 s)
// writes its whole block.
TEST(ProbeDirectory, WritesOnWhenNotClearlySlower) {
  std::string dir = tempDir();
  ProbeDeadline deadline;
  deadline.firstFinish = 100.0;
  ProbeResult r = probeDirectory(dir, 4 * kProbeBlock, &deadline);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(r.bytes, 4 * kProbeBlock);
  std::filesystem::remove_all(dir);
}

// The benchmark's round: the first target wrote 1 MiB in 62.5 ms (16 MiB/s).
TEST(ClearlySlower, ComparesEqualWindowsOnly) {
  const std::size_t block = kProbeBlock;
  const double first = 0.0625;
  // The 4 MiB/s target after 70 ms: 280 KiB, a quarter of the rate: stop.
  EXPECT_TRUE(clearlySlower(4 * kProbeChunk, 0.070, block, first));
  // A target at 60 % of the rate: writes on (to the deadline or its block).
  EXPECT_FALSE(clearlySlower(10 * kProbeChunk, 0.070, block, first));
  // A thread that started late: one chunk in 12 ms (5.5 MB/s) is a window
  // shorter than the first finisher's, not judged.
  EXPECT_FALSE(clearlySlower(kProbeChunk, 0.012, block, first));
  // No first finish yet.
  EXPECT_FALSE(clearlySlower(kProbeChunk, 1.0, block, std::numeric_limits<double>::infinity()));
}

TEST(ProbeDeadline, FinishedSetsTheFirstFinishAndTheDeadline) {
  ProbeDeadline deadline;
  deadline.finished(0.5);
  deadline.finished(0.8);
  EXPECT_EQ(deadline.firstFinish.load(), 0.5);
  EXPECT_EQ(deadline.seconds.load(), kProbeDeadlineFactor * 0.5);
}

TEST(ProbeDeadline, OnlyMovesEarlier) {
  ProbeDeadline deadline;
  deadline.limit(2.0);
  deadline.limit(3.0);
  EXPECT_EQ(deadline.seconds.load(), 2.0);
  deadline.limit(1.0);
  EXPECT_EQ(deadline.seconds.load(), 1.0);
}

} // namespace
