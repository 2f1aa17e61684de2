// Text notation details and the JSON round trip.
#include "TestTraces.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace sio::signature {
nlohmann::json streamToJson(const StreamSignature &sig); // Format.cpp, not public
namespace {

using namespace testing;

TEST(SignatureFormat, Names) {
  EXPECT_EQ(operationName(Operation::ReadWrite), "read/write");
  EXPECT_EQ(spatialName(Spatial::KdStrided, 3), "non-contiguous, 3d strided");
  EXPECT_EQ(spatialName(Spatial::None, 1), "no spatial pattern");
  EXPECT_EQ(sizeClassName(SizeClass::Medium), "medium");
}

TEST(SignatureFormat, SizeClassesByPageSize) {
  auto classOf = [](int64_t size, int64_t page = 4096) {
    Trace t = baseTrace();
    t.body = {mpiOpen(t), loop(t, Expr(4), {readAt(t, ex("1000000000*i0"), Expr(size))})};
    Options o;
    o.pageSize = page;
    return only(t, 0, o).pattern.sizeClass;
  };
  EXPECT_EQ(classOf(4096), SizeClass::Small);   // one page (PIO-Bench's 4096 is small)
  EXPECT_EQ(classOf(4097), SizeClass::Medium);
  EXPECT_EQ(classOf(32768), SizeClass::Medium); // IOR's 32 KiB
  EXPECT_EQ(classOf(262144), SizeClass::Medium);
  EXPECT_EQ(classOf(262145), SizeClass::Large);
  EXPECT_EQ(classOf(327680), SizeClass::Large); // FLASH-IO's records
  EXPECT_EQ(classOf(8192, 65536), SizeClass::Small);
}

TEST(SignatureFormat, ReportTextNamesFileAndRanks) {
  Trace t = baseTrace(4);
  t.body = {mpiOpen(t), loop(t, Expr(100), {readAt(t, ex("4096*rank + 8192*i0"), Expr(4096))})};
  EXPECT_EQ(reportText(analyze(t, {})),
            "# sio-signature: program test, 4 ranks, page size 4096\n"
            "\n"
            "# file f0 \"data.bin\", ranks 0-3, read, 100 accesses, 409600 bytes per rank\n"
            "{READ, 4096*rank, 1, ([8192, 4096, 100]), 1}\n"
            "{Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}\n");
}

TEST(SignatureFormat, JsonRoundTrip) {
  Trace t = baseTrace(2);
  t.body = {mpiOpen(t),
            loop(t, Expr(20),
                 {readAt(t, ex("1049088 + 524544*i0"), Expr(524544)),
                  loop(t, ex("i0 + 1"), {readAt(t, ex("524544 + 524544*i1"), ex("518272 - 4096*i1"))}),
                  readAt(t, Expr(0), Expr(522368))}),
            loop(t, Expr(50), {writeAt(t, ex("[5, 90, 17, 3000, 44, 1, 77, 12345, 9, 400, 12, 13, 14, 99, 1000, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36][i0]*4096"), Expr(100))})};
  const SignatureReport r = analyze(t, {});
  const nlohmann::json j = toJson(r);
  EXPECT_EQ(j["format"], "sio-signature");
  EXPECT_EQ(j["version"], "1.1");
  const SignatureReport back = reportFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.groups.size(), r.groups.size());
  for (size_t i = 0; i < r.groups.size(); ++i) {
    EXPECT_EQ(streamToJson(back.groups[i].signature).dump(), streamToJson(r.groups[i].signature).dump()) << i;
    EXPECT_EQ(back.groups[i].signature, r.groups[i].signature) << i;
    EXPECT_EQ(back.groups[i].ranks, r.groups[i].ranks);
    EXPECT_EQ(back.groups[i].initialPosition, r.groups[i].initialPosition);
  }
  EXPECT_EQ(toJson(back), j);
}

TEST(SignatureFormat, JsonReaderNamesBadField) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(3), {readAt(t, ex("10*i0"), Expr(5))})};
  nlohmann::json j = toJson(analyze(t, {}));
  j["signatures"][0]["pattern_signature"]["spatial"] = "sideways";
  try {
    reportFromJson(j);
    FAIL();
  } catch (const SignatureError &e) {
    EXPECT_STREQ(e.what(), "/signatures/0/pattern_signature/spatial: unknown class 'sideways'");
  }
  EXPECT_THROW(reportFromJson(nlohmann::json::object()), SignatureError);
  j = toJson(analyze(t, {}));
  j["version"] = "2.0";
  EXPECT_THROW(reportFromJson(j), SignatureError);
}

} // namespace
} // namespace sio::signature
