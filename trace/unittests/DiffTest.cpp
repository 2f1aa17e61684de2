#include "TestTraces.h"

#include "sio/trace/Diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>

using namespace sio::trace;
using namespace sio::trace::testing;

namespace {

Event &writeAt(Trace &t) { return t.body[1].loop().body[0].event(); }

} // namespace

TEST(Diff, TraceEqualsItself) {
  EXPECT_TRUE(diffTraces(strongTrace(), strongTrace()).empty());
  EXPECT_TRUE(diffTraces(richTrace(), richTrace(), {.compareTiming = true}).empty());
}

TEST(Diff, ChangedParameterNamesEventAndParameter) {
  Trace a = strongTrace(), b = strongTrace();
  writeAt(b).param("offset")->value = ElasticValue(ex("240*rank + 961*i0"), RankList::all(4));
  auto d = diffTraces(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].where, "body[1].loop(3 iterations).body[0] MPI_File_write_at (strong.cpp:20:5)");
  EXPECT_EQ(d[0].what, "param offset: 240*rank + 960*i0 vs 240*rank + 961*i0");
}

TEST(Diff, IgnoresProgramAndMetadataButNotStructure) {
  Trace a = strongTrace(), b = strongTrace();
  b.header.program = "replay";
  b.header.commandLine = {"./replay"};
  b.header.generator = "sio-replay";
  b.header.metadata["host"] = "elsewhere";
  EXPECT_TRUE(diffTraces(a, b).empty());

  b.body.pop_back();
  auto d = diffTraces(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].where, "body[4]");
  EXPECT_NE(d[0].what.find("MPI_File_close"), std::string::npos) << d[0].what;
}

TEST(Diff, SitesAndLoopIdsUnlessIgnored) {
  Trace a = strongTrace(), b = strongTrace();
  writeAt(b).site = 0x99;
  b.body[3].loop().id = 0;
  auto d = diffTraces(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NE(d[0].what.find("site"), std::string::npos);
  EXPECT_NE(d[1].what.find("loop id"), std::string::npos);
  EXPECT_TRUE(diffTraces(a, b, {.ignoreSites = true}).empty());
}

TEST(Diff, TimingOnlyWhenAsked) {
  Trace a = strongTrace(), b = strongTrace();
  writeAt(b).duration.add(1000);
  EXPECT_TRUE(diffTraces(a, b).empty());
  auto d = diffTraces(a, b, {.compareTiming = true});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].what.find("duration"), std::string::npos);
}

TEST(Diff, ValuesAreComparedAfterBindingNRanks) {
  // What sio-extrap writes for the 4-rank run equals the run itself.
  Trace concrete = strongTrace(4), symbolic = strongTrace(4);
  writeAt(symbolic).param("offset")->value = ElasticValue(ex("960*rank/nranks + 960*i0"), RankList::all(4));
  writeAt(symbolic).param("count")->value = ElasticValue(ex("960/nranks"), RankList::all(4));
  EXPECT_TRUE(diffTraces(concrete, symbolic).empty());
  EXPECT_TRUE(diffTraces(symbolic, concrete).empty());
  // ... and differs from the 8-rank run.
  Trace eight = strongTrace(8);
  EXPECT_FALSE(diffTraces(eight, symbolic).empty());
  EXPECT_TRUE(diffTraces(eight, [&] {
                Trace s = strongTrace(8);
                writeAt(s).param("count")->value = ElasticValue(ex("960/nranks"), RankList::all(8));
                return s;
              }()).empty());
}

TEST(Diff, DifferentPartitionsOfOneFunctionAreEqual) {
  Trace a = strongTrace(), b = strongTrace(), c = strongTrace();
  // {0-1: f; 2-3: f} is f.
  writeAt(b).param("offset")->value.entries() = {{RankList::range(0, 2), ex("240*rank + 960*i0")},
                                                 {RankList::range(2, 2), ex("240*rank + 960*i0")}};
  EXPECT_TRUE(diffTraces(a, b).empty());
  // Per-rank constants that follow the model are the model.
  writeAt(c).param("count")->value.entries() = {{RankList::range(0, 2), Expr(240)},
                                                {RankList::range(2, 2), Expr(240)}};
  writeAt(c).param("offset")->value.entries() = {
      {RankList::single(0), ex("960*i0")},
      {RankList::single(1), ex("240 + 960*i0")},
      {RankList::fromRanks({2, 3}), ex("240*rank + 960*i0")}};
  EXPECT_TRUE(diffTraces(a, c).empty());
  // But a rank whose value differs is found.
  writeAt(c).param("offset")->value.entries()[1].value = ex("241 + 960*i0");
  auto d = diffTraces(a, c);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].what.find("param offset"), std::string::npos);
  EXPECT_NE(d[0].what.find("ranks 1: 960*i0 + 241"), std::string::npos) << d[0].what;
}

TEST(Diff, RanksIterationsAndKinds) {
  Trace a = strongTrace(), b = strongTrace();
  b.body[2].ranks = RankList::range(0, 2);
  b.body[2].event().params[0].value = ElasticValue(Expr(0), RankList::range(0, 2));
  b.body[3].loop().iterations = ElasticValue(Expr(6), RankList::all(4));
  b.body[4] = loopNode(0, RankList::all(4), ElasticValue(Expr(1), RankList::all(4)), {});
  auto d = diffTraces(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].what, "ranks 0-3 vs 0-1");
  EXPECT_EQ(d[1].what, "iterations: 5 vs 6");
  EXPECT_EQ(d[2].what, "event MPI_File_close vs loop");
}

