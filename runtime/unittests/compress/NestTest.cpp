// Marker-less nested loop detection (issue 15 item 2; ScalaIOTrace's RSD/PRSD
// detection): random nests of depth <= 3 with offsets affine in the loop
// indices and rank, fed to the compressor with no loop markers, come out as
// that nest (same depth, trip counts, offset formula), not as tables.
#include "Expand.h"
#include "InterRank.h"
#include "Recorder.h"

#include <gtest/gtest.h>
#include <random>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

struct Nest {
  std::vector<int64_t> trips;  ///< outermost first
  std::vector<int64_t> coeffs; ///< of i0 (outermost), i1, ...
  int64_t base = 0, perRank = 0;

  int64_t offset(const std::vector<int64_t> &idx, int64_t rank) const {
    int64_t v = base + perRank * rank;
    for (size_t d = 0; d < idx.size(); ++d)
      v += coeffs[d] * idx[d];
    return v;
  }

  void feed(Recorder &rec, int64_t rank, std::vector<int64_t> &idx) const {
    if (idx.size() == trips.size()) {
      rec.write(offset(idx, rank));
      return;
    }
    for (int64_t i = 0; i < trips[idx.size()]; ++i) {
      idx.push_back(i);
      feed(rec, rank, idx);
      idx.pop_back();
    }
  }

  Expr formula() const {
    Expr e = Expr(base) + Expr(perRank) * Expr::rank();
    for (size_t d = 0; d < coeffs.size(); ++d)
      e = e + Expr(coeffs[d]) * Expr::loopIndex(static_cast<uint32_t>(d));
    return e;
  }

  /// A nest no flatter nest explains: no level's step equals the inner
  /// level's step times its trip count (then the two levels are one).
  bool nonDegenerate() const {
    for (size_t d = 0; d + 1 < trips.size(); ++d)
      if (coeffs[d] == coeffs[d + 1] * trips[d + 1])
        return false;
    return true;
  }
};

Nest randomNest(std::mt19937 &rng) {
  Nest n;
  do {
    size_t depth = 2 + rng() % 2; // 2 or 3 (depth 1 is the plain RSD)
    n.trips.clear();
    n.coeffs.clear();
    for (size_t d = 0; d < depth; ++d) {
      n.trips.push_back(2 + static_cast<int64_t>(rng() % 4));
      n.coeffs.push_back(static_cast<int64_t>(rng() % 7) * 64 - 128);
    }
    n.base = static_cast<int64_t>(rng() % 5) * 512;
    n.perRank = static_cast<int64_t>(rng() % 4) * 4096;
  } while (!n.nonDegenerate() || n.coeffs.back() == 0);
  return n;
}

void expectNest(const std::vector<Node> &body, const Nest &nest, uint32_t seed) {
  ASSERT_EQ(body.size(), 1u) << "seed " << seed;
  const Node *node = &body[0];
  for (size_t d = 0; d < nest.trips.size(); ++d) {
    ASSERT_TRUE(node->isLoop()) << "seed " << seed << ": level " << d << " is not a loop";
    const Loop &loop = node->loop();
    EXPECT_EQ(loop.id, 0u);
    EXPECT_EQ(std::get<Expr>(loop.iterations.entries().at(0).value), Expr(nest.trips[d]))
        << "seed " << seed << " level " << d;
    ASSERT_EQ(loop.body.size(), 1u) << "seed " << seed;
    node = &loop.body[0];
  }
  ASSERT_TRUE(node->isEvent()) << "seed " << seed << ": deeper than the nest";
  const Param *offset = node->event().param("offset");
  ASSERT_NE(offset, nullptr);
  ASSERT_EQ(offset->value.entries().size(), 1u) << "seed " << seed;
  EXPECT_EQ(std::get<Expr>(offset->value.entries()[0].value), nest.formula()) << "seed " << seed;
}

