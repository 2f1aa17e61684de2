// Loops whose iterations change structure with the data (a branch in the
// loop body): once their runs outgrow what repetition detection folds, they
// become choice runs (IntraRankCompressor: one guard loop per alternative).
// The body must stay exact (expand -> what was fed, through the Event and
// the RawEvent paths) and its size must not grow with the iterations.
#include "Expand.h"
#include "IntraRank.h"
#include "Recorder.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

FlatEvent pread(int64_t offset, int64_t count = 8) {
  return makeFlat("pread", 1, {{"fd", 3}, {"count", count}, {"offset", offset}});
}
FlatEvent pwrite(int64_t offset, int64_t count = 8) {
  return makeFlat("pwrite", 2, {{"fd", 3}, {"count", count}, {"offset", offset}});
}

TEST(Choice, SteadyStateCountsBranchesWithoutEvents) {
  // Once the guards and values are in steady state (lines or columns), the
  // RawEvent path matches each call against every alternative and commits
  // the one matched in full; alternatives that share their first call
  // (write, write + read back) are told apart at the iteration's end. Late
  // surprises (a third alternative, a value off its line, a longer
  // iteration, a nested loop) replay what was matched into the general path.
  Twin t;
  std::mt19937 g(5);
  t.enter(4);
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    t.iter(4);
    const int64_t at = g() % 100000;
    t.event(pwrite(at, 1));
    if (g() % 3 == 0)
      t.event(pread(8 * i, 1));
    if (i == 15000) // a third alternative
      t.event(makeFlat("lseek", 3, {{"fd", 3}, {"offset", 0}, {"whence", 0}}));
    if (i == 17000) { // a nested loop in one iteration
      t.enter(5);
      t.iter(5);
      t.event(pwrite(1, 1));
      t.exit(5);
    }
  }
  t.event(pwrite(7, 1)); // an iteration cut short by the exit
  t.exit(4);
  EXPECT_GT(t.viaRaw.fastEventCount(), 9 * t.viaRaw.eventCount() / 10)
      << t.viaRaw.fastEventCount() << " of " << t.viaRaw.eventCount() << " calls on the steady-state path";
  t.check("steady state of a choice run");
}

/// Choice runs in a body: marker loops whose body is guard loops (id 0).
size_t countChoiceRuns(const std::vector<Node> &nodes) {
  size_t c = 0;
  for (const Node &n : nodes) {
    if (n.isEvent())
      continue;
    const Loop &l = n.loop();
    c += l.id != 0 && !l.body.empty() &&
         std::all_of(l.body.begin(), l.body.end(), [](const Node &g) { return !g.isEvent() && g.loop().id == 0; });
    c += countChoiceRuns(l.body);
  }
  return c;
}

/// A marker loop (id 9) of n iterations that each read at 8*i or write at a
/// random offset, at random.
std::vector<Node> readOrWrite(int n) {
  Twin t;
  std::mt19937 g(1);
  t.enter(9);
  for (int i = 0; i < n; ++i) {
    t.iter(9);
    t.event(g() % 2 ? pread(8 * i) : pwrite(g() % 100000));
  }
  t.exit(9);
  return t.check("read or write, " + std::to_string(n) + " iterations");
}

TEST(Choice, RandomBranchBecomesOneLoopWithAGuardPerAlternative) {
  std::vector<Node> body = readOrWrite(20000);
  // Before the switch, the runs that repetition detection could not fold;
  // then one choice run to the end: the body does not grow with n.
  EXPECT_EQ(countNodes(body), countNodes(readOrWrite(5000)));
  EXPECT_LT(countNodes(body), 600u);
  ASSERT_FALSE(body.back().isEvent());
  const Loop &last = body.back().loop();
  EXPECT_EQ(last.id, 9u);
  ASSERT_EQ(last.body.size(), 2u) << "one guard per alternative";
  for (const Node &guard : last.body) {
    ASSERT_FALSE(guard.isEvent());
    EXPECT_EQ(guard.loop().id, 0u);
    ASSERT_EQ(guard.loop().body.size(), 1u);
    const Event &call = guard.loop().body[0].event();
    const std::string offset = std::get<Expr>(call.param("offset")->value.entries()[0].value).str();
    // The reads' offsets 8*i fit a model over the index even with the gaps
    // the writes leave; the writes' random offsets are an integer table (the
    // gaps filled with integers: no denominator).
    if (call.op == "pread")
      EXPECT_EQ(offset.find('['), std::string::npos) << offset;
    else
      EXPECT_EQ(offset.find('/'), std::string::npos) << offset.substr(0, 200);
  }
}

/// 60 steps of an outer loop around `inner` iterations of a branchy loop.
std::vector<Node> timeSteps(int steps, int inner) {
  Twin t;
  std::mt19937 g(2);
  t.enter(1);
  for (int step = 0; step < steps; ++step) {
    t.iter(1);
    t.enter(9);
    for (int i = 0; i < inner; ++i) {
      t.iter(9);
      t.event(g() % 2 ? pread(8 * i) : pwrite(g() % 100000));
    }
    t.exit(9);
  }
  t.exit(1);
  return t.check("time steps");
}

TEST(Choice, LaterExecutionsOfTheLoopStartChoiceRunsAtOnce) {
  // The first execution leaves its plain runs; each later one at most a
  // plain run before its first change of structure, and its choice run
  // (two guards of one call each): a few nodes a step, however long the
  // inner loop.
  const size_t steps = 40, short_ = countNodes(timeSteps(steps, 400)), long_ = countNodes(timeSteps(steps, 1600));
  EXPECT_LE(long_, short_ + steps) << short_ << " nodes for 400 iterations a step, " << long_ << " for 1600";
  EXPECT_LE(long_, 12 * steps) << long_ << " nodes for " << steps << " steps";
}

