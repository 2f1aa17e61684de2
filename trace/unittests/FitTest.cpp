#include "sio/trace/Fit.h"

#include <gtest/gtest.h>

using namespace sio::trace;

namespace {
std::vector<std::vector<Rational>> column(std::initializer_list<int64_t> xs) {
  std::vector<std::vector<Rational>> out;
  for (int64_t x : xs)
    out.push_back({Rational(x)});
  return out;
}
std::vector<Rational> values(std::initializer_list<int64_t> ys) { return {ys.begin(), ys.end()}; }
} // namespace

TEST(Fit, ExactAffineFitInRank) {
  // ScalaIOExtrap Table 1, iteration 0 at 4 ranks: offsets 0, 240, 480, 720.
  auto e = fitAffineExpr({Expr::rank()}, column({0, 1, 2, 3}), values({0, 240, 480, 720}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->str(), "240*rank");
}

TEST(Fit, TwoDimensionalFit) {
  // offset(rank, i) over ranks 0..3 and iterations 0..2.
  std::vector<std::vector<Rational>> xs;
  std::vector<Rational> ys;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t i = 0; i < 3; ++i) {
      xs.push_back({Rational(r), Rational(i)});
      ys.push_back(Rational(240 * r + 960 * i));
    }
  auto e = fitAffineExpr({Expr::rank(), Expr::loopIndex(0)}, xs, ys);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, Expr::parse("240*rank + 960*i0"));
}

TEST(Fit, RefusesWhenNoModelHasZeroResidual) {
  EXPECT_FALSE(fitAffine(column({0, 1, 2}), values({0, 1, 5})));
  EXPECT_FALSE(fitAffineExpr({Expr::rank()}, column({0, 1, 2, 3}), values({3, 9, 1, 7})));
}

TEST(Fit, InverseModelThroughRationalCoefficients) {
  // count = 960/N at N = 4, 8, 12, 16: fit k*(1/N) + b exactly with x = 1/N.
  std::vector<std::vector<Rational>> xs;
  std::vector<Rational> ys;
  for (int64_t n : {4, 8, 12, 16}) {
    xs.push_back({Rational(1, n)});
    ys.push_back(Rational(960 / n));
  }
  auto c = fitAffine(xs, ys);
  ASSERT_TRUE(c);
  EXPECT_EQ((*c)[0], Rational(0));
  EXPECT_EQ((*c)[1], Rational(960));
}

TEST(Fit, SolveExactReportsUnderdeterminedSystems) {
  auto s = solveExact({{Rational(1), Rational(1)}, {Rational(2), Rational(2)}}, {Rational(3), Rational(6)});
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->unique);
  EXPECT_FALSE(solveExact({{Rational(1), Rational(1)}, {Rational(2), Rational(2)}}, {Rational(3), Rational(7)}));
  auto u = solveExact({{Rational(2), Rational(1)}, {Rational(1), Rational(3)}}, {Rational(5), Rational(10)});
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->unique);
  EXPECT_EQ(u->x[0], Rational(1));
  EXPECT_EQ(u->x[1], Rational(3));
}
