#include "sio/trace/Rational.h"

#include <gtest/gtest.h>

#include <cstdint>

using sio::trace::Rational;

TEST(Rational, NormalizesSignAndGcd) {
  Rational r(6, -4);
  EXPECT_EQ(r.num(), -3);
  EXPECT_EQ(r.den(), 2);
  EXPECT_EQ(r.str(), "-3/2");
  EXPECT_EQ(Rational(8, 4).asInteger(), 2);
  EXPECT_FALSE(Rational(1, 3).asInteger());
}

TEST(Rational, Arithmetic) {
  EXPECT_EQ(Rational(1, 3) + Rational(1, 6), Rational(1, 2));
  EXPECT_EQ(Rational(1, 3) - Rational(1, 2), Rational(-1, 6));
  EXPECT_EQ(Rational(2, 3) * Rational(9, 4), Rational(3, 2));
  EXPECT_EQ(Rational(960) / Rational(4), Rational(240));
  EXPECT_TRUE(Rational(-1, 2) < Rational(1, 3));
  EXPECT_THROW(Rational(1) / Rational(0), std::domain_error);
}

TEST(Rational, OverflowIsReportedNotWrapped) {
  Rational big(INT64_MAX);
  EXPECT_THROW(big + Rational(1), sio::trace::ArithmeticOverflow);
  EXPECT_THROW(big * Rational(2), sio::trace::ArithmeticOverflow);
  // Cross-reduction keeps exact products in range when the result fits.
  EXPECT_EQ(Rational(INT64_MAX, 3) * Rational(3, INT64_MAX), Rational(1));
}
