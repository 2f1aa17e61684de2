#include "sio/prefetch/Predictor.h"

#include <gtest/gtest.h>

using namespace sio::prefetch;
using namespace sio::signature;

namespace {

TraceSignature strided(int64_t init, int64_t stride, int64_t size, int64_t count) {
  TraceSignature t;
  t.initialPosition = init;
  Component c;
  c.stride = stride;
  c.size.progression = {size, 0};
  c.count = {count, 0};
  t.components.push_back(c);
  return t;
}

TEST(ExpandSignature, NestedStridedFollowsTheNotation) {
  // {READ, 0, 2, ([100, 10, 3], [1000, 10, 1]), 2 cycles}: 0,100,200 then
  // +1000.
  TraceSignature t = strided(0, 100, 10, 3);
  Component c2;
  c2.stride = 1000;
  c2.size.progression = {10, 0};
  c2.count = {1, 0};
  t.components.push_back(c2);
  t.cycles = 2;
  auto plan = expandSignature(t);
  ASSERT_TRUE(plan);
  std::vector<int64_t> offs;
  for (auto &a : *plan)
    offs.push_back(a.offset);
  EXPECT_EQ(offs, (std::vector<int64_t>{0, 100, 200, 300, 1300, 1400, 1500, 1600}));
}

TEST(ExpandSignature, LoopNestLevelByLevel) {
  // [(1000, 100), 10, (2, 2, 3)] from 50: 50 + 1000*i + 100*j + 10*k.
  TraceSignature t = strided(50, 10, 10, 3);
  t.components[0].nest = {{1000, 2}, {100, 2}};
  auto plan = expandSignature(t);
  ASSERT_TRUE(plan);
  std::vector<int64_t> offs;
  for (auto &a : *plan)
    offs.push_back(a.offset);
  EXPECT_EQ(offs, (std::vector<int64_t>{50, 60, 70, 150, 160, 170, 1050, 1060, 1070, 1150, 1160, 1170}));
}

TEST(ExpandSignature, ContiguousPiecesByTheirSizes) {
  TraceSignature t = strided(7, 0, 0, 4);
  t.components[0].strideKind = StrideKind::Contiguous;
  t.components[0].size.regular = false;
  t.components[0].size.min = 3;
  t.components[0].size.max = 900;
  t.components[0].size.values = {100, 3, 900, 50};
  auto plan = expandSignature(t);
  ASSERT_TRUE(plan);
  EXPECT_EQ(*plan, (std::vector<Access>{{7, 100}, {107, 3}, {110, 900}, {1010, 50}}));
  t.components[0].size.values.clear(); // sizes not listed: no plan
  EXPECT_FALSE(expandSignature(t));
}

TEST(ExpandSignature, RepetitionsStartOver) {
  TraceSignature t = strided(0, 8192, 4096, 2);
  t.repetitions = 2;
  auto plan = expandSignature(t);
  ASSERT_TRUE(plan);
  EXPECT_EQ(*plan, (std::vector<Access>{{0, 4096}, {8192, 4096}, {0, 4096}, {8192, 4096}}));
}

TEST(ExpandSignature, RandomHasNoPlan) {
  TraceSignature t = strided(0, 100, 10, 3);
  t.components[0].strideKind = StrideKind::Random;
  EXPECT_FALSE(expandSignature(t));
}

TEST(Predictor, FirstReadSetsInitialPositionThenStable) {
  Predictor p(*expandSignature(strided(0, 4096, 512, 100)));
  EXPECT_EQ(p.state(), PredictorState::Learning);
  EXPECT_TRUE(p.upcoming(8).empty());
  EXPECT_FALSE(p.observe(1 << 20, 512)); // this rank starts 1 MiB in
  EXPECT_EQ(p.state(), PredictorState::Stable);
  auto next = p.upcoming(3);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0], (Access{(1 << 20) + 4096, 512}));
  EXPECT_EQ(next[2], (Access{(1 << 20) + 3 * 4096, 512}));
  EXPECT_TRUE(p.observe((1 << 20) + 4096, 512));
  EXPECT_EQ(p.upcoming(1)[0].offset, (1 << 20) + 2 * 4096);
}

