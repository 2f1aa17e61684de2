#include "sio/part/Layout.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace sio::part;

namespace {

TEST(PartitionRange, PaperFigure5AndBalancedBlocks) {
  EXPECT_EQ(partitionRange(100, 2, 0), (Range{0, 49}));
  EXPECT_EQ(partitionRange(100, 2, 1), (Range{50, 99}));
  // 10 in 3: 4, 3, 3 and the blocks tile the dimension.
  EXPECT_EQ(partitionRange(10, 3, 0), (Range{0, 3}));
  EXPECT_EQ(partitionRange(10, 3, 1), (Range{4, 6}));
  EXPECT_EQ(partitionRange(10, 3, 2), (Range{7, 9}));
  for (int64_t len : {1, 7, 8, 64, 1000})
    for (int k = 1; k <= 8 && k <= len; ++k) {
      int64_t next = 0;
      for (int p = 0; p < k; ++p) {
        Range r = partitionRange(len, k, p);
        EXPECT_EQ(r.lo, next);
        EXPECT_GE(r.size(), len / k);
        EXPECT_LE(r.size(), len / k + 1);
        next = r.hi + 1;
      }
      EXPECT_EQ(next, len);
    }
}

TEST(SplitRequest, PaperExampleBlockBlock) {
  // §III-C: 100x100x100 in 2 partitions; P0 requests start {0,0,0} count
  // {100,50,50}: {0,0,0}x{50,50,50} in its own partition and the rest in the
  // other, at local start 0.
  std::vector<int64_t> start = {0, 0, 0}, count = {100, 50, 50};
  auto subs = splitRequest(start, count, {}, 0, 100, 2);
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].part, 0);
  EXPECT_EQ(subs[0].start, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(subs[0].count, (std::vector<int64_t>{50, 50, 50}));
  EXPECT_EQ(subs[1].part, 1);
  EXPECT_EQ(subs[1].start, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(subs[1].count, (std::vector<int64_t>{50, 50, 50}));
  EXPECT_EQ(subs[1].first, 50);
}

TEST(SplitRequest, StridedCoversEveryIndexOnce) {
  // Every (start, count, stride) along a dimension of 23 in k partitions: the
  // sub-requests map back to exactly the requested indices, in order.
  const int64_t len = 23;
  for (int k = 1; k <= 8; ++k)
    for (int64_t s = 0; s < len; ++s)
      for (int64_t st = 1; st <= 5; ++st)
        for (int64_t n = 1; s + (n - 1) * st < len; ++n) {
          std::vector<int64_t> start = {2, s}, count = {3, n}, stride = {1, st};
          auto subs = splitRequest(start, count, stride, 1, len, k);
          std::vector<int64_t> got;
          int64_t expectFirst = 0;
          for (auto &sub : subs) {
            EXPECT_EQ(sub.first, expectFirst);
            expectFirst += sub.num;
            Range r = partitionRange(len, k, sub.part);
            EXPECT_EQ(sub.start[0], 2);
            EXPECT_EQ(sub.count[0], 3);
            for (int64_t i = 0; i < sub.count[1]; ++i) {
              int64_t global = r.lo + sub.start[1] + i * st;
              EXPECT_LE(global, r.hi);
              got.push_back(global);
            }
          }
          std::vector<int64_t> want;
          for (int64_t i = 0; i < n; ++i)
            want.push_back(s + i * st);
          ASSERT_EQ(got, want) << "k=" << k << " s=" << s << " st=" << st << " n=" << n;
        }
}

TEST(SplitRequest, ZeroCountAndUntouchedPartitions) {
  std::vector<int64_t> start = {5}, count = {0};
  EXPECT_TRUE(splitRequest(start, count, {}, 0, 10, 2).empty());
  std::vector<int64_t> c1 = {2};
  auto subs = splitRequest(start, c1, {}, 0, 10, 5); // indices 5,6 -> partition 2 ([4,5]) and 3 ([6,7])
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].part, 2);
  EXPECT_EQ(subs[0].start[0], 1);
  EXPECT_EQ(subs[1].part, 3);
  EXPECT_EQ(subs[1].start[0], 0);
}

TEST(PackSlab, RoundTripAlongEachDimension) {
  std::vector<int64_t> shape = {3, 4, 5};
  std::vector<int> a(60);
  std::iota(a.begin(), a.end(), 0);
  for (int dim = 0; dim < 3; ++dim) {
    std::vector<int> back(60, -1);
    for (int64_t first = 0; first < shape[dim];) {
      int64_t num = std::min<int64_t>(2, shape[dim] - first);
      std::vector<int> packed(60 / shape[dim] * num);
      packSlab(a.data(), packed.data(), shape, dim, first, num, sizeof(int));
      // The packed slab is the C-order sub-array.
      std::size_t i = 0;
      for (int x = 0; x < 3; ++x)
        for (int y = 0; y < 4; ++y)
          for (int z = 0; z < 5; ++z) {
            int idx[3] = {x, y, z};
            if (idx[dim] >= first && idx[dim] < first + num) {
              EXPECT_EQ(packed[i++], (x * 4 + y) * 5 + z);
            }
          }
      unpackSlab(packed.data(), back.data(), shape, dim, first, num, sizeof(int));
      first += num;
    }
    EXPECT_EQ(back, a) << dim;
  }
}

TEST(MappedCopy, TransposedMapAndRoundTrip) {
  // A 2x3 request whose memory is the transposed 3x2 array (imap = {1, 2}),
  // as in PnetCDF's varm example.
  std::vector<int64_t> count = {2, 3}, imap = {1, 2};
  std::vector<int> packed = {0, 1, 2, 10, 11, 12}, mapped(6, -1);
  mappedCopy(packed.data(), mapped.data(), count, imap, sizeof(int), true);
  EXPECT_EQ(mapped, (std::vector<int>{0, 10, 1, 11, 2, 12}));
  std::vector<int> back(6, -1);
  mappedCopy(back.data(), mapped.data(), count, imap, sizeof(int), false);
  EXPECT_EQ(back, packed);
  // Gaps in the map: every other element of a wider buffer.
  std::vector<int64_t> wide = {6, 2};
  std::vector<int> sparse(12, -1);
  mappedCopy(packed.data(), sparse.data(), count, wide, sizeof(int), true);
  EXPECT_EQ(sparse, (std::vector<int>{0, -1, 1, -1, 2, -1, 10, -1, 11, -1, 12, -1}));
}

} // namespace
