// The steady-state path of IntraRankCompressor::event(const RawEvent &) must
// change nothing but the cost: fed the same calls as Events and as
// RawEvents, two compressors return identical bodies (structure, models,
// timing statistics), and the path is actually taken in steady loops.
#include "Expand.h"
#include "IntraRank.h"
#include "Recorder.h"

#include <gtest/gtest.h>
#include <random>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

FlatEvent write(int64_t offset, uint64_t site = 1, int64_t count = 64) {
  return makeFlat("MPI_File_write_at", site,
                  {{"fh", 0}, {"offset", offset}, {"count", count}});
}

TEST(FastPath, AffineLoopIsCountedWithoutEvents) {
  Twin t;
  t.enter(7);
  for (int i = 0; i < 1000; ++i) {
    t.iter(7);
    t.event(write(960 * i + 4));
    t.event(makeFlat("pwrite", 2,
                     {{"fd", 3}, {"count", 64}, {"offset", 960 * i + 4}}));
  }
  t.exit(7);
  // Two iterations fold the run, the third arms the path.
  EXPECT_EQ(t.viaRaw.fastEventCount(), 2u * (1000 - 2));
  EXPECT_EQ(t.viaEvent.fastEventCount(), 0u);
  t.check("affine loop");
}

TEST(FastPath, NamesMatchByTextWhateverTheirAddress) {
  // The path remembers the address of an op or name that matched; a text
  // at another address must still be compared: two copies of a literal
  // match, another op or name at the same site does not.
  static const char pwriteA[] = "pwrite", pwriteB[] = "pwrite", pread[] = "pread";
  static const char offsetA[] = "offset", offsetB[] = "offset", whence[] = "whence";
  Twin t;
  auto call = [&](int64_t offset, const char *op, const char *name) {
    t.event(makeFlat(op, 2, {{"fd", 3}, {name, offset}}), op, {t.address("fd"), name});
  };
  t.enter(1);
  for (int i = 0; i < 100; ++i) {
    t.iter(1);
    call(64 * i, i % 2 ? pwriteA : pwriteB, i % 3 ? offsetA : offsetB);
  }
  EXPECT_EQ(t.viaRaw.fastEventCount(), 100u - 2) << "a copy of the text at another address did not match";
  for (int i = 100; i < 140; ++i) {
    t.iter(1);
    call(64 * i, i == 110 ? pread : pwriteA, i == 120 ? whence : offsetA);
  }
  t.exit(1);
  t.check("names at several addresses"); // a stale match of pread or whence differs here
}

TEST(FastPath, BreaksInTheSteadyStateFallBackExactly) {
  Twin t;
  t.enter(1);
  for (int i = 0; i < 40; ++i) {
    t.iter(1);
    t.event(write(i == 17 ? 5 : 64 * i)); // one irregular value
    if (i != 23)                          // one shorter iteration
      t.event(makeFlat("fsync", 3, {{"fd", 3}}));
    if (i == 30) // one longer iteration
      t.event(makeFlat("fsync", 3, {{"fd", 3}}));
    if (i % 10 == 9) // empty iterations
      t.iter(1);
    if (i == 35) { // a nested loop appears
      t.enter(2);
      t.iter(2);
      t.event(write(1));
      t.exit(2);
    }
  }
  t.exit(1);
  EXPECT_GT(t.viaRaw.fastEventCount(), 0u);
  t.check("breaks");
}

TEST(FastPath, TextAndOverflowAndMissingExit) {
  Twin t;
  t.enter(1);
  const int64_t big =
      INT64_MAX - 9 * 1000 - 1; // the last value fits, its successor does not
  for (int i = 0; i < 10; ++i) {
    t.iter(1);
    t.event(makeFlat(
        "fopen", 4,
        {{"path", i == 6 ? std::string("b.txt") : std::string("a.txt")},
         {"mode", 1}}));
    t.event(write(big + 1000 * i));
  }
  // No exit marker: finish() closes the loop.
  EXPECT_GT(t.viaRaw.fastEventCount(), 0u);
  t.check("text and overflow");
}

TEST(FastPath, RandomProgramsGiveIdenticalBodies) {
  uint64_t fast = 0;
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    std::mt19937 g(seed);
    Twin t;
    std::vector<int64_t> idx;
    // Nested marker loops with long trip counts (so that the path arms),
    // affine values, and now and then an irregular value, a structure
    // change, an empty iteration, a missing exit or an unknown iter.
    auto body = [&](auto &self, int depth) -> void {
      int items = 1 + static_cast<int>(g() % 3);
      for (int k = 0; k < items; ++k) {
        if (g() % 3 == 0 && depth < 3) {
          uint64_t id = 10 + g() % 4;
          int trips = static_cast<int>(g() % 12);
          std::mt19937 shape = g;
          t.enter(id);
          for (int i = 0; i < trips; ++i) {
            t.iter(id);
            if (g() % 23 == 0)
              t.iter(id); // empty iteration
            std::mt19937 saved = g;
            g = shape;
            idx.push_back(i);
            self(self, depth + 1);
            idx.pop_back();
            g = saved;
            if (g() % 29 == 0)
              t.event(write(-1, 9)); // structure change
          }
          if (g() % 6 != 0)
            t.exit(id);
          if (g() % 17 == 0)
            t.iter(99); // an iter of a loop never entered
        } else {
          int64_t offset = static_cast<int64_t>(g() % 4) * 100;
          for (size_t d = 0; d < idx.size(); ++d)
            offset += static_cast<int64_t>(d + 1) * 64 * idx[d];
          if (g() % 19 == 0)
            offset = static_cast<int64_t>(g() % 1000); // irregular
          uint64_t site = 1 + g() % 3;
          if (g() % 5 == 0)
            t.event(makeFlat("fopen", site,
                             {{"path", std::string(g() % 7 ? "x" : "y")}}));
          else
            t.event(write(offset, site, 8 + static_cast<int64_t>(g() % 2) * 8));
        }
      }
    };
    body(body, 0);
    fast += t.viaRaw.fastEventCount();
    t.check("seed " + std::to_string(seed));
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(fast, 1000u) << "the steady-state path was hardly taken";
}

