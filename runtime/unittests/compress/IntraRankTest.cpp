#include "Expand.h"
#include "IntraRank.h"
#include "Recorder.h"

#include "sio/trace/Json.h"

#include <gtest/gtest.h>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

Expr i(uint32_t d) { return Expr::loopIndex(d); }

const Expr &param(const Node &node, std::string_view name) {
  return std::get<Expr>(node.event().param(name)->value.entries().at(0).value);
}
const Expr &iterations(const Node &node) { return std::get<Expr>(node.loop().iterations.entries().at(0).value); }

TEST(IntraRank, ScalaIOExtrapTable1LoopIsAffineInTheIndex) {
  // offset = rank*(960/N) + 960*i, rank 1 of 4, 3 iterations.
  Recorder r;
  r.enter(10);
  for (int k = 0; k < 3; ++k) {
    r.iter(10);
    r.write(240 + 960 * k);
  }
  r.exit(10);
  auto nodes = r.compressor.finish(1, 4);
  ASSERT_EQ(nodes.size(), 1u);
  ASSERT_TRUE(nodes[0].isLoop());
  EXPECT_EQ(nodes[0].loop().id, 10u);
  EXPECT_EQ(iterations(nodes[0]), Expr(3));
  const Node &write = nodes[0].loop().body.at(0);
  EXPECT_EQ(param(write, "offset"), Expr(240) + Expr(960) * i(0));
  EXPECT_EQ(param(write, "count"), Expr(64));
  EXPECT_EQ(write.ranks, RankList::single(1));
  EXPECT_EQ(write.event().duration.count(), 3u);
  EXPECT_EQ(expandNodes(nodes, 1, 4), r.fed);
}

