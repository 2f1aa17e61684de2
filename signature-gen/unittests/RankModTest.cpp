// Offsets with `%` terms of the rank are analysed per piece of ranks, not
// rank by rank (RankMod.h): the grouped answer must equal what each rank's
// own analysis gives, for every rank, whatever the form of the term.
#include "TestTraces.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>

using namespace sio::signature;
using namespace sio::signature::testing;

namespace {

/// Every rank's initial position and signature text, from the groups.
std::map<int64_t, std::pair<int64_t, std::string>> byRank(const SignatureReport &r, int64_t nranks) {
  std::map<int64_t, std::pair<int64_t, std::string>> out;
  for (const SignatureGroup &g : r.groups) {
    StreamSignature s = g.signature;
    s.trace.initialPosition = 0;
    const std::string text = traceSignatureText(s.trace) + patternSignatureText(s.pattern);
    for (int64_t rank : g.ranks.ranks()) {
      int64_t pos = 0;
      if (g.initialPosition) {
        pos = *g.initialPosition->evaluate({rank, nranks, {}});
      } else {
        bool found = false;
        for (const auto &[rr, p] : g.initialPositions)
          if (rr == rank) {
            pos = p;
            found = true;
          }
        EXPECT_TRUE(found) << "rank " << rank << " has no position";
      }
      EXPECT_TRUE(out.emplace(rank, std::pair(pos, text + "/" + std::to_string(s.file))).second)
          << "rank " << rank << " in two groups of one stream";
    }
  }
  return out;
}

} // namespace

TEST(SignatureRankMod, GroupedEqualsRankByRank) {
  const char *forms[] = {"32768*((rank + 1) % nranks)",          "4096*((rank + 3) % 5)",
                         "100*((2*rank + 1) % nranks) + 7*rank", "64*(rank % 3)",
                         "512*((nranks - 1 - rank) % 4)",        "8*((rank + 2) % nranks)",
                         "1000*((3*rank) % 7) + 4096*rank"};
  for (const char *form : forms)
    for (int64_t n : {1, 2, 5, 12, 37}) {
      Trace t = baseTrace(n);
      t.body = {mpiOpen(t), loop(t, Expr(8), {writeAt(t, ex(form) + ex("4096*i0"), Expr(4096))})};
      try {
        const SignatureReport all = analyze(t, {});
        const auto grouped = byRank(all, n);
        ASSERT_EQ(int64_t(grouped.size()), n) << form << " at " << n;
        for (int64_t r = 0; r < n; ++r) {
          Options one;
          one.rank = r;
          const auto single = byRank(analyze(t, one), n);
          EXPECT_EQ(grouped.at(r), single.at(r)) << form << " at " << n << ", rank " << r;
        }
      } catch (const std::exception &e) {
        ADD_FAILURE() << form << " at " << n << ": " << e.what();
      }
    }
}

TEST(SignatureRankMod, MillionRanksAreAnalysedByPieces) {
  const int64_t n = 1 << 20;
  Trace t = baseTrace(n);
  t.body = {mpiOpen(t), loop(t, Expr(8), {writeAt(t, ex("32768*((rank + 1) % nranks) + 4096*i0"), Expr(4096))})};
  int64_t calls = 0;
  Options o;
  o.progress = [&](int64_t, int64_t) { ++calls; };
  const auto start = std::chrono::steady_clock::now();
  const SignatureReport r = analyze(t, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.groups.size(), 1u);
  ASSERT_TRUE(r.groups[0].initialPosition);
  EXPECT_EQ(r.groups[0].initialPosition->str(), "32768*((rank + 1) % nranks)");
  EXPECT_TRUE(r.groups[0].initialPositions.empty()); // the formula stands for the million ranks
  EXPECT_LT(seconds, 5.0);                           // rank by rank it took minutes; a loaded machine gets a margin
}

namespace {

/// The accesses a trace signature describes, through the library's rule
/// (the one the prefetch library plans with).
std::vector<std::pair<int64_t, int64_t>> rebuild(const TraceSignature &sig) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const std::vector<RebuiltAccess> accesses = rebuildAccesses(sig, SIZE_MAX).value();
  for (const RebuiltAccess &a : accesses)
    out.emplace_back(a.offset, a.size);
  return out;
}

} // namespace

// Random loop nests, some under a table of starts: the signature read off
// the loops rebuilds exactly the accesses the trace describes.
TEST(SignatureNest, RandomNestsRebuildTheirAccesses) {
  uint64_t seed = 12345;
  auto next = [&](int64_t lo, int64_t hi) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return lo + int64_t((seed >> 33) % uint64_t(hi - lo + 1));
  };
  for (int round = 0; round < 200; ++round) {
    const int depth = int(next(2, 4));
    const bool table = next(0, 1) == 1;
    std::vector<int64_t> counts, strides;
    for (int l = 0; l < depth; ++l) {
      counts.push_back(next(1, 4));
      strides.push_back(next(-3, 40) * 64);
    }
    const int64_t size = next(1, 8) * 16;
    std::vector<int64_t> starts;
    for (int k = 0; k < 3; ++k)
      starts.push_back(next(0, 100000));
    // Loop nest, outermost first; with a table, its loop sits at depth 1.
    Trace t = baseTrace();
    std::string offset = "100000000";
    const int tableDepth = table ? 1 : -1;
    int idx = 0;
    for (int l = 0; l < depth + (table ? 1 : 0); ++l) {
      if (l == tableDepth) {
        offset += " + [" + std::to_string(starts[0]) + ", " + std::to_string(starts[1]) + ", " +
                  std::to_string(starts[2]) + "][i" + std::to_string(l) + "]";
        continue;
      }
      offset += " + " + std::to_string(strides[size_t(idx++)]) + "*i" + std::to_string(l);
    }
    Node body = readAt(t, ex(offset), Expr(size));
    for (int l = depth + (table ? 1 : 0) - 1; l >= 0; --l) {
      const int64_t n = l == tableDepth ? 3 : counts[size_t(l > tableDepth && table ? l - 1 : l)];
      body = loop(t, Expr(n), {body});
    }
    t.body = {mpiOpen(t), body};
    // Expected: every index tuple in order.
    std::vector<std::pair<int64_t, int64_t>> expected;
    const int levels = depth + (table ? 1 : 0);
    std::vector<int64_t> at(size_t(levels), 0);
    for (;;) {
      int64_t o = 100000000;
      int k = 0;
      for (int l = 0; l < levels; ++l)
        o += l == tableDepth ? starts[size_t(at[size_t(l)])] : strides[size_t(k++)] * at[size_t(l)];
      expected.emplace_back(o, size);
      int l = levels;
      while (l > 0) {
        const int64_t n = (l - 1) == tableDepth ? 3 : counts[size_t((l - 1) > tableDepth && table ? l - 2 : l - 1)];
        if (++at[size_t(l - 1)] < n)
          break;
        at[size_t(--l)] = 0;
      }
      if (l == 0)
        break;
    }
    const StreamSignature s = only(t);
    if (s.pattern.spatial == Spatial::Random || s.pattern.spatial == Spatial::VariableStrided)
      continue; // a table the detectors could not describe: nothing to rebuild
    EXPECT_EQ(rebuild(s.trace), expected)
        << "round " << round << ": " << offset << " -> " << traceSignatureText(s.trace);
  }
}
