#include "sio/trace/RankList.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <numeric>

using sio::trace::RankBlock;
using sio::trace::RankList;

TEST(RankList, AllRanksIsOneBlockAtAnySize) {
  for (int64_t n : {1, 4, 1000, 1 << 20}) {
    RankList all = RankList::all(n);
    EXPECT_LE(all.blocks().size(), 1u);
    EXPECT_EQ(all.size(), n);
    EXPECT_TRUE(all.isAll(n));
    EXPECT_TRUE(all.contains(n - 1));
    EXPECT_FALSE(all.contains(n));
  }
  std::vector<int64_t> ranks(4096);
  std::iota(ranks.begin(), ranks.end(), 0);
  EXPECT_EQ(RankList::fromRanks(ranks), RankList::all(4096)) << "compression of {0..N-1} is canonical";
  EXPECT_EQ(RankList::fromRanks(ranks).blocks().size(), 1u);
}

TEST(RankList, StridedAndSingleSets) {
  RankList l = RankList::fromRanks({12, 0, 4, 8});
  ASSERT_EQ(l.blocks().size(), 1u);
  EXPECT_EQ(l.str(), "0-12:4");
  EXPECT_TRUE(l.contains(8));
  EXPECT_FALSE(l.contains(6));
  EXPECT_EQ(RankList::fromRanks({5}).str(), "5");
  EXPECT_EQ(RankList::fromRanks({0, 1, 2, 3, 9}).str(), "0-3,9");
}

TEST(RankList, NestedStencilCompressesToOneBlock) {
  // A 3x2 corner of an 8-wide mesh: rows 0,8,16, columns 0,1.
  RankList l = RankList::fromRanks({0, 1, 8, 9, 16, 17});
  ASSERT_EQ(l.blocks().size(), 1u);
  ASSERT_EQ(l.blocks()[0].dims.size(), 2u);
  EXPECT_EQ(l.blocks()[0].dims[0].stride, 8);
  EXPECT_EQ(l.blocks()[0].dims[0].count, 3);
  EXPECT_EQ(l.size(), 6);
  for (int64_t r = 0; r < 24; ++r)
    EXPECT_EQ(l.contains(r), r % 8 < 2 && r < 24) << r;
  EXPECT_EQ(l.ranks(), (std::vector<int64_t>{0, 1, 8, 9, 16, 17}));
  // Interior points of a 4x4 mesh: {5,6,9,10}.
  EXPECT_EQ(RankList::fromRanks({5, 6, 9, 10}).blocks().size(), 1u);
}

TEST(RankList, SetAlgebra) {
  RankList even = RankList::range(0, 8, 2);
  RankList odd = RankList::range(1, 8, 2);
  EXPECT_EQ(even.unite(odd), RankList::all(16));
  EXPECT_TRUE(even.intersect(odd).empty());
  EXPECT_EQ(RankList::all(16).subtract(odd), even);
  EXPECT_EQ(RankList::all(4).subtract(RankList::single(0)), RankList::range(1, 3));
  EXPECT_EQ(RankList::single(3).unite(RankList::range(0, 3)), RankList::all(4));
  EXPECT_EQ(even.first(), 0);
  EXPECT_EQ(even.last(), 14);
}

TEST(RankList, FromBlocksValidatesAndCanonicalizes) {
  RankList l = RankList::fromBlocks({RankBlock{2, {{1, 2}}}, RankBlock{0, {{1, 2}}}});
  EXPECT_EQ(l, RankList::all(4));
  EXPECT_THROW(RankList::fromBlocks({RankBlock{0, {{1, 4}}}, RankBlock{3, {}}}), std::invalid_argument);
  EXPECT_THROW(RankList::fromBlocks({RankBlock{-1, {}}}), std::invalid_argument);
  EXPECT_THROW(RankList::fromBlocks({RankBlock{0, {{0, 4}}}}), std::invalid_argument);
  EXPECT_THROW(RankList::fromBlocks({RankBlock{0, {{1, 4}, {1, 4}}}}), std::invalid_argument)
      << "overlapping dimensions are ambiguous";
  // Very large lists are kept as given (no enumeration).
  RankList huge = RankList::fromBlocks({RankBlock{0, {{1, int64_t(1) << 30}}}});
  EXPECT_EQ(huge.size(), int64_t(1) << 30);
}

namespace {
// The set operations on enumerated ranks: what unite/intersect/subtract must
// give, canonical form included.
RankList enumerated(const RankList &a, const RankList &b, int op) {
  std::vector<int64_t> x = a.ranks(), y = b.ranks(), out;
  if (op == 0)
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  else if (op == 1)
    std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  else
    std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return RankList::fromRanks(std::move(out));
}
} // namespace

TEST(RankList, SetOperationsWithoutEnumerationMatchEnumeration) {
  std::vector<RankList> lists = {
      RankList::all(1000),         RankList::range(0, 500, 2),     RankList::range(1, 499, 2),
      RankList::range(3, 200, 5),  RankList::single(0),            RankList::single(999),
      RankList::range(1, 999),     RankList::range(100, 300),      RankList::fromRanks({0, 1, 8, 9, 16, 17}),
      RankList::fromRanks({0, 1, 2, 3, 9, 500, 501, 502}),         RankList::range(0, 250, 4),
      RankList::range(2, 250, 4),  RankList::range(0, 100, 10),    RankList::fromRanks({5, 7, 11, 13, 600}),
  };
  // A mesh: 20 rows of 30 ranks with stride 50.
  std::vector<int64_t> mesh;
  for (int64_t r = 0; r < 20; ++r)
    for (int64_t c = 0; c < 30; ++c)
      mesh.push_back(r * 50 + c);
  lists.push_back(RankList::fromRanks(mesh));
  for (const RankList &a : lists)
    for (const RankList &b : lists) {
      EXPECT_EQ(a.unite(b), enumerated(a, b, 0)) << a.str() << " | " << b.str();
      EXPECT_EQ(a.intersect(b), enumerated(a, b, 1)) << a.str() << " & " << b.str();
      EXPECT_EQ(a.subtract(b), enumerated(a, b, 2)) << a.str() << " - " << b.str();
    }
}

// 2^40 ranks: a fall-back to enumerating ranks would need terabytes, so the
// test can only pass if every operation works on blocks.
TEST(RankList, SetOperationsOnATrillionRanksStayBlocks) {
  const int64_t n = int64_t(1) << 40;
  RankList all = RankList::all(n), zero = RankList::single(0), rest = RankList::range(1, n - 1);
  EXPECT_EQ(all.subtract(zero), rest);
  EXPECT_EQ(rest.unite(zero), all);
  EXPECT_EQ(all.intersect(RankList::range(0, n / 2, 2)), RankList::range(0, n / 2, 2));
  EXPECT_EQ(RankList::range(0, n / 2, 2).unite(RankList::range(1, n / 2, 2)), all);
  EXPECT_EQ(all.subtract(RankList::range(0, n / 2, 2)), RankList::range(1, n / 2, 2));
  EXPECT_EQ(all.endRanks(2), (std::vector<int64_t>{0, 1, n - 2, n - 1}));
  EXPECT_EQ(RankList::range(0, 3).endRanks(2), (std::vector<int64_t>{0, 1, 2}));
}
