#include "sio/part/ProbeCache.h"

#include <gtest/gtest.h>

#include <cmath>

using sio::part::CachedProbe;
using sio::part::parseProbeLifetime;
using sio::part::ProbeCache;

namespace {

CachedProbe probeAt(double t, double bw) { return {{{bw, bw, bw / 4}, {bw, bw, bw / 4}}, t, 0.3}; }

} // namespace

TEST(ProbeCache, EmptyFindsNothing) {
  ProbeCache c;
  EXPECT_FALSE(c.find({"/a", "/b"}, 1.0, 60));
}

TEST(ProbeCache, ReusedWithinTheLifetimeOnlyForTheSameTargetList) {
  ProbeCache c;
  c.store({"/a", "/b", "/c"}, probeAt(10, 100));
  for (double now : {10.0, 30.0, 70.0}) {
    auto p = c.find({"/a", "/b", "/c"}, now, 60);
    ASSERT_TRUE(p) << now;
    EXPECT_EQ(p->probedAt, 10);
    EXPECT_EQ(p->rounds.size(), 2u);
    EXPECT_EQ(p->rounds[0][2], 25);
  }
  EXPECT_FALSE(c.find({"/a", "/b", "/c"}, 70.001, 60)) << "older than the lifetime";
  EXPECT_FALSE(c.find({"/a", "/c", "/b"}, 20, 60)) << "another order is another target list";
  EXPECT_FALSE(c.find({"/a", "/b"}, 20, 60)) << "a subset is another target list";
  EXPECT_FALSE(c.find({"/a", "/b", "/c"}, 9, 60)) << "a clock before the probe";
}

TEST(ProbeCache, ZeroLifetimeNeverReusesAndInfiniteAlways) {
  ProbeCache c;
  c.store({"/a", "/b"}, probeAt(0, 1));
  EXPECT_FALSE(c.find({"/a", "/b"}, 0, 0));
  EXPECT_TRUE(c.find({"/a", "/b"}, 1e9, INFINITY));
}

TEST(ProbeCache, StoreReplacesTheSameListAndKeepsOthers) {
  ProbeCache c;
  c.store({"/a", "/b"}, probeAt(0, 1));
  c.store({"/x", "/y"}, probeAt(5, 2));
  c.store({"/a", "/b"}, probeAt(100, 3));
  auto ab = c.find({"/a", "/b"}, 110, 60);
  ASSERT_TRUE(ab);
  EXPECT_EQ(ab->probedAt, 100);
  EXPECT_EQ(ab->rounds[0][0], 3);
  auto xy = c.find({"/x", "/y"}, 6, 60);
  ASSERT_TRUE(xy);
  EXPECT_EQ(xy->rounds[0][0], 2);
}

TEST(ProbeLifetime, Parses) {
  EXPECT_EQ(parseProbeLifetime("0"), 0.0);
  EXPECT_EQ(parseProbeLifetime("30"), 30.0);
  EXPECT_EQ(parseProbeLifetime(" 0.5 "), 0.5);
  auto run = parseProbeLifetime("run");
  ASSERT_TRUE(run);
  EXPECT_TRUE(std::isinf(*run));
  for (const char *bad : {"", "-1", "abc", "10s", "inf", "nan"}) {
    std::string err;
    EXPECT_FALSE(parseProbeLifetime(bad, &err)) << bad;
    EXPECT_NE(err.find("probe lifetime"), std::string::npos) << bad;
  }
}