TEST(MarkerlessNest, RandomNestsComeOutAsTheNest) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    Nest nest = randomNest(rng);
    const int64_t nranks = 4;
    std::vector<Trace> traces;
    for (int64_t r = 0; r < nranks; ++r) {
      Recorder rec; // no markers at all
      std::vector<int64_t> idx;
      nest.feed(rec, r, idx);
      Trace t;
      t.header.nranks = nranks;
      t.body = rec.compressor.finish(r, nranks);
      // Each rank alone: the nest with the rank's constant.
      Nest mine = nest;
      mine.base += nest.perRank * r;
      mine.perRank = 0;
      expectNest(t.body, mine, seed);
      if (::testing::Test::HasFailure())
        return;
      traces.push_back(std::move(t));
    }
    Trace merged = std::move(traces[0]);
    for (int64_t r = 1; r < nranks; ++r)
      merged = mergeTraces(std::move(merged), std::move(traces[static_cast<size_t>(r)]));
    finalizeMerged(merged);
    expectNest(merged.body, nest, seed); // `c*rank` once the ranks are merged
    if (::testing::Test::HasFailure())
      return;
  }
}

TEST(MarkerlessNest, ExpandsToWhatWasFed) {
  // A nest with a call between time steps is a PRSD already; without one it
  // is refolded. Both replay exactly.
  for (bool separator : {false, true}) {
    Recorder rec;
    for (int64_t t = 0; t < 5; ++t) {
      for (int64_t c = 0; c < 6; ++c)
        rec.write(4096 + 100000 * t + 256 * c);
      if (separator)
        rec.event(makeFlat("MPI_Barrier", 9, {{"comm", 0}}));
    }
    std::vector<FlatEvent> fed = rec.fed;
    std::vector<Node> body = rec.compressor.finish(0, 1);
    EXPECT_EQ(expandNodes(body, 0, 1), fed) << "separator " << separator;
    ASSERT_EQ(body.size(), 1u);
    ASSERT_TRUE(body[0].isLoop());
    EXPECT_EQ(std::get<Expr>(body[0].loop().iterations.entries().at(0).value), Expr(5));
  }
}

TEST(MarkerlessNest, PerIndexTableWithARankTermIsOneFormula) {
  // Arrays of different element sizes written back to back from
  // header + rank*blob: offset = table[i0] + c*rank, the table the same on
  // every rank. Merged: one table plus a rank term, not a table per rank.
  const std::vector<int64_t> table = {0, 8, 40, 48, 112, 120};
  const int64_t nranks = 4;
  Trace merged;
  for (int64_t r = 0; r < nranks; ++r) {
    Recorder rec;
    rec.enter(7);
    for (size_t i = 0; i < table.size(); ++i) {
      rec.iter(7);
      rec.write(64 + table[i] + 1000 * r);
    }
    rec.exit(7);
    Trace t;
    t.header.nranks = nranks;
    t.body = rec.compressor.finish(r, nranks);
    merged = r == 0 ? std::move(t) : mergeTraces(std::move(merged), std::move(t));
  }
  finalizeMerged(merged);
  ASSERT_EQ(merged.body.size(), 1u);
  const Node &write = merged.body[0].loop().body.at(0);
  const Param *offset = write.event().param("offset");
  ASSERT_NE(offset, nullptr);
  ASSERT_EQ(offset->value.entries().size(), 1u) << "one value for all ranks";
  EXPECT_EQ(std::get<Expr>(offset->value.entries()[0].value),
            Expr::table({0, 8, 40, 48, 112, 120}, Expr::loopIndex(0)) + Expr(1000) * Expr::rank() + Expr(64));
}

