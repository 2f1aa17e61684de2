// The per-site store of values that follow no model (issue 20): a marker
// loop whose values stop fitting a line appends them to a packed column on
// the steady-state path, with no Event built; the result is the one the
// general path gives, it expands to exactly the calls fed, it survives the
// JSON form (packed tables), and a stream that turns regular again is split
// at a retry point so that its rest compresses to a model.
#include "Expand.h"
#include "IntraRank.h"
#include "Recorder.h"

#include "sio/trace/Json.h"

#include <gtest/gtest.h>
#include <random>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

bool hasTable(const std::vector<Node> &nodes, size_t n);

/// A Twin (Recorder.h) whose check also writes the trace and reads it back.
struct StoreTwin : Twin {
  /// Checks both bodies are equal, expand to `fed`, and do so again after
  /// the trace's JSON form is written and read back; returns the body.
  std::vector<Node> check(const std::string &what) {
    std::vector<Node> b = Twin::check(what);
    Trace t;
    t.header.nranks = 1;
    t.body = b;
    // The streamed writer (writeTraceTo, used for trace files and for
    // shipping between ranks) writes long tables packed, in both forms.
    const std::string text = writeTraceString(t);
    if (hasTable(b, Expr::kPackedTableMin)) {
      EXPECT_NE(text.find("[#"), std::string::npos) << what;
    }
    Trace back = readTraceString(text, what);
    EXPECT_EQ(back.body, b) << what;
    EXPECT_EQ(expandNodes(back.body, 0, 1), fed) << what;
    std::string compact;
    writeTraceTo([&](std::string_view piece) { compact += piece; }, t, /*pretty=*/false);
    EXPECT_EQ(compact.find("\n  "), std::string::npos) << what;
    EXPECT_EQ(readTraceString(compact, what).body, b) << what;
    return b;
  }
};

FlatEvent pwrite(int64_t offset, int64_t count = 1, uint64_t site = 1) {
  return makeFlat("pwrite", site, {{"fd", 3}, {"count", count}, {"offset", offset}, {"result", count}});
}

/// Whether any value of the nodes is a table of at least `n` values.
bool hasTable(const std::vector<Node> &nodes, size_t n) {
  for (const Node &node : nodes) {
    if (node.isLoop()) {
      if (hasTable(node.loop().body, n))
        return true;
      continue;
    }
    for (const Param &p : node.event().params)
      for (const auto &entry : p.value.entries())
        if (const Expr *e = std::get_if<Expr>(&entry.value))
          for (const auto &[m, c] : e->terms())
            for (const auto &[atom, exp] : m)
              if (atom.kind == Atom::Kind::Table && atom.table->size() >= n)
                return true;
  }
  return false;
}

TEST(Store, RandomOffsetsGoToTheStoreWithoutEvents) {
  StoreTwin t;
  std::mt19937_64 g(5);
  const int n = 20000;
  t.enter(4);
  for (int i = 0; i < n; ++i) {
    t.iter(4);
    t.event(pwrite(static_cast<int64_t>(g() % 100000)));
  }
  // The store's footprint while recording: ~17 bits a value (2.2 bytes).
  EXPECT_LT(t.viaRaw.approxBytes(), 9u * n / 2 + 8192); // with the column vector's spare capacity
  t.exit(4);
  // A few iterations fold the run and table the offset, later ones are stored
  // on the steady-state path (the retry points at 256, 512, ... go the general way).
  EXPECT_GT(t.viaRaw.fastEventCount(), uint64_t(n) - 40);
  std::vector<Node> body = t.check("random offsets");
  ASSERT_EQ(body.size(), 1u);
  EXPECT_TRUE(hasTable(body, n));
}

TEST(Store, ValuesFarApartKeepTheirValues) {
  // The store keeps values less the first one (the table's constant term);
  // here some differences overflow int64_t, and the table holds the values
  // as they are, on both paths.
  StoreTwin t;
  std::mt19937_64 g(11);
  const int n = 3000;
  t.enter(4);
  for (int i = 0; i < n; ++i) {
    t.iter(4);
    const int64_t far = i % 7 == 3 ? INT64_MAX - int64_t(g() % 1000) : INT64_MIN + 1 + int64_t(g() % 1000);
    t.event(pwrite(i == 0 ? INT64_MIN + 10 : i % 2 ? far : int64_t(g() % 100000)));
  }
  t.exit(4);
  EXPECT_TRUE(hasTable(t.check("differences overflow"), n));
}

TEST(Store, RetryOnASampleSplitsWhenValuesTurnRegular) {
  StoreTwin t;
  std::mt19937_64 g(9);
  t.enter(4);
  for (int i = 0; i < 3000; ++i) {
    t.iter(4);
    t.event(pwrite(i < 600 ? static_cast<int64_t>(g() % 100000) : 4096 * i + 7));
  }
  t.exit(4);
  std::vector<Node> body = t.check("random then strided");
  // Split at the retry point after the values turned regular (1024): a run
  // with a table, then one with the model 4096*i0 + ..., not a table of 3000.
  ASSERT_EQ(body.size(), 2u);
  EXPECT_TRUE(hasTable({body[0]}, 600));
  EXPECT_FALSE(hasTable({body[1]}, 2));
  EXPECT_FALSE(hasTable(body, 3000));
}

TEST(Store, RandomMixesOfRegularAndIrregularStreamsRoundTrip) {
  uint64_t fast = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 g(seed);
    StoreTwin t;
    int loops = 1 + static_cast<int>(g() % 3);
    for (int l = 0; l < loops; ++l) {
      uint64_t id = 20 + g() % 3;
      int trips = 50 + static_cast<int>(g() % 1500);
      int phase = static_cast<int>(g() % 4); // irregular from, to (fractions)
      int from = trips * static_cast<int>(g() % 3) / 4, to = from + trips * phase / 4;
      int64_t stride = static_cast<int64_t>(g() % 5) * 512;
      t.enter(id);
      for (int i = 0; i < trips; ++i) {
        t.iter(id);
        bool irregular = i >= from && i < to;
        int64_t offset = irregular ? static_cast<int64_t>(g() % 100000) : stride * i;
        int64_t count = irregular && g() % 2 ? 1 + static_cast<int64_t>(g() % 8) : 8;
        t.event(pwrite(offset, count));
        if (g() % 3 == 0 || l == 1) // a second site in some iterations
          t.event(pwrite(irregular ? static_cast<int64_t>(g() >> 20) : 64 * i, 4, 2));
      }
      if (g() % 4 != 0)
        t.exit(id);
    }
    fast += t.viaRaw.fastEventCount();
    t.check("seed " + std::to_string(seed));
    if (HasFailure())
      return;
  }
  EXPECT_GT(fast, 10000u) << "the store path was hardly taken";
}

} // namespace
} // namespace sio::rt::test
