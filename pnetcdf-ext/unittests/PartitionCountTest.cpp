// The default partition count (sio/part/PartitionCount.h): no rank's slab
// straddles partitions when the exchange, not the targets, sets the pace,
// and one partition per selected target when slow targets do.
#include "sio/part/PartitionCount.h"

#include <gtest/gtest.h>

#include <vector>

using namespace sio::part;

namespace {
std::vector<double> equal(int s, double bw) { return std::vector<double>(std::size_t(s), bw); }
constexpr double MiB = 1048576.0;
} // namespace

TEST(StraddleFraction, ZeroExactlyWhenKDividesTheRanks) {
  for (int p = 1; p <= 64; ++p)
    for (int k = 1; k <= p; ++k) {
      double f = straddleFraction(k, p);
      if (p % k == 0)
        EXPECT_EQ(f, 0.0) << "K=" << k << " P=" << p;
      else
        EXPECT_GT(f, 0.0) << "K=" << k << " P=" << p;
      EXPECT_LT(f, 1.0);
    }
}

TEST(StraddleFraction, ThreePartitionsOverFourRanks) {
  // Rank 1 sends [1/3, 1/2) to partition 1, rank 2 [2/3, 3/4) to partition 2.
  EXPECT_DOUBLE_EQ(straddleFraction(3, 4), 0.25);
}

TEST(ChoosePartitionCount, FlashLikeOnFastTargetsAvoidsKThreeOverFourRanks) {
  // The case: 3 selected targets on tmpfs (GB/s), 4 ranks: K = 3
  // made every middle rank's slab straddle; K = 2 moves nothing.
  EXPECT_EQ(choosePartitionCount(equal(3, 2e9), 4), 2);
  EXPECT_EQ(straddleFraction(choosePartitionCount(equal(3, 2e9), 4), 4), 0.0);
}

TEST(ChoosePartitionCount, SlowTargetsGetOnePartitionEach) {
  // The benchmark's setting: 7 throttled targets of 16 MiB/s selected, 8 ranks.
  EXPECT_EQ(choosePartitionCount(equal(7, 16 * MiB), 8), 7);
  EXPECT_EQ(choosePartitionCount(equal(7, 16 * MiB), 2), 2); // fewer ranks: one partition per rank
  EXPECT_EQ(choosePartitionCount(equal(3, 16 * MiB), 3), 3);
  EXPECT_EQ(choosePartitionCount(equal(1, 16 * MiB), 1), 1);
  EXPECT_EQ(choosePartitionCount(equal(156, 16 * MiB), 10000), 156);
  EXPECT_EQ(choosePartitionCount({}, 8), 1);
}

TEST(ChoosePartitionCount, PropertyAlignedWhenTheExchangeDecidesAndOnePerTargetWhenTargetsDo) {
  for (int p = 1; p <= 48; ++p)
    for (int s = 1; s <= 16; ++s) {
      int fast = choosePartitionCount(equal(s, 100e9), p); // targets far faster than the exchange
      EXPECT_EQ(p % fast, 0) << "S=" << s << " P=" << p << " K=" << fast;
      int slow = choosePartitionCount(equal(s, 1 * MiB), p); // targets far slower
      EXPECT_EQ(slow, std::min(s, p)) << "S=" << s << " P=" << p;
    }
}

TEST(ChoosePartitionCount, NeverMoreThanTheRanks) {
  for (int p = 1; p <= 20; ++p)
    for (double bw : {1e6, 1e8, 1e9, 1e10})
      EXPECT_LE(choosePartitionCount(equal(9, bw), p), p);
}