TEST(MarkerlessNest, RepeatedRunsThatRefoldDifferentlyStayApart) {
  // Two outer iterations look alike while their inner runs are open (12
  // writes, then a barrier) but only one run is a nest (the other is one
  // affine line): when they close, their structures differ and they must not
  // be folded as two iterations of one loop. Either order, and the trace
  // still expands to what was fed.
  for (bool nestFirst : {true, false}) {
    Recorder rec;
    for (int pass = 0; pass < 2; ++pass) {
      bool nest = (pass == 0) == nestFirst;
      for (int64_t k = 0; k < 12; ++k)
        rec.write(nest ? 100000 * (k / 4) + 256 * (k % 4) : 256 * k);
      rec.event(makeFlat("MPI_Barrier", 9, {{"comm", 0}}));
    }
    std::vector<FlatEvent> fed = rec.fed;
    std::vector<Node> body = rec.compressor.finish(0, 1);
    EXPECT_EQ(expandNodes(body, 0, 1), fed) << "nest first " << nestFirst;
    ASSERT_EQ(body.size(), 4u) << "nest first " << nestFirst;
    const Loop &nested = body[nestFirst ? 0 : 2].loop();
    EXPECT_EQ(std::get<Expr>(nested.iterations.entries().at(0).value), Expr(3));
    ASSERT_TRUE(nested.body.at(0).isLoop());
    const Loop &flat = body[nestFirst ? 2 : 0].loop();
    EXPECT_EQ(std::get<Expr>(flat.iterations.entries().at(0).value), Expr(12));
    EXPECT_TRUE(flat.body.at(0).isEvent());
  }
}

TEST(MarkerlessNest, ShortReadsMakeNoNest) {
  // Reads that pass the end of the file halfway through one loop: their
  // results step from 32 to 0 (a table over the flat index that would fold
  // as 2 x 5), but the parameters are one line, so the loop stays flat.
  Recorder rec;
  for (int64_t k = 0; k < 10; ++k)
    rec.event(makeFlat("read", 3, {{"fd", 0}, {"offset", 128 * k}, {"count", 32}, {"result", k < 5 ? 32 : 0}}));
  std::vector<FlatEvent> fed = rec.fed;
  std::vector<Node> body = rec.compressor.finish(0, 1);
  EXPECT_EQ(expandNodes(body, 0, 1), fed);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(std::get<Expr>(body[0].loop().iterations.entries().at(0).value), Expr(10));
  ASSERT_TRUE(body[0].loop().body.at(0).isEvent()) << "a result made a nest";
}

TEST(MarkerlessNest, ResultOffTheNestIsATableOverIt) {
  // The parameters make a 3 x 4 nest; the last read comes up short, so the
  // result follows no model of the nest: it is a table over the nest's flat
  // index, and the nest stays.
  Recorder rec;
  for (int64_t t = 0; t < 3; ++t)
    for (int64_t c = 0; c < 4; ++c)
      rec.event(makeFlat(
          "pread", 3,
          {{"fd", 0}, {"offset", 100000 * t + 256 * c}, {"count", 256}, {"result", t == 2 && c == 3 ? 100 : 256}}));
  std::vector<FlatEvent> fed = rec.fed;
  std::vector<Node> body = rec.compressor.finish(0, 1);
  EXPECT_EQ(expandNodes(body, 0, 1), fed);
  ASSERT_EQ(body.size(), 1u);
  const Loop &outer = body[0].loop();
  EXPECT_EQ(std::get<Expr>(outer.iterations.entries().at(0).value), Expr(3));
  ASSERT_TRUE(outer.body.at(0).isLoop());
  const Loop &inner = outer.body[0].loop();
  EXPECT_EQ(std::get<Expr>(inner.iterations.entries().at(0).value), Expr(4));
  const Event &read = inner.body.at(0).event();
  EXPECT_EQ(std::get<Expr>(read.param("offset")->value.entries().at(0).value),
            Expr(100000) * Expr::loopIndex(0) + Expr(256) * Expr::loopIndex(1));
  std::vector<int64_t> table(12, 0);
  table.back() = -156;
  EXPECT_EQ(std::get<Expr>(read.param("result")->value.entries().at(0).value),
            Expr::table(table, Expr(4) * Expr::loopIndex(0) + Expr::loopIndex(1)) + Expr(256));
}

} // namespace
} // namespace sio::rt::test
