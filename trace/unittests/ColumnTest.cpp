// Packed columns (Column.h) and the packed-table form of formulas
// (docs/trace-format.md, "Packed tables"): every sequence decodes to itself,
// through the coded bytes, the base64 text and a formula's text.
#include "sio/trace/Column.h"
#include "sio/trace/Expr.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

using namespace sio::trace;

namespace {

/// Mixes of the streams a program produces: random values in a range, runs
/// with a stride, constants, extremes of int64, all in blocks of random length.
std::vector<int64_t> randomMix(std::mt19937_64 &rng) {
  std::vector<int64_t> out;
  size_t n = 1 + rng() % 700;
  while (out.size() < n) {
    size_t run = 1 + rng() % 200;
    int64_t base = static_cast<int64_t>(rng()) >> (rng() % 64);
    int64_t step = static_cast<int64_t>(rng() % 9) - 4;
    switch (rng() % 5) {
    case 0: // uniform in [0, 100000), the random small-write benchmark
      for (size_t k = 0; k < run; ++k)
        out.push_back(static_cast<int64_t>(rng() % 100000));
      break;
    case 1: // affine
      for (size_t k = 0; k < run; ++k)
        out.push_back(base + step * static_cast<int64_t>(k));
      break;
    case 2: // constant
      out.insert(out.end(), run, base);
      break;
    case 3: // full 64-bit range (wrapping differences)
      for (size_t k = 0; k < run; ++k)
        out.push_back(static_cast<int64_t>(rng()));
      break;
    default: // extremes
      for (size_t k = 0; k < run; ++k)
        out.push_back(rng() % 2 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
      break;
    }
  }
  out.resize(n);
  return out;
}

TEST(ColumnTest, RandomMixesRoundTrip) {
  std::mt19937_64 rng(20);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<int64_t> values = randomMix(rng);
    IntColumn c(values);
    ASSERT_EQ(c.size(), values.size());
    EXPECT_EQ(c.values(), values);
    for (size_t i = 0; i < values.size(); ++i) // random access, in and out of order
      ASSERT_EQ(c.at(i), values[i]) << "trial " << trial << " index " << i;
    for (size_t k = 0; k < 50; ++k) {
      size_t i = rng() % values.size();
      ASSERT_EQ(c.at(i), values[i]);
    }
    std::string error;
    auto back = IntColumn::fromPackedText(c.packedText(), values.size(), &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(*back, c);
    EXPECT_EQ(back->values(), values);
  }
}

TEST(ColumnTest, OrderIsThatOfTheValues) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> a = randomMix(rng), b = a;
    if (rng() % 2)
      b[rng() % b.size()] += 1;
    if (rng() % 3 == 0)
      b.resize(1 + rng() % b.size());
    EXPECT_EQ(IntColumn(a) < IntColumn(b), a < b);
    EXPECT_EQ(IntColumn(a) == IntColumn(b), a == b);
  }
}

TEST(ColumnTest, RandomSmallOffsetsTakeUnderThreeBytesOfText) {
  std::mt19937_64 rng(1);
  std::vector<int64_t> values;
  for (int k = 0; k < 100000; ++k)
    values.push_back(static_cast<int64_t>(rng() % 100000));
  IntColumn c(values);
  // 17 bits a value plus a few header bytes per 128: 2.2 bytes, base64 2.9.
  EXPECT_LT(c.bytes().size(), 2.2 * values.size());
  EXPECT_LT(c.packedText().size(), 3.0 * values.size());
  std::vector<int64_t> stride;
  for (int k = 0; k < 100000; ++k)
    stride.push_back(4096 * k + (k % 3));
  EXPECT_LT(IntColumn(stride).bytes().size(), 0.35 * stride.size()); // differences: 2 bits each
}

TEST(ColumnTest, MalformedTextIsRefused) {
  std::string error;
  IntColumn c(std::vector<int64_t>{1, 5, 9, 2, 7});
  std::string text = c.packedText();
  EXPECT_FALSE(IntColumn::fromPackedText(text, 200, &error)); // needs a second block
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(IntColumn::fromPackedText(text, 0, &error));
  EXPECT_FALSE(IntColumn::fromPackedText(text + "AAAA", 5, &error));
  EXPECT_NE(error.find("more bytes"), std::string::npos) << error;
  EXPECT_FALSE(IntColumn::fromPackedText("A*AA", 5, &error));
  EXPECT_FALSE(IntColumn::fromPackedText("A", 5, &error));
  EXPECT_FALSE(IntColumn::fromPackedText("AA", uint64_t(1) << 40, &error)); // a short text cannot ask for much
  // A width above 64: header byte 0x7f.
  EXPECT_FALSE(IntColumn::fromPackedText("fwA", 1, &error));
  EXPECT_NE(error.find("width"), std::string::npos) << error;
}

TEST(ColumnTest, NonCanonicalTextReadsAsTheCanonicalColumn) {
  // 1, 5, 9, 2, 7 as a block of values 8 bits wide from base 0: valid, but
  // not what the writer makes (narrower). The column read is the canonical
  // one, so that columns still compare by their bytes.
  std::string error;
  const IntColumn canonical(std::vector<int64_t>{1, 5, 9, 2, 7});
  auto read = IntColumn::fromPackedText("CAABBQkCBw", 5, &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(*read, canonical);
  EXPECT_EQ(read->values(), canonical.values());
  EXPECT_EQ(read->min(), 1);
  EXPECT_EQ(read->max(), 9);
  auto same = IntColumn::fromPackedText(canonical.packedText(), 5, &error);
  ASSERT_TRUE(same) << error;
  EXPECT_EQ(same->bytes(), canonical.bytes());
  EXPECT_EQ(same->heapBytes(), canonical.heapBytes()) << "the decoded bytes are taken as they are, no slack";
}

TEST(ColumnTest, FormulasWithLongTablesUsePackedText) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<int64_t> values = randomMix(rng);
    if (IntColumn(values).min() == IntColumn(values).max())
      continue;
    Expr e = Expr::table(values, Expr::loopIndex(0)) * Expr(3) + Expr::rank();
    std::string packed = e.packedStr(), plain = e.str();
    if (values.size() >= Expr::kPackedTableMin)
      EXPECT_NE(packed.find("[#" + std::to_string(values.size()) + ":"), std::string::npos);
    else
      EXPECT_EQ(packed, plain);
    EXPECT_EQ(Expr::parse(packed), e);
    EXPECT_EQ(Expr::parse(plain), e);
    std::vector<int64_t> index{static_cast<int64_t>(rng() % values.size())};
    __extension__ __int128 expected = static_cast<__int128>(values[index[0]]) * 3 + 2;
    if (expected >= std::numeric_limits<int64_t>::min() && expected <= std::numeric_limits<int64_t>::max()) {
      EXPECT_EQ(Expr::parse(packed).evaluate({2, 4, index}), static_cast<int64_t>(expected));
    }
  }
  EXPECT_EQ(Expr::parse("[#3:AQID][i0]"), Expr::table({2, 2, 1}, Expr::loopIndex(0))); // width 1, base 1, bits 110
  EXPECT_THROW(Expr::parse("[#3:AQ][i0]"), std::invalid_argument);
  EXPECT_THROW(Expr::parse("[#0:][i0]"), std::invalid_argument);
}

} // namespace
