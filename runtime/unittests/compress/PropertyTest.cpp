// Expand-and-compare on random small programs: whatever the compressor and
// the merge build, every rank must replay exactly the events it was fed.
#include "Expand.h"
#include "Recorder.h"

#include <gtest/gtest.h>
#include <random>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

/// A random program: nested marker loops (sometimes without markers), random
/// trip counts, values affine in indices and rank or irregular, structure
/// changing with the index or the rank.
struct RandomProgram {
  uint32_t seed;

  void run(Recorder &rec, int64_t rank) const {
    std::mt19937 shape(seed);       // same program on every rank
    std::mt19937 noise(seed + 1000 * static_cast<uint32_t>(rank) + 1);
    std::vector<int64_t> idx;
    block(rec, rank, shape, noise, idx, 0, false);
  }

  void block(Recorder &rec, int64_t rank, std::mt19937 &shape, std::mt19937 &noise, std::vector<int64_t> &idx,
             int depth, bool insideVariableTrips) const {
    int items = 1 + static_cast<int>(shape() % 3);
    for (int k = 0; k < items; ++k) {
      uint32_t kind = shape() % 10;
      if (kind < 4 && depth < 3) {
        uint64_t loopId = 100 + shape() % 5;
        bool markers = shape() % 4 != 0;
        int trips = static_cast<int>(shape() % 6);
        bool triangular = shape() % 3 == 0 && !idx.empty();
        if (triangular)
          trips = static_cast<int>(idx.back()) + 1;
        std::mt19937 bodyShape = shape; // every iteration replays the same shape stream
        if (markers)
          rec.enter(loopId);
        for (int i = 0; i < trips; ++i) {
          if (markers)
            rec.iter(loopId);
          std::mt19937 s = bodyShape;
          idx.push_back(i);
          block(rec, rank, s, noise, idx, depth + 1, insideVariableTrips || triangular);
          idx.pop_back();
        }
        if (markers && shape() % 5 != 0) // sometimes the exit is missing
          rec.exit(loopId);
        shape.discard(7);
      } else {
        int64_t a = shape() % 5, b = shape() % 3 * 64, c = shape() % 4 * 100;
        int64_t offset = c + b * rank;
        for (size_t d = 0; d < idx.size(); ++d)
          offset += (a + static_cast<int64_t>(d)) * 17 * idx[d];
        (void)insideVariableTrips;
        if (shape() % 6 == 0)
          offset = noise() % 50; // irregular
        uint64_t site = 1 + shape() % 4;
        bool rankVariant = shape() % 8 == 0 && rank % 2 == 1;
        bool indexVariant = shape() % 8 == 0 && !idx.empty() && idx.back() % 3 == 2;
        std::string op = rankVariant || indexVariant ? "read" : "write";
        rec.event(makeFlat(op, site, {{"fd", 3}, {"offset", offset}, {"count", 8 + a}}));
      }
    }
  }
};

TEST(Property, RandomProgramsReplayExactlyPerRankAndMerged) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    RandomProgram program{seed};
    const int64_t nranks = 1 + seed % 6;
    std::vector<Trace> traces;
    std::vector<std::vector<FlatEvent>> fed;
    for (int64_t r = 0; r < nranks; ++r) {
      CompressorOptions opts;
      opts.maxWindow = 1 + seed % 8;
      Recorder rec(opts);
      program.run(rec, r);
      Trace t;
      t.header.nranks = nranks;
      t.body = rec.compressor.finish(r, nranks);
      ASSERT_EQ(expandNodes(t.body, r, nranks), rec.fed) << "seed " << seed << " rank " << r;
      traces.push_back(std::move(t));
      fed.push_back(rec.fed);
    }
    expectMergedExpandsToFed(traces, fed, "seed " + std::to_string(seed));
    if (HasFatalFailure())
      return;
  }
}

// A table over an inner index whose trip count varies across outer iterations
// must not be folded across them (it would be indexed out of its range).
TEST(Property, TablesInsideVariableTripLoopsStayExact) {
  Recorder rec;
  rec.enter(1);
  for (int a = 0; a < 4; ++a) {
    rec.iter(1);
    rec.enter(2);
    for (int b = 0; b <= a; ++b) {
      rec.iter(2);
      rec.write((a * 7919 + b * 104729) % 13);
    }
    rec.exit(2);
  }
  rec.exit(1);
  auto nodes = rec.compressor.finish(0, 1);
  EXPECT_EQ(expandNodes(nodes, 0, 1), rec.fed);
}

} // namespace
} // namespace sio::rt::test
