#include "sio/part/Select.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace sio::part;

namespace {

std::vector<std::size_t> sorted(std::vector<std::size_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The shape of Son et al. 2013 Figure 2: 156 OSTs; the estimated aggregate
// bandwidth i * B(i) peaks at 128 OSTs, declines gently to 144, and falls
// sharply when the 145th OST (one of 12 below 50 MB/s) is added.
std::vector<double> hopperShape() {
  std::vector<double> bw;
  for (int i = 0; i < 128; ++i)
    bw.push_back(420.0 - 0.3 * i); // 420 .. 381.9 MB/s: aggregate rises
  for (int i = 0; i < 16; ++i)
    bw.push_back(370.0 - 4.0 * i); // 370 .. 310: aggregate declines ~1-2 % a step
  for (int i = 0; i < 12; ++i)
    bw.push_back(48.0 - 2.5 * i); // 48 .. 20.5 MB/s: the slow OSTs
  return bw;
}

TEST(SelectTargets, PaperShapeExcludesTheTwelveSlowTargets) {
  std::vector<double> bw = hopperShape();
  // Probe results arrive in target order, not sorted: shuffle them.
  std::vector<std::size_t> perm(bw.size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
  std::vector<double> probed(bw.size());
  std::vector<std::size_t> fastIndices;
  for (std::size_t i = 0; i < bw.size(); ++i) {
    probed[perm[i]] = bw[i];
    if (bw[i] >= 50)
      fastIndices.push_back(perm[i]);
  }
  Selection s = selectTargets(probed);
  EXPECT_EQ(s.count, 144u);
  EXPECT_EQ(sorted(s.selected()), sorted(fastIndices));
  for (std::size_t i = 0; i < s.count; ++i)
    EXPECT_GE(probed[s.order[i]], 50.0);
  // The aggregate estimate peaks at 128 targets, yet the rule keeps adding
  // targets while the decline stays above -15 % (more targets, the paper's goal).
  auto peak = std::max_element(s.aggregate.begin(), s.aggregate.end()) - s.aggregate.begin();
  EXPECT_EQ(peak, 127);
  EXPECT_LT(s.slope[144], -0.15);
  for (std::size_t i = 1; i < 144; ++i)
    EXPECT_GE(s.slope[i], -0.15) << i;
}

TEST(SelectTargets, AllEqualSelectsAll) {
  std::vector<double> bw(156, 250.0);
  Selection s = selectTargets(bw);
  EXPECT_EQ(s.count, 156u);
  // Ties keep the listed order.
  for (std::size_t i = 0; i < bw.size(); ++i)
    EXPECT_EQ(s.order[i], i);
  EXPECT_DOUBLE_EQ(s.aggregate.back(), 156 * 250.0);
}

TEST(SelectTargets, OneSlowTargetIsLeftOutWhereverItIs) {
  for (std::size_t slow = 0; slow < 8; ++slow) {
    std::vector<double> bw(8, 100.0);
    bw[slow] = 25.0; // 4x slower
    Selection s = selectTargets(bw);
    EXPECT_EQ(s.count, 7u) << slow;
    auto sel = s.selected();
    EXPECT_EQ(std::find(sel.begin(), sel.end(), slow), sel.end()) << slow;
    EXPECT_NEAR(s.slope[7], (8 * 25.0 - 7 * 100.0) / (7 * 100.0), 1e-12);
  }
}

TEST(SelectTargets, SlightlySlowerTargetIsKept) {
  // 8 * 90 = 720 > 7 * 100: adding it still raises the aggregate.
  std::vector<double> bw = {100, 100, 90, 100, 100, 100, 100, 100};
  EXPECT_EQ(selectTargets(bw).count, 8u);
}

TEST(SelectTargets, ThresholdDecidesAtTheBoundary) {
  // Adding the 5th target at 60: A goes 400 -> 300, a slope of -25 %.
  std::vector<double> bw = {100, 100, 100, 100, 60};
  EXPECT_EQ(selectTargets(bw, -0.15).count, 4u);
  EXPECT_EQ(selectTargets(bw, -0.25).count, 5u);
  EXPECT_EQ(selectTargets(bw, -0.2499).count, 4u);
  // A positive threshold demands growth: 2 * 100 - 100 = +100 %, but 3rd -> +50 %.
  EXPECT_EQ(selectTargets(bw, 0.6).count, 2u);
}

TEST(SelectTargets, StopsAtTheFirstSteepDropEvenIfLaterStepsRecover) {
  // 100,100,40,39: A = 100,200,120,156. The drop at 3 ends the prefix.
  std::vector<double> bw = {100, 100, 40, 39};
  Selection s = selectTargets(bw);
  EXPECT_EQ(s.count, 2u);
  EXPECT_GT(s.slope[3], 0);
}

TEST(SelectTargets, FailedProbesAreNeverSelectedUnlessAlone) {
  std::vector<double> bw = {0.0, 80.0, NAN, 80.0, -1.0};
  Selection s = selectTargets(bw);
  EXPECT_EQ(sorted(s.selected()), (std::vector<std::size_t>{1, 3}));
  std::vector<double> none = {0.0, NAN};
  EXPECT_EQ(selectTargets(none).count, 1u);
  EXPECT_EQ(selectTargets(std::vector<double>{}).count, 0u);
  std::vector<double> one = {5.0};
  EXPECT_EQ(selectTargets(one).count, 1u);
}

TEST(ParseThreshold, PercentAndFraction) {
  EXPECT_DOUBLE_EQ(*parseThreshold("-15%"), -0.15);
  EXPECT_DOUBLE_EQ(*parseThreshold(" -0.15 "), -0.15);
  EXPECT_DOUBLE_EQ(*parseThreshold("-50 %"), -0.5);
  EXPECT_DOUBLE_EQ(*parseThreshold("+5%"), 0.05);
  std::string err;
  EXPECT_FALSE(parseThreshold("-15", &err));
  EXPECT_NE(err.find("percentage"), std::string::npos) << err;
  EXPECT_FALSE(parseThreshold("-100%", &err));
  EXPECT_FALSE(parseThreshold("abc", &err));
  EXPECT_NE(err.find("'abc'"), std::string::npos) << err;
  EXPECT_FALSE(parseThreshold("", &err));
}

TEST(SplitTargets, CommaSeparated) {
  EXPECT_EQ(splitTargets("/a, /b ,,/c"), (std::vector<std::string>{"/a", "/b", "/c"}));
  EXPECT_TRUE(splitTargets("").empty());
  EXPECT_EQ(splitTargets("/only"), (std::vector<std::string>{"/only"}));
}

} // namespace