TEST(Diff, HeaderFilesAndTables) {
  Trace a = richTrace(), b = richTrace();
  b.files[0].name[1].width = 5;
  b.datatypes[2].fields["count"] = {Expr(3)};
  auto d = diffTraces(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].where, "files[0] (f0)");
  EXPECT_EQ(d[0].what, "name \"logs/out_<rank:04>.txt\" vs \"logs/out_<rank:05>.txt\"");
  EXPECT_EQ(d[1].where, "datatypes[2]");
  EXPECT_EQ(d[1].what, "field count differs");

  Trace c = strongTrace(4), e = strongTrace(8);
  d = diffTraces(c, e);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].where, "header");
  EXPECT_EQ(d[0].what, "nranks: 4 vs 8");
}

TEST(Diff, FileNamesBindNRanks) {
  Trace a = richTrace(), b = richTrace();
  b.files[2].name[1].field = ex("(rank - rank % (nranks/2))/(nranks/2)");
  EXPECT_TRUE(diffTraces(a, b).empty());
}

TEST(Diff, StopsAtMaxDifferences) {
  Trace a = strongTrace(), b = strongTrace();
  for (Node &n : b.body)
    if (n.isEvent())
      n.event().site += 1000;
  EXPECT_EQ(diffTraces(a, b, {.maxDifferences = 2}).size(), 2u);
  EXPECT_EQ(diffTraces(a, b, {.maxDifferences = 0}).size(), 3u);
}

// A datatype field that is a formula of rank is one per-rank function in
// any form: the runtime's table indexed by rank equals a table indexed by
// rank % 3 with the same values at every rank, and not one that differs at
// one rank.
TEST(Diff, ObjectFieldsAreComparedRankByRank) {
  Trace a = richTrace(), b = richTrace();
  const int64_t n = a.header.nranks;
  std::vector<int64_t> perRank;
  for (int64_t r = 0; r < n; ++r)
    perRank.push_back(r % 3 == 2 ? 42 : 43);
  a.datatypes[2].fields["count"] = {Expr::table(perRank, Expr::rank())};
  b.datatypes[2].fields["count"] = {Expr::table({43, 43, 42}, Expr::mod(Expr::rank(), Expr(3)))};
  EXPECT_TRUE(diffTraces(a, b).empty());
  b.datatypes[2].fields["count"] = {Expr::table({43, 42, 42}, Expr::mod(Expr::rank(), Expr(3)))};
  auto d = diffTraces(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].what, "field count differs");
}

namespace {

/// strongTrace with, before its close, every rank unlinking one file as
/// ROMIO does at MPI_File_close: the ranks in `winners` (a bit set) succeed,
/// the others fail with `err`. The winners' node comes first when rank 0 won.
Trace raceTrace(uint32_t winners, int64_t err = 2, bool inner = true) {
  Trace t = strongTrace();
  const int64_t n = t.header.nranks;
  std::vector<int64_t> won, lost;
  for (int64_t r = 0; r < n; ++r)
    (winners >> r & 1 ? won : lost).push_back(r);
  std::vector<Node> run;
  if (!won.empty())
    run.push_back(eventNode("unlink", Layer::POSIX, 0, RankList::fromRanks(won), {{"file", Expr(0)}}));
  if (!lost.empty())
    run.push_back(
        eventNode("unlink", Layer::POSIX, 0, RankList::fromRanks(lost), {{"file", Expr(0)}, {"error", Expr(err)}}));
  if (!(winners & 1))
    std::reverse(run.begin(), run.end());
  for (Node &node : run)
    node.event().inner = inner;
  t.body.insert(t.body.end() - 1, run.begin(), run.end());
  return t;
}

} // namespace

// Which rank wins a race among inner calls is timing, not the program: over
// every pair of outcomes at 4 ranks, the traces are equal exactly when as
// many ranks succeeded, and the winners then differ only in `races`, or in
// the differences with exactRaceWinners.
TEST(Diff, RacingInnerCallsCompareByOutcomeCounts) {
  for (uint32_t x = 0; x < 16; ++x)
    for (uint32_t y = 0; y < 16; ++y) {
      SCOPED_TRACE("winners " + std::to_string(x) + " vs " + std::to_string(y));
      std::vector<Difference> races;
      auto d = diffTraces(raceTrace(x), raceTrace(y), {}, &races);
      const bool sameCount = std::popcount(x) == std::popcount(y);
      EXPECT_EQ(d.empty(), sameCount);
      EXPECT_EQ(races.size(), sameCount && x != y ? 1u : 0u);
      const auto split = [](uint32_t w) { return w != 0 && w != 15; }; // two nodes, one race
      if (!d.empty() && (split(x) || split(y))) {
        EXPECT_NE(d[0].what.find("succeeded on ranks"), std::string::npos) << d[0].what;
      }
      EXPECT_EQ(diffTraces(raceTrace(x), raceTrace(y), {.exactRaceWinners = true}).empty(), x == y);
    }
}

TEST(Diff, OnlyInnerCallsThatDifferOnlyInErrorRace) {
  std::vector<Difference> races;
  // The same error elsewhere: the losers' outcome differs.
  auto d = diffTraces(raceTrace(1), raceTrace(4, 13), {}, &races);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].where, "body[4-5] unlink (racing inner calls)");
  EXPECT_EQ(d[0].what, "succeeded on ranks 0; error=2 ENOENT on ranks 1-3 vs "
                       "succeeded on ranks 2; error=13 EACCES on ranks 0-1,3");
  // The program's own calls are compared node by node.
  EXPECT_FALSE(diffTraces(raceTrace(1, 2, false), raceTrace(4, 2, false), {}, &races).empty());
  EXPECT_TRUE(races.empty());
  // Calls on another file are not one race.
  Trace other = raceTrace(4);
  other.body[5].event().param("file")->value.entries()[0].value = Expr(1);
  EXPECT_FALSE(diffTraces(raceTrace(1), other).empty());
}