TEST(Predictor, RankRulePlacesThePlanBeforeTheFirstRead) {
  // The signature says this rank starts 1 MiB in: predicted before any read,
  // so the first reads can be prefetched (Byna et al. SC08 §V-C).
  Predictor p(*expandSignature(strided(0, 4096, 512, 100)), int64_t(1) << 20);
  EXPECT_EQ(p.state(), PredictorState::Stable);
  auto next = p.upcoming(2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], (Access{1 << 20, 512}));
  EXPECT_EQ(next[1], (Access{(1 << 20) + 4096, 512}));
  EXPECT_TRUE(p.observe(1 << 20, 512)); // the first read was predicted
  EXPECT_EQ(p.upcoming(1)[0].offset, (1 << 20) + 4096);
}

TEST(Predictor, FirstReadElsewhereReplacesARankRulePlacement) {
  // A rank rule that does not fit this run: the first read places the plan.
  Predictor p(*expandSignature(strided(0, 4096, 512, 100)), int64_t(1) << 20);
  EXPECT_FALSE(p.observe(3 << 20, 512));
  EXPECT_EQ(p.state(), PredictorState::Stable);
  EXPECT_EQ(p.upcoming(1)[0].offset, (3 << 20) + 4096);
  EXPECT_TRUE(p.observe((3 << 20) + 4096, 512));
}

TEST(Predictor, SkippingAheadAdjustsThePosition) {
  Predictor p(*expandSignature(strided(0, 4096, 512, 100)));
  p.observe(0, 512);
  EXPECT_FALSE(p.observe(10 * 4096, 512));
  EXPECT_EQ(p.state(), PredictorState::Adjust);
  EXPECT_EQ(p.adjustments(), 1u);
  EXPECT_EQ(p.upcoming(1)[0].offset, 11 * 4096);
  EXPECT_TRUE(p.observe(11 * 4096, 512));
  EXPECT_EQ(p.state(), PredictorState::Stable);
}

TEST(Predictor, WrongSignatureFallsBackToOnlineLearning) {
  Predictor p(*expandSignature(strided(0, 4096, 512, 100)));
  // The application actually reads with a 1000-byte stride.
  for (int i = 0; i < 4; ++i)
    p.observe(i * 1000, 100);
  EXPECT_TRUE(p.abandonedSignature());
  EXPECT_FALSE(p.followsSignature());
  for (int i = 4; i < 8; ++i)
    p.observe(i * 1000, 100);
  EXPECT_EQ(p.state(), PredictorState::Stable);
  auto next = p.upcoming(2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], (Access{8000, 100}));
  EXPECT_EQ(next[1], (Access{9000, 100}));
}

TEST(Predictor, OnlineLearnsNestedStrides) {
  Predictor p;
  std::vector<int64_t> offs;
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 2; ++j)
      offs.push_back(r * 10000 + j * 100);
  for (auto o : offs)
    p.observe(o, 50);
  EXPECT_EQ(p.state(), PredictorState::Stable);
  auto next = p.upcoming(3);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0].offset, 40000);
  EXPECT_EQ(next[1].offset, 40100);
  EXPECT_EQ(next[2].offset, 50000);
}

// Groups of four (PIO-Bench's nested strided): the whole next group and the
// start of the one after are predicted once the cycle is learnt.
TEST(Predictor, OnlineLearnsGroupsOfFour) {
  Predictor p;
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 4; ++j)
      p.observe(r * 1000000 + j * 2000, 1000);
  EXPECT_EQ(p.state(), PredictorState::Stable);
  auto next = p.upcoming(5);
  ASSERT_EQ(next.size(), 5u);
  EXPECT_EQ(next[0].offset, 3000000);
  EXPECT_EQ(next[1].offset, 3002000);
  EXPECT_EQ(next[3].offset, 3006000);
  EXPECT_EQ(next[4].offset, 4000000);
}

TEST(Predictor, OnlineLearningPrefetchesTheHypothesisTentatively) {
  // Two reads make a stride hypothesis: before it is confirmed (stable), the
  // one access it expects is predicted, so the third read can be a hit.
  Predictor p;
  EXPECT_FALSE(p.predicts());
  p.observe(0, 4096);
  EXPECT_TRUE(p.upcoming(8).empty());
  p.observe(1 << 20, 4096);
  EXPECT_EQ(p.state(), PredictorState::Learning);
  EXPECT_TRUE(p.predicts());
  auto next = p.upcoming(8);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0], (Access{2 << 20, 4096}));
}

TEST(Predictor, OnlineRandomNeverPredicts) {
  Predictor p;
  const int64_t offs[] = {9, 4000, 77, 123456, 5, 999999, 31, 424242, 1, 60000};
  for (auto o : offs)
    p.observe(o, 10);
  EXPECT_TRUE(p.upcoming(8).empty());
}

} // namespace
