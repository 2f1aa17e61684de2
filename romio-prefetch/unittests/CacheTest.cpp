#include "sio/prefetch/Cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

using namespace sio::prefetch;

namespace {

// Load block `b` of file 1 with bytes b*100 + i.
void load(BlockCache &c, int64_t b, uint64_t gen = 0) {
  ASSERT_EQ(c.claim({1, b}, gen), BlockCache::Claim::Claimed);
  char *p = c.buffer({1, b});
  for (size_t i = 0; i < c.blockSize(); ++i)
    p[i] = char(b * 100 + int64_t(i));
  ASSERT_TRUE(c.fill({1, b}, gen, c.blockSize()));
}

TEST(BlockCache, HitAcrossBlocksCopiesTheBytes) {
  BlockCache c(1024, 8 * 1024);
  load(c, 0);
  load(c, 1);
  EXPECT_EQ(c.lookup(1, 1000, 100), BlockCache::Lookup::Hit);
  EXPECT_EQ(c.lookup(1, 1000, 2000),
            BlockCache::Lookup::Miss);                     // block 2 absent
  EXPECT_EQ(c.lookup(2, 0, 10), BlockCache::Lookup::Miss); // other file
  char out[100];
  c.copy(1, 1000, 100, out);
  for (int i = 0; i < 100; ++i) {
    const int64_t off = 1000 + i, b = off / 1024;
    EXPECT_EQ(out[i], char(b * 100 + (off - b * 1024))) << i;
  }
}

TEST(BlockCache, ShortBlockAtEndOfFileMissesBeyondIt) {
  BlockCache c(1024, 8 * 1024);
  ASSERT_EQ(c.claim({1, 0}, 0), BlockCache::Claim::Claimed);
  ASSERT_TRUE(c.fill({1, 0}, 0, 300));
  EXPECT_EQ(c.lookup(1, 0, 300), BlockCache::Lookup::Hit);
  EXPECT_EQ(c.lookup(1, 200, 101), BlockCache::Lookup::Miss);
}

TEST(BlockCache, LoadingIsNeitherHitNorMiss) {
  BlockCache c(1024, 8 * 1024);
  ASSERT_EQ(c.claim({1, 0}, 0), BlockCache::Claim::Claimed);
  EXPECT_EQ(c.lookup(1, 0, 10), BlockCache::Lookup::Loading);
  EXPECT_EQ(c.claim({1, 0}, 0), BlockCache::Claim::Present);
}

TEST(BlockCache, StaleGenerationIsDiscarded) {
  BlockCache c(1024, 8 * 1024);
  ASSERT_EQ(c.claim({1, 0}, 0), BlockCache::Claim::Claimed);
  c.dropFile(1);
  EXPECT_FALSE(c.fill({1, 0}, 0, 1024));
  EXPECT_EQ(c.lookup(1, 0, 10), BlockCache::Lookup::Miss);
  // Claimed again under generation 1, the generation-0 load must not land.
  ASSERT_EQ(c.claim({1, 0}, 1), BlockCache::Claim::Claimed);
  EXPECT_FALSE(c.fill({1, 0}, 0, 1024));
  EXPECT_EQ(c.lookup(1, 0, 10), BlockCache::Lookup::Miss);
}

TEST(BlockCache, VictimIsReadBlockNotPendingPrediction) {
  BlockCache c(1024, 4 * 1024); // 4 blocks
  std::map<uint64_t, uint64_t> wasted;
  c.onWasted = [&](uint64_t f, uint64_t n) { wasted[f] += n; };
  for (int b = 0; b < 4; ++b)
    load(c, b);
  // All four are pending predictions: no victim, the prefetcher must wait.
  EXPECT_EQ(c.claim({1, 4}, 0), BlockCache::Claim::Full);
  // The application reads block 2 (not the least recently used one): it becomes
  // the victim.
  char tmp[1024];
  c.copy(1, 2048, 1024, tmp);
  EXPECT_EQ(c.claim({1, 4}, 0), BlockCache::Claim::Claimed);
  EXPECT_FALSE(c.contains({1, 2}));
  EXPECT_TRUE(c.contains({1, 0}));
  EXPECT_TRUE(c.fill({1, 4}, 0, 1024));
  EXPECT_TRUE(wasted.empty());
  // Among read blocks, least recently used goes first.
  c.copy(1, 0, 1024, tmp);    // block 0 read
  c.copy(1, 1024, 1024, tmp); // block 1 read, more recent
  EXPECT_EQ(c.claim({1, 5}, 0), BlockCache::Claim::Claimed);
  EXPECT_FALSE(c.contains({1, 0}));
  EXPECT_TRUE(c.contains({1, 1}));
}

TEST(BlockCache, StalePredictionsGiveWayWhenDemoted) {
  BlockCache c(1024, 2 * 1024); // 2 blocks
  std::map<uint64_t, uint64_t> wasted;
  c.onWasted = [&](uint64_t f, uint64_t n) { wasted[f] += n; };
  load(c, 0);
  load(c, 1);
  char tmp[1024];
  c.copy(1, 1024, 10, tmp); // block 1 read, now most recent
  load(c, 2);               // evicts block 1, the only read one
  EXPECT_FALSE(c.contains({1, 1}));
  EXPECT_EQ(c.claim({1, 3}, 0), BlockCache::Claim::Full);
  ASSERT_TRUE(c.demoteOldestPending()); // block 0: oldest pending
  EXPECT_EQ(wasted[1], 1024u);
  EXPECT_EQ(c.claim({1, 3}, 0), BlockCache::Claim::Claimed);
  EXPECT_FALSE(c.contains({1, 0}));
  EXPECT_TRUE(c.contains({1, 2}));
  EXPECT_TRUE(c.fill({1, 3}, 0, 1024));
  // The demoted block left without being counted a second time.
  EXPECT_EQ(wasted[1], 1024u);
}

TEST(BlockCache, BlocksAReaderWaitsForAreNotDemoted) {
  // The prefetcher's next access spans blocks 0-2 of a 3-block cache that
  // already holds 0 and 1 and a stale block 7: only block 7 may give way,
  // then the cache is full of what the reader needs and nothing more goes
  // (before, the oldest pending block went, the access's own block 0, and
  // the prefetcher reloaded it next: a loop without end).
  BlockCache c(1024, 3 * 1024);
  load(c, 7);
  load(c, 0);
  load(c, 1);
  auto wanted = [](const BlockKey &k) { return k.block <= 2; };
  EXPECT_EQ(c.claim({1, 2}, 0), BlockCache::Claim::Full);
  ASSERT_TRUE(c.demoteOldestPending(wanted));
  EXPECT_EQ(c.claim({1, 2}, 0), BlockCache::Claim::Claimed);
  EXPECT_FALSE(c.contains({1, 7}));
  EXPECT_TRUE(c.fill({1, 2}, 0, 1024));
  EXPECT_EQ(c.claim({1, 3}, 0), BlockCache::Claim::Full);
  EXPECT_FALSE(c.demoteOldestPending(wanted));
  EXPECT_EQ(c.lookup(1, 0, 3 * 1024), BlockCache::Lookup::Hit);
  EXPECT_EQ(c.blocksSpanned(1000, 100), 2u);
  EXPECT_EQ(c.blocksSpanned(0, 3 * 1024), 3u);
  EXPECT_EQ(c.blocksSpanned(0, 0), 0u);
}

TEST(BlockCache, DroppingUnreadPrefetchesCountsWaste) {
  BlockCache c(1024, 8 * 1024);
  std::map<uint64_t, uint64_t> wasted;
  c.onWasted = [&](uint64_t f, uint64_t n) { wasted[f] += n; };
  load(c, 0);
  load(c, 1);
  char tmp[10];
  c.copy(1, 0, 10, tmp);
  c.invalidate(1, 1500, 1);
  EXPECT_FALSE(c.contains({1, 1}));
  EXPECT_TRUE(c.contains({1, 0}));
  EXPECT_EQ(wasted[1], 1024u);
  c.dropFile(1);
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(wasted[1], 1024u); // block 0 had been read
}

} // namespace

TEST(BlockCache, AnyLoadingSeesABlockInFlightAmongAbsentOnes) {
  BlockCache c(4096, 8 * 4096);
  EXPECT_FALSE(c.anyLoading(1, 0, 3 * 4096));
  ASSERT_EQ(c.claim({1, 1}, 0), BlockCache::Claim::Claimed); // block 1 loading
  EXPECT_EQ(c.lookup(1, 0, 3 * 4096), BlockCache::Lookup::Miss);
  EXPECT_TRUE(c.anyLoading(1, 0, 3 * 4096));
  EXPECT_FALSE(c.anyLoading(1, 2 * 4096, 4096)); // only block 2: absent
  EXPECT_FALSE(c.anyLoading(2, 0, 3 * 4096));    // another file
  ASSERT_TRUE(c.fill({1, 1}, 0, 4096));
  EXPECT_FALSE(c.anyLoading(1, 0, 3 * 4096));
}