/// Each iteration writes at a random offset, one in three reads it back,
/// and an inner loop writes 0 to 3 blocks.
std::vector<Node> optionalCalls(int n) {
  Twin t;
  std::mt19937 g(3);
  t.enter(4);
  for (int i = 0; i < n; ++i) {
    t.iter(4);
    const int64_t at = g() % 100000;
    t.event(pwrite(at, 1));
    if (g() % 3 == 0)
      t.event(pread(at, 1));
    const int blocks = static_cast<int>(g() % 4);
    t.enter(5);
    for (int b = 0; b < blocks; ++b) {
      t.iter(5);
      t.event(pwrite(64 * i + 16 * b, 16));
    }
    t.exit(5);
  }
  t.exit(4);
  return t.check("optional call, inner loop, " + std::to_string(n) + " iterations");
}

TEST(Choice, AnOptionalCallAndAnInnerLoopThatSometimesDoesNotRun) {
  EXPECT_EQ(countNodes(optionalCalls(20000)), countNodes(optionalCalls(5000)));
}

TEST(Choice, MoreAlternativesThanGuardsStartAnotherRun) {
  Twin t;
  std::mt19937 g(4);
  t.enter(6);
  for (int i = 0; i < 3000; ++i) {
    t.iter(6);
    // 24 structures: a call at one of 24 sites.
    const uint64_t site = 10 + g() % 24;
    t.event(makeFlat("pwrite", site, {{"fd", 3}, {"count", 1}, {"offset", int64_t(g() % 1000)}}));
  }
  t.exit(6);
  t.check("24 alternatives");
}

TEST(Choice, RanksThatTookDifferentBranchesMergeExactly) {
  // Each rank branches on its own random numbers and meets the alternatives
  // in another order: the guards are ordered by structure, so the ranks'
  // choice runs merge into one node with rank-varying trip counts.
  const int64_t nranks = 4;
  std::vector<Trace> traces;
  std::vector<std::vector<FlatEvent>> fed;
  for (int64_t r = 0; r < nranks; ++r) {
    Recorder rec;
    std::mt19937 g(100 + static_cast<uint32_t>(r));
    rec.enter(9);
    for (int i = 0; i < 3000; ++i) {
      rec.iter(9);
      const uint32_t v = g();
      if (v % 3 == 0)
        rec.event(pread(8 * i));
      else if (v % 3 == 1)
        rec.event(pwrite(g() % 5000));
      else
        rec.event(makeFlat("lseek", 3, {{"fd", 3}, {"offset", 4 * i}, {"whence", 0}}));
    }
    rec.exit(9);
    Trace t;
    t.header.nranks = nranks;
    t.body = rec.compressor.finish(r, nranks);
    ASSERT_EQ(expandNodes(t.body, r, nranks), rec.fed) << "rank " << r;
    EXPECT_EQ(countChoiceRuns(t.body), 1u) << "rank " << r;
    traces.push_back(std::move(t));
    fed.push_back(rec.fed);
  }
  expectMergedExpandsToFed(traces, fed, "branches");
}

/// Random mixes of regular and irregular streams: iterations that pick one
/// of a few bodies (calls, inner loops with 0 or more trips, affine or
/// random values, text), sometimes for long stretches, sometimes per
/// iteration, inside and outside other loops, with small windows so that
/// choice runs start early. Expansion must give back what was fed.
TEST(Choice, RandomBranchyProgramsExpandToWhatWasFed) {
  size_t choiceRuns = 0;
  uint64_t fast = 0;
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    std::mt19937 g(seed);
    CompressorOptions opts;
    opts.maxWindow = 1 + seed % 6;
    Twin t;
    t.viaEvent = IntraRankCompressor(opts);
    t.viaRaw = IntraRankCompressor(opts);
    // (Twin's compressors take the default options otherwise.)
    const int alternatives = 1 + static_cast<int>(g() % 5);
    const int steps = 1 + static_cast<int>(g() % 4);
    const bool stretches = g() % 3 == 0; // the same alternative for a while
    t.enter(1);
    for (int step = 0; step < steps; ++step) {
      t.iter(1);
      t.enter(2);
      const int n = static_cast<int>(g() % 300);
      int choice = 0;
      for (int i = 0; i < n; ++i) {
        t.iter(2);
        if (!stretches || g() % 20 == 0)
          choice = static_cast<int>(g() % static_cast<uint32_t>(alternatives));
        switch (choice) {
        case 0:
          t.event(pread(8 * i));
          break;
        case 1:
          t.event(pwrite(g() % 5000, 1 + g() % 3));
          break;
        case 2: {
          t.event(pwrite(16 * i));
          const int trips = static_cast<int>(g() % 3);
          t.enter(3);
          for (int b = 0; b < trips; ++b) {
            t.iter(3);
            t.event(pread(16 * i + 4 * b, 4));
          }
          t.exit(3);
          break;
        }
        case 3:
          t.event(makeFlat("fopen", 7, {{"path", std::string(g() % 2 ? "a" : "b")}, {"mode", std::string("r")}}));
          break;
        default: // no call: the iteration is not counted
          break;
        }
      }
      if (g() % 4)
        t.exit(2);
    }
    t.exit(1);
    fast += t.viaRaw.fastEventCount();
    choiceRuns += countChoiceRuns(t.check("seed " + std::to_string(seed)));
    if (HasFatalFailure() || HasFailure())
      return;
  }
  EXPECT_GT(choiceRuns, 50u) << "choice runs were hardly made";
  EXPECT_GT(fast, 10000u) << "the steady state of choice runs was hardly taken";
}

} // namespace
} // namespace sio::rt::test