TEST(FastPath, MarkerlessLoopIsCountedWithoutEvents) {
  // A program built without the plugin: no markers, one call site, random
  // offsets (the stream the store keeps) and a constant count.
  Twin t;
  std::mt19937_64 g(7);
  for (int i = 0; i < 5000; ++i)
    t.event(makeFlat("pwrite", 0, {{"fd", 3}, {"count", 1}, {"offset", static_cast<int64_t>(g() % 100000)}}));
  EXPECT_GT(t.viaRaw.fastEventCount(), 5000u - 10) << "the marker-less loop was not taken by the fast path";
  EXPECT_EQ(t.viaEvent.fastEventCount(), 0u);
  auto body = t.check("random offsets");
  ASSERT_EQ(body.size(), 1u);
  ASSERT_FALSE(body[0].isEvent());
}

TEST(FastPath, MarkerlessPatternsThatFoldFurtherAreLeftToTheGeneralPath) {
  // Calls by letter: A-C writes at sites 1-3, F an fopen at site 3. In each
  // stream a marker-less loop is open at the end of the sequence while the
  // calls that come next fold with what precedes it (PRSDs), which the path
  // must leave to the general one.
  for (std::string stream : {"BABCBABCBABFBABCBABCBABFBABCBABCBABCBABCBABFBABCBABCBABFBABCBABCBABC",
                             "CFAFCFACFCAFCCCCACFFAFFCAFFFAFFCAFFFAFFCAFFFACCFACFCAFCFACCFACFCACAFAC",
                             "ABABABCABABABCABABABCABABABCABABABC"}) {
    Twin t;
    int64_t i = 0;
    for (char c : stream) {
      if (c == 'F')
        t.event(makeFlat("fopen", 3, {{"path", std::string("x")}}));
      else
        t.event(write(64 * (i++ % 5), static_cast<uint64_t>(c - 'A' + 1)));
    }
    t.check(stream);
  }
}

TEST(FastPath, RandomMarkerlessProgramsGiveIdenticalBodies) {
  uint64_t fast = 0;
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    std::mt19937 g(seed);
    Twin t;
    // Runs of repeated windows of 1-4 calls without markers, with
    // constant, affine, random and now and then irregular values, text,
    // repeated runs (nests found without markers), broken iterations and
    // sometimes a marker loop around it all.
    if (g() % 2) // a long sequence before the loops (more than 2 * maxWindow nodes)
      for (int k = 0; k < 150; ++k)
        t.event(write(k, 100 + static_cast<uint64_t>(k % 140)));
    const bool marked = g() % 4 == 0;
    int trips = marked ? 1 + static_cast<int>(g() % 4) : 1;
    if (marked)
      t.enter(50);
    for (int trip = 0; trip < trips; ++trip) {
      if (marked)
        t.iter(50);
      int runs = 1 + static_cast<int>(g() % 6);
      for (int r = 0; r < runs; ++r) {
        int width = 1 + static_cast<int>(g() % 4);
        int reps = static_cast<int>(g() % 40);
        int64_t stride = static_cast<int64_t>(g() % 3) * 64;
        bool randomOffsets = g() % 3 == 0;
        std::vector<uint64_t> sites;
        for (int k = 0; k < width; ++k)
          sites.push_back(1 + g() % 3);
        for (int i = 0; i < reps; ++i) {
          for (int k = 0; k < width; ++k) {
            if (g() % 97 == 0)
              break; // an iteration cut short
            int64_t offset = randomOffsets ? static_cast<int64_t>(g() % 5000) : stride * i + k;
            if (g() % 53 == 0)
              offset = static_cast<int64_t>(g() % 7); // irregular
            if (sites[k] == 3 && g() % 2)
              t.event(makeFlat("fopen", 3, {{"path", std::string(g() % 11 ? "x" : "y")}}));
            else
              t.event(write(offset, sites[k], g() % 61 ? 8 : 16));
          }
        }
        if (g() % 3 == 0) // the same run again right away: a nest without markers
          r -= g() % 2;
      }
    }
    if (marked && g() % 2)
      t.exit(50);
    fast += t.viaRaw.fastEventCount();
    t.check("seed " + std::to_string(seed));
    if (HasFatalFailure())
      return;
  }
  EXPECT_GT(fast, 10000u) << "the marker-less steady-state path was hardly taken";
}

} // namespace
} // namespace sio::rt::test