TEST(IntraRank, NestedLoopsDependOnBothIndices) {
  Recorder r;
  r.enter(1);
  for (int a = 0; a < 4; ++a) {
    r.iter(1);
    r.enter(2);
    for (int b = 0; b < 5; ++b) {
      r.iter(2);
      r.write(960 * a + 64 * b + 7);
    }
    r.exit(2);
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  ASSERT_EQ(nodes.size(), 1u);
  const Node &inner = nodes[0].loop().body.at(0);
  EXPECT_EQ(iterations(inner), Expr(5));
  EXPECT_EQ(param(inner.loop().body.at(0), "offset"), Expr(7) + Expr(960) * i(0) + Expr(64) * i(1));
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, TriangularInnerLoopCountIsAFunctionOfTheOuterIndex) {
  Recorder r;
  r.enter(1);
  for (int a = 0; a < 6; ++a) {
    r.iter(1);
    r.enter(2);
    for (int b = 0; b <= a; ++b) {
      r.iter(2);
      r.write(100 * a + b);
    }
    r.exit(2);
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  ASSERT_EQ(nodes.size(), 1u);
  const Node &inner = nodes[0].loop().body.at(0);
  EXPECT_EQ(iterations(inner), i(0) + Expr(1));
  EXPECT_EQ(param(inner.loop().body.at(0), "offset"), Expr(100) * i(0) + i(1));
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, IrregularValuesBecomeATable) {
  Recorder r;
  const std::vector<int64_t> values = {7, 3, 9, 1, 12};
  r.enter(1);
  for (int64_t v : values) {
    r.iter(1);
    r.write(v);
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  ASSERT_EQ(nodes.size(), 1u);
  // The first value is the constant term (a table that differs between
  // ranks by a rank term is then one table: NestTest).
  EXPECT_EQ(param(nodes[0].loop().body.at(0), "offset"), Expr::table({0, -4, 2, -6, 5}, i(0)) + Expr(7));
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, AffinePrefixThenIrregularStaysExact) {
  Recorder r;
  r.enter(1);
  for (int64_t v : {0, 10, 20, 30, 5, 50}) {
    r.iter(1);
    r.write(v);
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, StructureChangeMidLoopSplitsIntoRuns) {
  Recorder r;
  r.enter(1);
  for (int k = 0; k < 7; ++k) {
    r.iter(1);
    r.write(64 * k);
    if (k >= 3)
      r.event(makeFlat("MPI_File_read_at", 2, {{"fh", 0}, {"offset", 8 * k}}));
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(iterations(nodes[0]), Expr(3));
  EXPECT_EQ(iterations(nodes[1]), Expr(4));
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, AlternatingIterationsCompressThroughRepetition) {
  Recorder r;
  r.enter(1);
  for (int k = 0; k < 100; ++k) {
    r.iter(1);
    if (k % 2 == 0)
      r.write(64 * k);
    else
      r.event(makeFlat("MPI_File_read_at", 2, {{"fh", 0}, {"offset", 64 * k}}));
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  EXPECT_LE(countNodes(nodes), 6u);
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, EmptyIterationsAreNotCounted) {
  Recorder r;
  r.enter(1);
  for (int k = 0; k < 10; ++k) {
    r.iter(1);
    if (k % 3 == 0)
      r.write(k);
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(iterations(nodes[0]), Expr(4));
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, LoopConditionCallsPrecedeTheLoop) {
  // while (read(...) > 0) write(...): read before the first iter marker.
  Recorder r;
  r.enter(1);
  r.event(makeFlat("read", 3, {{"fd", 3}}));
  for (int k = 0; k < 4; ++k) {
    r.iter(1);
    r.write(k * 8);
    r.event(makeFlat("read", 3, {{"fd", 3}}));
  }
  r.exit(1);
  auto nodes = r.compressor.finish(0, 1);
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
  EXPECT_LE(countNodes(nodes), 4u);
}

TEST(IntraRank, ToleratesMissingAndUnknownMarkers) {
  Recorder r;
  r.exit(99);   // unknown exit: ignored
  r.iter(5);    // iter without enter: enters
  r.write(1);
  r.iter(5);
  r.write(2);
  r.enter(6);   // inner loop never exited ...
  r.iter(6);
  r.write(3);
  r.exit(5);    // ... closed by the outer exit
  r.enter(7);
  r.iter(7);
  r.write(4);   // never exited: finish closes it
  auto nodes = r.compressor.finish(0, 1);
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

// ---- marker-less repetition detection ----

std::vector<Node> compressPeriodic(Recorder &r, int period, int repeats) {
  for (int k = 0; k < repeats; ++k)
    for (int p = 0; p < period; ++p)
      r.write(1000 * p + 64 * k, 100 + p);
  return r.compressor.finish(0, 1);
}

class Periodic : public ::testing::TestWithParam<int> {};

TEST_P(Periodic, FoldsIntoOneLoop) {
  Recorder r;
  auto nodes = compressPeriodic(r, GetParam(), 50);
  ASSERT_EQ(nodes.size(), 1u);
  ASSERT_TRUE(nodes[0].isLoop());
  EXPECT_EQ(nodes[0].loop().id, 0u);
  EXPECT_EQ(iterations(nodes[0]), Expr(50));
  EXPECT_EQ(nodes[0].loop().body.size(), static_cast<size_t>(GetParam()));
  EXPECT_EQ(param(nodes[0].loop().body.back(), "offset"), Expr(1000 * (GetParam() - 1)) + Expr(64) * i(0));
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}
INSTANTIATE_TEST_SUITE_P(Periods, Periodic, ::testing::Values(1, 2, 3, 7));

TEST(IntraRank, MarkerlessNestedRepetitionMakesAPRSD) {
  Recorder r;
  for (int a = 0; a < 10; ++a) {
    r.event(makeFlat("open", 1, {{"path_len", 5}}));
    for (int b = 0; b < 6; ++b)
      r.write(640 * a + 64 * b, 2);
    r.event(makeFlat("close", 3, {}));
  }
  auto nodes = r.compressor.finish(0, 1);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(iterations(nodes[0]), Expr(10));
  EXPECT_EQ(countNodes(nodes), 5u); // loop{open, loop{write}, close}
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

TEST(IntraRank, RepetitionDetectionCanBeTurnedOff) {
  CompressorOptions opts;
  opts.detectRepetition = false;
  Recorder r(opts);
  auto nodes = compressPeriodic(r, 1, 10);
  EXPECT_EQ(nodes.size(), 10u);
  EXPECT_EQ(expandNodes(nodes, 0, 1), r.fed);
}

// ---- size and memory ----

size_t jsonSize(std::vector<Node> nodes) {
  Trace t;
  t.header.nranks = 1;
  t.body = std::move(nodes);
  return writeTraceString(t).size();
}

std::vector<Node> nestedProgram(int outer, IntraRankCompressor &c) {
  c.loopEnter(1);
  for (int a = 0; a < outer; ++a) {
    c.loopIter(1);
    c.loopEnter(2);
    for (int b = 0; b < 8; ++b) {
      c.loopIter(2);
      c.event(makeEvent(makeFlat("MPI_File_write_at", 1, {{"fh", 0}, {"offset", 4096 * a + 512 * b}})));
    }
    c.loopExit(2);
    c.event(makeEvent(makeFlat("MPI_File_sync", 2, {{"fh", 0}})));
  }
  c.loopExit(1);
  return c.finish(0, 1);
}

TEST(IntraRank, TraceSizeIsConstantWhenIterationsGrowTenfold) {
  IntraRankCompressor small, large;
  auto a = nestedProgram(10, small), b = nestedProgram(100, large);
  EXPECT_EQ(countNodes(a), countNodes(b));
  // Only digits differ: the iteration count and timing sums.
  EXPECT_LE(jsonSize(std::move(b)), jsonSize(std::move(a)) + 64);
}

TEST(IntraRank, MemoryStaysBoundedForAMillionIterations) {
  IntraRankCompressor withMarkers, withoutMarkers;
  size_t peakMarkers = 0, peakRepetition = 0, early = 0;
  withMarkers.loopEnter(1);
  for (int64_t k = 0; k < 1000000; ++k) {
    withMarkers.loopIter(1);
    withMarkers.event(makeEvent(makeFlat("write", 1, {{"fd", 3}, {"offset", 4096 * k}, {"count", 4096}})));
    withoutMarkers.event(makeEvent(makeFlat("write", 1, {{"fd", 3}, {"offset", 4096 * k}, {"count", 4096}})));
    if (k % 4096 == 0) {
      peakMarkers = std::max(peakMarkers, withMarkers.approxBytes());
      peakRepetition = std::max(peakRepetition, withoutMarkers.approxBytes());
      if (k == 4096)
        early = std::max(peakMarkers, peakRepetition);
    }
  }
  EXPECT_LT(peakMarkers, 16384u);
  EXPECT_LT(peakRepetition, 16384u);
  EXPECT_LE(std::max(peakMarkers, peakRepetition), early + 256);
  withMarkers.loopExit(1);
  auto a = withMarkers.finish(0, 1);
  auto b = withoutMarkers.finish(0, 1);
  EXPECT_EQ(iterations(a.at(0)), Expr(1000000));
  EXPECT_EQ(iterations(b.at(0)), Expr(1000000));
  EXPECT_EQ(param(b[0].loop().body.at(0), "offset"), Expr(4096) * i(0));
}

} // namespace
} // namespace sio::rt::test
