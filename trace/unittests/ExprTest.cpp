#include "sio/trace/Expr.h"

#include <gtest/gtest.h>

#include <vector>

using sio::trace::Expr;
using sio::trace::ExprEnv;

namespace {

std::optional<int64_t> eval(const Expr &e, int64_t rank, int64_t nranks, std::vector<int64_t> idx = {}) {
  return e.evaluate(ExprEnv{rank, nranks, idx});
}

} // namespace

TEST(Expr, CanonicalPrintingOfAffineForms) {
  Expr offset = Expr(240) * Expr::rank() + Expr(960) * Expr::loopIndex(0);
  EXPECT_EQ(offset.str(), "240*rank + 960*i0");
  EXPECT_EQ((Expr(7) + Expr::rank()).str(), "rank + 7");
  EXPECT_EQ((Expr(0) - Expr::rank() * Expr(3) + Expr(2)).str(), "-3*rank + 2");
  EXPECT_EQ(Expr().str(), "0");
  EXPECT_EQ(Expr(-5).str(), "-5");
}

TEST(Expr, EqualityIsAlgebraic) {
  Expr a = (Expr::rank() + Expr(1)) * Expr(2);
  Expr b = Expr(2) * Expr::rank() + Expr(2);
  EXPECT_EQ(a, b);
  EXPECT_EQ(Expr::parse("2*(rank+1)"), b);
  EXPECT_NE(Expr::parse("2*rank"), b);
}

TEST(Expr, StrongScalingStaysExactInNRanks) {
  Expr offset = Expr::parse("rank*(960/nranks) + 960*i0");
  EXPECT_EQ(offset.str(), "960*rank/nranks + 960*i0");
  EXPECT_TRUE(offset.dependsOnNRanks());
  EXPECT_EQ(eval(offset, 3, 4, {2}), 3 * 240 + 1920);
  EXPECT_EQ(eval(offset, 5, 8, {1}), 5 * 120 + 960);
  EXPECT_EQ(offset.bindNRanks(4), Expr::parse("240*rank + 960*i0"));
  // 960 ranks do not divide 7: the model does not hold there, so no value.
  EXPECT_FALSE(eval(offset, 1, 7, {0}));
}

TEST(Expr, ModuloFamilyAndTables) {
  Expr e = Expr::parse("((rank + 1) % nranks) * 64");
  EXPECT_EQ(eval(e, 3, 4), 0);
  EXPECT_EQ(eval(e, 2, 4), 192);
  EXPECT_EQ(Expr::parse(e.str()), e);
  Expr t = Expr::parse("[7, 3, 9][i0]");
  EXPECT_EQ(t.str(), "[7, 3, 9][i0]");
  EXPECT_EQ(eval(t, 0, 1, {1}), 3);
  EXPECT_FALSE(eval(t, 0, 1, {3})) << "out-of-range index yields no value";
  EXPECT_EQ(Expr::parse("[5, 5][i0]"), Expr(5)) << "constant tables collapse";
  EXPECT_EQ(Expr::parse("7 % 3"), Expr(1));
}

TEST(Expr, RoundTripsThroughText) {
  for (const char *text : {"240*rank + 960*i0", "960*rank/nranks + 960*i0", "rank/4", "3*rank/(2*nranks)",
                           "-i1 + 4*i0*i1 + 12", "(rank % 4)", "64*((rank + 1) % nranks) + 8",
                           "[1, -2, 3][2*i0 + i1]", "nranks*rank", "i0 + 1"}) {
    Expr e = Expr::parse(text);
    EXPECT_EQ(Expr::parse(e.str()), e) << text << " printed as " << e.str();
  }
}

TEST(Expr, ExactDivisionSemantics) {
  Expr half = Expr::parse("rank/2");
  EXPECT_EQ(eval(half, 4, 8), 2);
  EXPECT_FALSE(eval(half, 3, 8)) << "non-integer results mean the model does not hold";
  EXPECT_THROW(Expr::parse("4/rank"), std::invalid_argument);
  EXPECT_THROW(Expr::parse("4/0"), std::invalid_argument);
}

TEST(Expr, ParseErrorsPointAtTheProblem) {
  try {
    Expr::parse("240*rnk");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("unknown name 'rnk'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("column 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Expr::parse(""), std::invalid_argument);
  EXPECT_THROW(Expr::parse("1 +"), std::invalid_argument);
  EXPECT_THROW(Expr::parse("(rank"), std::invalid_argument);
  EXPECT_THROW(Expr::parse("99999999999999999999"), std::invalid_argument);
  EXPECT_THROW(Expr::parse(std::string(10000, '(')), std::invalid_argument) << "deep nesting is refused";
}

TEST(Expr, Queries) {
  Expr e = Expr::parse("4*i2 + rank");
  EXPECT_EQ(e.loopDepthUsed(), 3u);
  EXPECT_TRUE(e.dependsOnRank());
  EXPECT_FALSE(e.dependsOnNRanks());
  EXPECT_FALSE(e.isConstant());
  EXPECT_EQ(Expr(12).constantValue(), 12);
  EXPECT_FALSE(Expr::parse("1/2").constantValue());
  EXPECT_FALSE(eval(e, 0, 1, {1})) << "missing loop index yields no value";
}

TEST(Expr, HostileFormulasFailCleanly) {
  EXPECT_EQ(Expr::parse("(-9223372036854775807 - 1) % -1"), Expr(0)) << "INT64_MIN % -1 must not trap";
  EXPECT_EQ(Expr::parse("(rank % -1) + 1").evaluate({INT64_MIN, 1, {}}), 1);
  std::string blowup = "(rank + i0 + i1 + i2 + i3 + i4 + i5 + i6 + 1)";
  std::string text = blowup;
  for (int k = 0; k < 6; ++k)
    text += "*" + blowup;
  EXPECT_THROW(Expr::parse(text), std::invalid_argument) << "term explosion is refused";
}

#include "sio/trace/Trace.h"

TEST(FileEntry, FormatsAndConcreteNames) {
  using sio::trace::FileEntry;
  using sio::trace::FileNamePart;
  // N-to-N/n grouping: floor(rank/4), written exactly as (rank - rank % 4)/4.
  Expr group = (Expr::rank() - Expr::mod(Expr::rank(), Expr(4))) / Expr(4);
  FileEntry f{3, {FileNamePart{"out_", std::nullopt, 0}, FileNamePart{"", group, 4}, FileNamePart{".dat", std::nullopt, 0}}};
  EXPECT_EQ(f.formatStr(), "out_<rank/4:04>.dat");
  EXPECT_EQ(f.nameFor(0, 16), "out_0000.dat");
  EXPECT_EQ(f.nameFor(7, 16), "out_0001.dat");
  EXPECT_EQ(f.nameFor(15, 16), "out_0003.dat");
  FileEntry n{0, {FileNamePart{"/dir0/file_", std::nullopt, 0}, FileNamePart{"", Expr::rank(), 0}}};
  EXPECT_EQ(n.formatStr(), "/dir0/file_<rank>");
  EXPECT_EQ(n.nameFor(12, 16), "/dir0/file_12");
}
