// Figure 3's states, one offset at a time.
#include "sio/signature/Signature.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace sio::signature {
namespace {

TEST(SignatureOnline, FixedStrideGoesInitLearningStable) {
  OnlineDetector d;
  EXPECT_EQ(d.state(), DetectorState::Init);
  d.observe(0);
  EXPECT_EQ(d.state(), DetectorState::Init);
  d.observe(8192);
  EXPECT_EQ(d.state(), DetectorState::Learning);
  EXPECT_EQ(d.kind(), Spatial::FixedStrided);
  d.observe(16384);
  EXPECT_EQ(d.state(), DetectorState::Learning);
  d.observe(24576);
  EXPECT_EQ(d.state(), DetectorState::Stable);
  EXPECT_EQ(d.predictNext(), 32768);
}

TEST(SignatureOnline, NegativeStride) {
  OnlineDetector d;
  for (int64_t o : {100000, 96000, 92000, 88000})
    d.observe(o);
  EXPECT_EQ(d.state(), DetectorState::Stable);
  EXPECT_EQ(d.kind(), Spatial::NegativeStrided);
  EXPECT_EQ(d.predictNext(), 84000);
}

TEST(SignatureOnline, NestedStridesBecomeTwoDimensional) {
  OnlineDetector d;
  int64_t o = 0;
  for (int i = 0; i < 8; ++i) {
    d.observe(o);
    o += i % 2 ? 12288 : 4096;
  }
  EXPECT_EQ(d.state(), DetectorState::Stable);
  EXPECT_EQ(d.kind(), Spatial::KdStrided);
  EXPECT_EQ(d.dimension(), 2);
  EXPECT_EQ(d.predictNext(), o);
}

// PIO-Bench's nested strided reads: groups of 4 accesses, so a stride cycle
// of period 4 (three short strides, one long). The Markov chain would miss
// the long stride of every group; the cycle predicts all of them.
TEST(SignatureOnline, GroupsOfFourAreACycleOfPeriodFour) {
  OnlineDetector d;
  std::vector<int64_t> offsets;
  for (int g = 0; g < 4; ++g)
    for (int j = 0; j < 4; ++j)
      offsets.push_back(int64_t(g) * 4 * (1 << 20) + j * 131072);
  // The first group looks like a fixed stride until its long stride comes;
  // from the second group on, every stable prediction is right.
  int stableMisses = 0;
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (i > 4 && d.state() == DetectorState::Stable && d.predictNext() != offsets[i])
      ++stableMisses;
    d.observe(offsets[i]);
  }
  EXPECT_EQ(stableMisses, 0);
  EXPECT_EQ(d.state(), DetectorState::Stable);
  EXPECT_EQ(d.kind(), Spatial::KdStrided);
  EXPECT_EQ(d.dimension(), 4);
  EXPECT_EQ(d.predictNext(), 4 * 4 * (1 << 20));
}

TEST(SignatureOnline, ChangeOfStrideGoesBackToLearning) {
  OnlineDetector d;
  for (int64_t o : {0, 10, 20, 30, 40})
    d.observe(o);
  ASSERT_EQ(d.state(), DetectorState::Stable);
  d.observe(1000);
  EXPECT_NE(d.state(), DetectorState::Stable);
  for (int64_t o : {1960, 2920, 3880})
    d.observe(o);
  EXPECT_EQ(d.state(), DetectorState::Stable);
  EXPECT_EQ(d.predictNext(), 4840);
}

TEST(SignatureOnline, RandomOffsetsRarelyLookStable) {
  OnlineDetector d;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> block(0, 1 << 20);
  int stable = 0;
  for (int i = 0; i < 1000; ++i) {
    d.observe(block(rng) * 4096);
    stable += d.state() == DetectorState::Stable;
  }
  EXPECT_EQ(stable, 0);
}

} // namespace
} // namespace sio::signature
