// The models of real decompositions (extrap/lib/ModelsDecomp.h), checked as
// properties over many generated parameters: every model is found from its
// own samples, reproduces values at rank counts it was not fitted to, and
// the ones whose parameter the samples leave open come once per value at the
// target (the ambiguity rule then refuses them).
#include "../lib/ModelsDecomp.h"
#include "sio/extrap/Extrapolate.h"
#include "sio/trace/Diff.h"

#include <gtest/gtest.h>

#include <random>

using sio::extrap::affineRuns;
using sio::extrap::blockLengths;
using sio::extrap::fitBlockModels;
using sio::extrap::fitRootModels;
using sio::extrap::integerRoot;
using sio::trace::Rational;

namespace {

std::vector<Rational> sample(const std::vector<int64_t> &ns, const std::function<int64_t(int64_t)> &f) {
  std::vector<Rational> v;
  for (int64_t n : ns)
    v.push_back(Rational(f(n)));
  return v;
}

bool anyGives(const std::vector<sio::extrap::FamilyFit> &fits, int64_t n, int64_t value) {
  for (const auto &f : fits)
    if (f.at(n) == std::optional<Rational>(Rational(value)))
      return true;
  return false;
}

} // namespace

TEST(ModelsDecomp, IntegerRoots) {
  for (int64_t q = 1; q < 3000; ++q) {
    EXPECT_EQ(integerRoot(q * q, 2), q);
    EXPECT_EQ(integerRoot(q * q * q, 3), q);
    if (q > 1) {
      EXPECT_FALSE(integerRoot(q * q + 1, 2));
      EXPECT_FALSE(integerRoot(q * q * q - 1, 3));
    }
  }
}

TEST(ModelsDecomp, SquareGridValuesAreFoundAndPredicted) {
  const std::vector<int64_t> squares = {4, 9, 16, 25};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t k = 60 * int64_t(1 + rng() % 20), b = int64_t(rng() % 100);
    auto tile = [&](int64_t n) { return k / *integerRoot(n, 2) + b; }; // cells a rank owns a dimension
    auto fits = fitRootModels(squares, sample(squares, tile));
    ASSERT_FALSE(fits.empty()) << k << "/q + " << b;
    EXPECT_TRUE(anyGives(fits, 36, tile(36)));
    EXPECT_TRUE(anyGives(fits, 144, tile(144)));
    for (const auto &f : fits) {
      EXPECT_FALSE(f.definedAt(32)); // the program cannot run there
      EXPECT_FALSE(f.at(32));
      EXPECT_EQ(f.domain, "a square");
    }
    auto rows = [&](int64_t n) { return k * *integerRoot(n, 2) + b; };
    EXPECT_TRUE(anyGives(fitRootModels(squares, sample(squares, rows)), 64, rows(64)));
  }
}

TEST(ModelsDecomp, CubicGridValues) {
  const std::vector<int64_t> cubes = {1, 8, 27, 64};
  auto plane = [](int64_t n) { return 3600 / (*integerRoot(n, 3) * *integerRoot(n, 3)); }; // n^2/q^2 cells
  auto fits = fitRootModels(cubes, sample(cubes, plane));
  ASSERT_FALSE(fits.empty());
  EXPECT_TRUE(anyGives(fits, 125, plane(125)));
  EXPECT_EQ(fits.front().domain, "a cube");
}

TEST(ModelsDecomp, PolynomialValuesAreNotRootModels) {
  const std::vector<int64_t> squares = {4, 9, 16, 25};
  // A constant, k*N and k/N are the scaling models' (no root term).
  EXPECT_TRUE(fitRootModels(squares, sample(squares, [](int64_t) { return 7; })).empty());
  EXPECT_TRUE(fitRootModels(squares, sample(squares, [](int64_t n) { return 3 * n; })).empty());
  // Rank counts that are not all squares: no sqrt model.
  const std::vector<int64_t> mixed = {4, 8, 12, 16};
  EXPECT_TRUE(fitRootModels(mixed, sample(mixed, [](int64_t n) { return n / 4; })).empty());
}

TEST(ModelsDecomp, BlockSizesWithRemaindersArePredicted) {
  const std::vector<int64_t> ns = {4, 8, 12, 16};
  std::mt19937 rng(11);
  int exact = 0, open = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t n = 100 + int64_t(rng() % 100000), c = std::vector<int64_t>{1, 4, 8, 24}[rng() % 4];
    for (bool ceil : {false, true}) {
      auto f = [&](int64_t N) { return c * (ceil ? (n + N - 1) / N : n / N); };
      std::set<int64_t> lengths;
      blockLengths(ns, sample(ns, f), lengths);
      auto fits = fitBlockModels(ns, sample(ns, f), lengths, 32);
      if (!sio::extrap::fitAllScaling(ns, sample(ns, f)).empty()) // 960/N, 960/N + 1: the scaling models'
        continue;
      ASSERT_FALSE(fits.empty()) << n << " " << c;
      // Never silently wrong: some model gives the true value at 32, and
      // when one model is all there is, it is right.
      EXPECT_TRUE(anyGives(fits, 32, f(32)));
      std::set<std::optional<Rational>> at32;
      for (const auto &x : fits)
        at32.insert(x.at(32));
      (at32.size() == 1 ? exact : open)++;
    }
  }
  EXPECT_GT(exact, open); // the samples usually fix n well enough
}

