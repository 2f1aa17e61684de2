// The probe's early stop (docs/partitioning.md, "The probe"): a target still
// writing when the deadline passes stops after the chunk it is writing and
// reports what it wrote by then.
#include "sio/part/Probe.h"

#include <gtest/gtest.h>

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

TEST(ProbeDeadline, OnlyMovesEarlier) {
  ProbeDeadline deadline;
  deadline.limit(2.0);
  deadline.limit(3.0);
  EXPECT_EQ(deadline.seconds.load(), 2.0);
  deadline.limit(1.0);
  EXPECT_EQ(deadline.seconds.load(), 1.0);
}

} // namespace
