// The probe's early stop (docs/partitioning.md, "The probe"): a target still
// writing when the deadline passes stops after the chunk it is writing and
// reports what it wrote by then.
#include "sio/part/Probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
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
// wrote its 4 MiB in 0.1 ms, 40 GB/s, far above any disk or tmpfs) stops
// after its first chunk, although the deadline has not passed.
TEST(ProbeDirectory, StopsWhenClearlySlowerThanTheFirstFinish) {
  std::string dir = tempDir();
  ProbeDeadline deadline;
  deadline.firstFinish = 1e-4;
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