TEST(ModelsDecomp, RemaindersTakeTheirLengthFromTheTrace) {
  const std::vector<int64_t> ns = {4, 8, 12, 16};
  const int64_t n = 506;
  std::set<int64_t> lengths;
  blockLengths(ns, sample(ns, [&](int64_t N) { return 8 * (n / N); }), lengths);
  ASSERT_TRUE(lengths.count(n));
  auto rem = sample(ns, [&](int64_t N) { return n % N; });
  auto fits = fitBlockModels(ns, rem, lengths, 32);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].at(32), std::optional<Rational>(Rational(n % 32)));
  EXPECT_EQ(fits[0].at(64), std::optional<Rational>(Rational(n % 64)));
  // Without the lengths the remainder alone leaves n open: no model.
  EXPECT_TRUE(fitBlockModels(ns, rem, {}, 32).empty());
  // n % N + 1: the bound of a remainder's offsets.
  auto bound = sample(ns, [&](int64_t N) { return n % N + 1; });
  EXPECT_TRUE(anyGives(fitBlockModels(ns, bound, lengths, 64), 64, n % 64 + 1));
}

TEST(ModelsDecomp, AffineRunsSplitARemainderDistribution) {
  using sio::trace::ElasticValue;
  using sio::trace::Expr;
  using sio::trace::RankList;
  for (int64_t N : {4, 8, 12, 16, 32}) {
    const int64_t n = 506, q = n / N, r = n % N;
    ElasticValue offsets, counts;
    offsets.entries().clear();
    for (int64_t rank = 0; rank < N; ++rank) {
      offsets.entries().push_back({RankList::single(rank), Expr(8 * (rank * q + std::min(rank, r)))});
      counts.entries().push_back({RankList::single(rank), Expr(q + (rank < r))});
    }
    for (const ElasticValue *v : {&offsets, &counts}) {
      auto runs = affineRuns(*v, N);
      ASSERT_TRUE(runs);
      ASSERT_EQ(runs->size(), 2u) << N;
      EXPECT_EQ((*runs)[1].start, r); // the bound is n % N for both
      EXPECT_EQ((*runs)[1].end, N);
    }
  }
}

namespace {

// A square-grid program at n = q*q ranks: a loop of 120/q rows, each a
// write of 120/q ints at 480*i0 (one rank's tile rows).
sio::trace::Trace squareTrace(int64_t n) {
  using namespace sio::trace;
  const int64_t q = *integerRoot(n, 2);
  Trace t;
  t.header.program = "square";
  t.header.nranks = n;
  RankList all = RankList::all(n);
  Event w;
  w.op = "MPI_File_write_at";
  w.layer = Layer::MPIIO;
  w.site = 0x11;
  w.params = {{"offset", ElasticValue(Value(Expr(480) * Expr::loopIndex(0)), all)},
              {"count", ElasticValue(Value(Expr(120 / q)), all)}};
  Loop l;
  l.id = 0x21;
  l.iterations = ElasticValue(Value(Expr(120 / q)), all);
  l.body.push_back(Node{all, w});
  t.body.push_back(Node{all, l});
  return t;
}

std::string squareError(int64_t target) {
  sio::extrap::ExtrapOptions o;
  o.targetRanks = target;
  try {
    sio::extrap::extrapolate({squareTrace(4), squareTrace(9), squareTrace(16), squareTrace(25)}, o);
  } catch (const sio::extrap::ExtrapError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(ModelsDecomp, SquareTargetsOnly) {
  for (int64_t target : {36, 64, 144}) {
    sio::extrap::ExtrapOptions o;
    o.targetRanks = target;
    auto x = sio::extrap::extrapolate({squareTrace(4), squareTrace(9), squareTrace(16), squareTrace(25)}, o);
    auto diffs = sio::trace::diffTraces(x, squareTrace(target));
    EXPECT_TRUE(diffs.empty()) << target << ": " << (diffs.empty() ? "" : diffs.front().what);
  }
  EXPECT_NE(squareError(32).find("32 is not a square; choose a target that is a square (36, 49, 64"), std::string::npos)
      << squareError(32);
  // 120/7 rows at 49 ranks: refused, not written as 0 (it was, for a moment).
  EXPECT_NE(squareError(49).find("which is not an integer at N=49"), std::string::npos) << squareError(49);
}
