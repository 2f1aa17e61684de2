#include "sio/trace/RankTiming.h"
#include "sio/trace/Json.h"
#include "sio/trace/Trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace sio::trace;

namespace {

/// One rank's group as the runtime seeds it: `count` calls of about `durNs`.
RankTiming seeded(int64_t rank, int count, uint64_t durNs, uint64_t gapNs, std::mt19937_64 &rng) {
  TimingStats c, d;
  std::uniform_int_distribution<uint64_t> jitter(0, 20);
  for (int i = 0; i < count; ++i) {
    d.add(durNs + durNs * jitter(rng) / 100);
    c.add(gapNs + gapNs * jitter(rng) / 100);
  }
  return rankTimingOf(RankList::single(rank), c, d);
}

/// Merges the groups in a random binary tree, as the runtime's merge might.
std::vector<RankTiming> mergeTree(std::vector<std::vector<RankTiming>> parts, std::mt19937_64 &rng) {
  while (parts.size() > 1) {
    size_t i = rng() % (parts.size() - 1);
    mergeRankTiming(parts[i], std::move(parts[i + 1]));
    parts.erase(parts.begin() + long(i) + 1);
  }
  return parts.front();
}

} // namespace

// Property: whatever the merge order, every rank is in exactly one group,
// its group's mean call time (gap + duration) is within the factor 2 of one
// log2 bin of its own, and a
// straggler 10x slower is alone in its group.
TEST(RankTiming, MergeKeepsStragglerApartInAnyOrder) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t n = 2 + int64_t(rng() % 63);
    const int64_t slow = int64_t(rng() % uint64_t(n));
    std::vector<std::vector<RankTiming>> parts;
    std::vector<double> own(size_t(n), 0);
    for (int64_t r = 0; r < n; ++r) {
      RankTiming g = seeded(r, 4, r == slow ? 300000 : 30000, r == slow ? 2000000 : 1000, rng);
      own[size_t(r)] = g.durationMean() + g.computeMean();
      parts.push_back({g});
    }
    std::vector<RankTiming> groups = mergeTree(std::move(parts), rng);
    int64_t covered = 0;
    for (const RankTiming &g : groups) {
      covered += g.ranks.size();
      EXPECT_EQ(g.count, 4u);
      for (int64_t r : g.ranks.ranks()) {
        const double ratio = (g.durationMean() + g.computeMean()) / own[size_t(r)];
        EXPECT_GT(ratio, 0.5) << "seed " << seed << " rank " << r;
        EXPECT_LT(ratio, 2.0) << "seed " << seed << " rank " << r;
      }
    }
    EXPECT_EQ(covered, n) << "seed " << seed;
    const RankTiming *s = findRankTiming(groups, slow);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->ranks, RankList::single(slow)) << "seed " << seed;
    EXPECT_GT(s->computeMean(), 1e6);
    for (int64_t r = 0; r < n; ++r)
      ASSERT_NE(findRankTiming(groups, r), nullptr);
  }
}

TEST(RankTiming, MinMaxAndSumsOfAGroup) {
  TimingStats c1, d1, c2, d2;
  d1.add(1000);
  d1.add(1200);
  d2.add(1100);
  d2.add(1500);
  c1.add(10);
  c1.add(10);
  c2.add(12);
  c2.add(12);
  std::vector<RankTiming> a{rankTimingOf(RankList::single(0), c1, d1)};
  mergeRankTiming(a, {rankTimingOf(RankList::single(1), c2, d2)});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].ranks, RankList::range(0, 2));
  EXPECT_EQ(a[0].count, 2u);
  EXPECT_EQ(a[0].duration.min, 1000u);
  EXPECT_EQ(a[0].duration.max, 1500u);
  EXPECT_DOUBLE_EQ(a[0].durationMean(), 1200.0);
  EXPECT_DOUBLE_EQ(a[0].computeMean(), 11.0);
  // A different call count is a different group, whatever the times.
  TimingStats d3;
  d3.add(1100);
  mergeRankTiming(a, {rankTimingOf(RankList::single(2), TimingStats(), d3)});
  EXPECT_EQ(a.size(), 2u);
}

