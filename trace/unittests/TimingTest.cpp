#include "sio/trace/Timing.h"

#include <gtest/gtest.h>

using sio::trace::TimingStats;

TEST(Timing, StatisticsAndHistogram) {
  TimingStats s;
  for (uint64_t v : {100, 200, 300, 400})
    s.add(v);
  EXPECT_EQ(s.count(), 4u);
  EXPECT_EQ(s.min(), 100u);
  EXPECT_EQ(s.max(), 400u);
  EXPECT_DOUBLE_EQ(s.mean(), 250.0);
  EXPECT_DOUBLE_EQ(s.variance(), 12500.0);
  EXPECT_EQ(s.histogram()[TimingStats::binOf(100)], 1u);
  EXPECT_EQ(s.histogram()[TimingStats::binOf(300)], 2u) << "256..511 share a bin";
  EXPECT_LE(TimingStats::binLow(TimingStats::binOf(300)), 300u);
  EXPECT_GE(TimingStats::binHigh(TimingStats::binOf(300)), 300u);
  EXPECT_EQ(TimingStats::binOf(0), 0);
}

TEST(Timing, MergeIsOrderIndependent) {
  TimingStats a, b, c;
  a.add(5);
  a.add(1000);
  b.add(70);
  c.add(123456);
  TimingStats left = a, right = c;
  left.merge(b);
  left.merge(c);
  right.merge(b);
  right.merge(a);
  EXPECT_EQ(left.count(), right.count());
  EXPECT_EQ(left.histogram(), right.histogram());
  EXPECT_EQ(left.min(), 5u);
  EXPECT_EQ(left.max(), 123456u);
  EXPECT_DOUBLE_EQ(left.sum(), right.sum());
}

TEST(Timing, AssignRejectsInconsistentFields) {
  TimingStats s;
  std::array<uint64_t, TimingStats::kBins> bins{};
  bins[3] = 2;
  EXPECT_TRUE(s.assign(2, 4, 7, 11, 65, bins));
  EXPECT_EQ(s.count(), 2u);
  EXPECT_FALSE(s.assign(3, 4, 7, 11, 65, bins)) << "bins must sum to count";
  EXPECT_FALSE(s.assign(2, 9, 7, 11, 65, bins)) << "min above max";
}