namespace {

const char *kTrace = R"({"format":"sio-trace","version":"1.1","nranks":4,"body":[
{"event":"write","layer":"posix","ranks":[{"start":0,"count":4}],"params":{"fd":3,"count":10},
 "duration":{"count":4,"min_ns":100,"max_ns":900,"sum_ns":1200,"sumsq_ns2":840000,"hist":"7:3 10:1"},
 "rank_timing":["0-1,3 1 100 100 100 0 0 0", "2 1 900 900 900 0 0 0"RANKS]}]})";

std::string withExtra(const std::string &extra) {
  std::string t = kTrace;
  t.replace(t.find("RANKS"), 5, extra);
  return t;
}

} // namespace

TEST(RankTiming, TextRoundTrip) {
  for (const char *ranks : {"0", "0-15", "1-13:4", "0-3,8-11,16-19", "5,9"}) {
    std::string error;
    std::string text = std::string(ranks) + " 3 120 100 150 7 5 9";
    auto g = parseRankTiming(text, error);
    ASSERT_TRUE(g) << text << ": " << error;
    auto again = parseRankTiming(rankTimingText(*g), error);
    ASSERT_TRUE(again) << rankTimingText(*g) << ": " << error;
    EXPECT_EQ(*again, *g) << text << " -> " << rankTimingText(*g);
    EXPECT_DOUBLE_EQ(g->durationMean(), 120.0);
  }
  // A mesh block is written as runs.
  RankTiming m;
  m.ranks = RankList::fromBlocks({RankBlock{0, {{4, 2}, {1, 2}}}});
  m.count = 1;
  EXPECT_EQ(rankTimingText(m).substr(0, 7), "0-1,4-5");
}

TEST(RankTiming, JsonRoundTrip) {
  Trace t = readTraceString(withExtra(""));
  const Event &e = t.body[0].event();
  ASSERT_EQ(e.rankTiming.size(), 2u);
  EXPECT_EQ(findRankTiming(e.rankTiming, 2)->durationMean(), 900.0);
  EXPECT_EQ(findRankTiming(e.rankTiming, 3)->durationMean(), 100.0);
  Trace again = readTraceString(writeTraceString(t));
  EXPECT_EQ(again.body[0].event().rankTiming, e.rankTiming);
}

TEST(RankTiming, ReaderRefusesBadGroups) {
  auto error = [](const std::string &text) {
    try {
      readTraceString(text, "t.json");
    } catch (const TraceError &e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::string two = error(withExtra(R"(, "2 1 1 1 1 0 0 0")"));
  EXPECT_NE(two.find("/body/0/rank_timing/2: a rank in two groups"), std::string::npos) << two;
  std::string outside = withExtra("");
  outside.replace(outside.find(R"("2 1 900)"), 8, R"("5 1 900)");
  EXPECT_NE(error(outside).find("ranks outside the event's ranks"), std::string::npos) << error(outside);
  std::string mean = withExtra("");
  mean.replace(mean.find("900 900 900"), 11, "950 900 920");
  EXPECT_NE(error(mean).find("min <= mean <= max"), std::string::npos) << error(mean);
  for (const char *bad : {R"(, "1-3:2 1 1 1 1 0 0")", R"(, "3-1 1 1 1 1 0 0 0")", R"(, "x 1 1 1 1 0 0 0")",
                          R"(, "1-2:2 1 1 1 1 0 0 0")", R"(, "99999999999 1 1 1 1 0 0 0")", R"(, 7)"})
    EXPECT_NE(error(withExtra(bad)).find("/body/0/rank_timing/2"), std::string::npos)
        << bad << ": " << error(withExtra(bad));
}
