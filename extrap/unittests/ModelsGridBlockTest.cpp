// Block distributions over both dimensions of an MPI_Dims_create(N, 2) grid
// that does not divide the array (extrap/lib/ModelsGridBlock.h): 128 x 128
// cells, whose 4 x 3 grid at N = 12 leaves grid columns of 43, 43 and 42.
// Fitted at 4, 8, 12, 16 the models predict every rank at 32 and 64; the
// floor split (n/p + (c < n % p)) and ROMIO's ceil split agree at every input
// and differ where a dimension is 5 or 6 (N = 20, 36, 40): sio-extrap refuses
// such a target and names the rank count that decides.
#include "../lib/ModelsGridBlock.h"
#include "sio/extrap/Extrapolate.h"
#include "sio/trace/Diff.h"

#include <gtest/gtest.h>

using sio::extrap::dimsCreate;
using sio::extrap::ExtrapError;
using sio::extrap::ExtrapOptions;
using sio::extrap::fitGridBlockModels;
using sio::extrap::GridBlockSamples;
using sio::trace::Expr;
using sio::trace::Rational;

namespace {

// What the program (lit-tests/extrap/Inputs/grid2rem.c) computes at a rank.
struct Cell {
  int64_t b[2], o[2];
};

Cell cellOf(int64_t nranks, int64_t rank, int64_t len = 128) {
  const std::vector<int64_t> p = dimsCreate(nranks, 2);
  const int64_t c[2] = {rank / p[1], rank % p[1]};
  Cell x{};
  for (int d = 0; d < 2; ++d) {
    const int64_t q = len / p[size_t(d)], r = len % p[size_t(d)];
    x.b[d] = q + (c[d] < r);
    x.o[d] = c[d] * q + std::min(c[d], r);
  }
  return x;
}

using Program = std::function<int64_t(const Cell &)>;

const std::vector<std::pair<std::string, Program>> &programs() {
  static const std::vector<std::pair<std::string, Program>> p = {
      {"count", [](const Cell &x) { return x.b[0] * x.b[1]; }},
      {"bytes", [](const Cell &x) { return 4 * x.b[0] * x.b[1]; }},
      {"subsizes[1]", [](const Cell &x) { return x.b[1]; }},
      {"starts[0]", [](const Cell &x) { return x.o[0]; }},
      {"starts[1]", [](const Cell &x) { return x.o[1]; }},
      {"byte offset", [](const Cell &x) { return 4 * (128 * x.o[0] + x.o[1]) + 16; }},
      {"rows + cols", [](const Cell &x) { return x.b[0] + 2 * x.b[1]; }},
  };
  return p;
}

std::vector<GridBlockSamples> samples(const Program &f, const std::vector<int64_t> &ns = {4, 8, 12, 16}) {
  std::vector<GridBlockSamples> out;
  for (int64_t n : ns) {
    GridBlockSamples s;
    s.nranks = n;
    for (int64_t r = 0; r < n; ++r)
      s.values.push_back(Rational(f(cellOf(n, r))));
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace

TEST(ModelsGridBlock, FitAtInputsWithARemainderAndPredictEveryRankAt32And64) {
  for (const auto &[what, f] : programs())
    for (const std::set<int64_t> &lengths : {std::set<int64_t>{128}, std::set<int64_t>{}}) {
      if (lengths.empty() && what != "subsizes[1]")
        continue; // only a value that is one dimension's block names its length itself
      auto fits = fitGridBlockModels(samples(f), lengths, std::set<int64_t>{});
      ASSERT_FALSE(fits.empty()) << what;
      for (const auto &fit : fits)
        for (int64_t target : {32, 64}) {
          auto v = fit.valuesAt(target);
          ASSERT_TRUE(v) << fit.name;
          const Expr e = fit.exprAt(target);
          for (int64_t r = 0; r < target; ++r) {
            const int64_t truth = f(cellOf(target, r));
            EXPECT_EQ((*v)[size_t(r)], Rational(truth))
                << what << ": " << fit.name << " at N=" << target << " rank " << r;
            EXPECT_EQ(e.evaluate({r, target, {}}), truth) << what << ": " << e.str() << " rank " << r;
          }
        }
    }
}

TEST(ModelsGridBlock, TargetsWithARemainderGetTablesPerCoordinate) {
  // 24 = 6 x 4: 128 over 6 is 22, 22, 21, 21, 21, 21 in the floor split,
  // 22, 22, 22, 22, 22, 18 in ROMIO's; each fit's formula gives its values.
  auto fits = fitGridBlockModels(samples(programs()[0].second), std::set<int64_t>{128}, std::set<int64_t>{});
  ASSERT_FALSE(fits.empty());
  bool truth = false;
  for (const auto &fit : fits) {
    const Expr e = fit.exprAt(24);
    auto v = fit.valuesAt(24);
    ASSERT_TRUE(v);
    bool all = true;
    for (int64_t r = 0; r < 24; ++r) {
      EXPECT_EQ(e.evaluateRational({r, 24, {}}), (*v)[size_t(r)]) << e.str();
      all = all && e.evaluate({r, 24, {}}) == cellOf(24, r).b[0] * cellOf(24, r).b[1];
    }
    truth = truth || all;
  }
  EXPECT_TRUE(truth);
}

TEST(ModelsGridBlock, SplitsThatAgreeAtEveryInputDifferAt20) {
  // 128 over 2, 4 and 3 gives the same blocks in both splits; over 5 the
  // floor split gives 26, 26, 26, 25, 25 and ROMIO's 26, 26, 26, 26, 24.
  auto fits =
      fitGridBlockModels(samples([](const Cell &x) { return x.b[0]; }), std::set<int64_t>{128}, std::set<int64_t>{});
  ASSERT_GE(fits.size(), 2u);
  bool differ20 = false;
  for (const auto &a : fits)
    for (const auto &b : fits) {
      EXPECT_EQ(a.valuesAt(64), b.valuesAt(64)) << a.name << " vs " << b.name;
      differ20 = differ20 || a.valuesAt(20) != b.valuesAt(20);
    }
  EXPECT_TRUE(differ20);
}

TEST(ModelsGridBlock, ValuesOfNoGridBlockAreNotFitted) {
  const std::set<int64_t> len{128}, none;
  auto fits = fitGridBlockModels(samples([](const Cell &x) { return (x.o[0] * x.o[0] + 3 * x.b[1]) % 7; }), len, none);
  EXPECT_TRUE(fits.empty());
  // Fewer than three inputs check nothing.
  EXPECT_TRUE(fitGridBlockModels(samples(programs()[0].second, {4, 12}), len, none).empty());
}

namespace {

using namespace sio::trace;

Param uniform(const std::string &name, Expr value, int64_t n) {
  return {name, ElasticValue(Value(std::move(value)), RankList::all(n))};
}

// The value at each rank: a constant when all ranks agree, else a table
// indexed by rank (as the runtime's merge writes values no formula fits).
Expr perRank(int64_t n, const Program &f) {
  std::vector<int64_t> v;
  for (int64_t r = 0; r < n; ++r)
    v.push_back(f(cellOf(n, r)));
  if (std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; }))
    return Expr(v[0]);
  return Expr::table(v, Expr::rank());
}

// grid2rem.c as the runtime records it: MPI_Dims_create, then a write whose
// count and offset follow the grid blocks.
Trace grid2remTrace(int64_t n) {
  Trace t;
  t.header.program = "grid2rem";
  t.header.nranks = n;
  const std::vector<int64_t> dims = dimsCreate(n, 2);
  // The subarray records the array's sizes (128 x 128): the lengths.
  ObjectEntry sub;
  sub.id = 0;
  sub.kind = "subarray";
  sub.serial = 0;
  sub.fields["sizes"] = {Expr(128), Expr(128)};
  sub.fields["subsizes"] = {perRank(n, [](const Cell &x) { return x.b[0]; }),
                            perRank(n, [](const Cell &x) { return x.b[1]; })};
  t.datatypes.push_back(sub);
  Event d;
  d.op = "MPI_Dims_create";
  d.layer = Layer::SYNC;
  d.site = 0x10;
  d.params = {uniform("nnodes", Expr(n), n), uniform("ndims", Expr(2), n), uniform("dims0", Expr(dims[0]), n),
              uniform("dims1", Expr(dims[1]), n)};
  t.body.push_back(Node{RankList::all(n), d});
  Event w;
  w.op = "MPI_File_write_at";
  w.layer = Layer::MPIIO;
  w.site = 0x11;
  w.params = {uniform("offset", perRank(n, programs()[5].second), n),
              uniform("count", perRank(n, programs()[0].second), n)};
  t.body.push_back(Node{RankList::all(n), w});
  return t;
}

} // namespace

TEST(ExtrapGridBlock, ExactAt64AndRefusedWhereTheSplitsDiffer) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(grid2remTrace(n));
  for (int64_t target : {32, 64}) {
    ExtrapOptions o;
    o.targetRanks = target;
    Trace out = sio::extrap::extrapolate(in, o);
    auto diffs = diffTraces(out, grid2remTrace(target));
    EXPECT_TRUE(diffs.empty()) << target << ": " << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  }
  ExtrapOptions o;
  o.targetRanks = 40; // 8 x 5: dimension 1 splits 128 over 5; the first count
  // above 16 (in steps of 4) whose grid splits dimension 1 with a remainder
  // where the splits differ is 36 (6 x 6)
  try {
    sio::extrap::extrapolate(in, o);
    FAIL() << "extrapolated to 40 although the splits differ there";
  } catch (const ExtrapError &e) {
    EXPECT_NE(std::string(e.what()).find("ambiguous"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("add a trace at N=36"), std::string::npos) << e.what();
  }
}

namespace {

// What a 3-d program (lit-tests/extrap/Inputs/grid3d.c) computes at a rank:
// len^3 cells over the MPI_Dims_create(N, 3) grid, coordinates in
// MPI_Cart_coords' row-major order, each dimension split as n/p + (c < n % p).
struct Cell3 {
  int64_t b[3], o[3];
};

Cell3 cell3Of(int64_t nranks, int64_t rank, int64_t len) {
  const std::vector<int64_t> p = dimsCreate(nranks, 3);
  const int64_t c[3] = {rank / (p[1] * p[2]), rank / p[2] % p[1], rank % p[2]};
  Cell3 x{};
  for (int d = 0; d < 3; ++d) {
    const int64_t q = len / p[size_t(d)], r = len % p[size_t(d)];
    x.b[d] = q + (c[d] < r);
    x.o[d] = c[d] * q + std::min(c[d], r);
  }
  return x;
}

} // namespace

// 47^3 cells (a remainder over 2, 3 and 4 grid planes, where both splits
// agree) and 48^3 (no remainder), fitted from 4, 8, 12, 16, 24: every rank
// at 32 (4x4x2) and 64 (4x4x4) predicted, by the values and by the formula
// of the target; without the 24-rank input dims(N,3)[1] is 2 at every input
// and the blocks over it are undetermined.
TEST(ModelsGridBlock, ThreeDimensionalGridsFittedAt4To24PredictEveryRankAt32And64) {
  using Program3 = std::function<int64_t(const Cell3 &)>;
  const std::vector<std::pair<std::string, Program3>> programs3 = {
      {"count", [](const Cell3 &x) { return x.b[0] * x.b[1] * x.b[2]; }},
      {"bytes", [](const Cell3 &x) { return 8 * x.b[0] * x.b[1] * x.b[2]; }},
      {"subsizes[2]", [](const Cell3 &x) { return x.b[2]; }},
      {"starts[0]", [](const Cell3 &x) { return x.o[0]; }},
      {"starts[1]", [](const Cell3 &x) { return x.o[1]; }},
      {"starts[2]", [](const Cell3 &x) { return x.o[2]; }},
  };
  for (int64_t len : {47, 48})
    for (const auto &[what, f] : programs3) {
      std::vector<GridBlockSamples> in;
      for (int64_t n : {4, 8, 12, 16, 24}) {
        GridBlockSamples s;
        s.nranks = n;
        for (int64_t r = 0; r < n; ++r)
          s.values.push_back(Rational(f(cell3Of(n, r, len))));
        in.push_back(std::move(s));
      }
      auto fits = fitGridBlockModels(in, std::set<int64_t>{len}, std::set<int64_t>{}, 3);
      ASSERT_FALSE(fits.empty()) << what << " len " << len;
      for (const auto &fit : fits) {
        EXPECT_EQ(fit.ndims, 3);
        for (int64_t target : {32, 64}) {
          auto v = fit.valuesAt(target);
          ASSERT_TRUE(v) << fit.name;
          const Expr e = fit.exprAt(target);
          for (int64_t r = 0; r < target; ++r) {
            const int64_t truth = f(cell3Of(target, r, len));
            EXPECT_EQ((*v)[size_t(r)], Rational(truth)) << what << ": " << fit.name << " at N=" << target;
            EXPECT_EQ(e.evaluate({r, target, {}}), truth) << what << ": " << e.str() << " rank " << r;
          }
        }
      }
      // The 2-d model does not fit a 3-d program's values.
      if (what == "starts[1]")
        EXPECT_TRUE(fitGridBlockModels(in, std::set<int64_t>{len}, std::set<int64_t>{}, 2).empty());
    }
}

// A weak-scaling subarray's starts, 8 cells a rank a dimension: 8*c_k, whose
// global array (8*p_k) grows with the grid, so no length fits; the 3-d
// coordinate c1 = rank / p2 % p1 has two periods, which no formula of one
// rank % c holds. Fitted as the coordinates themselves.
TEST(ModelsGridBlock, ThreeDimensionalCoordinatesOfAGrowingArray) {
  for (int d = 0; d < 3; ++d) {
    auto coord = [d](int64_t n, int64_t r) {
      const std::vector<int64_t> p = dimsCreate(n, 3);
      const int64_t c[3] = {r / (p[1] * p[2]), r / p[2] % p[1], r % p[2]};
      return 8 * c[d] + 3;
    };
    std::vector<GridBlockSamples> in;
    for (int64_t n : {4, 8, 12, 16, 24}) {
      GridBlockSamples s;
      s.nranks = n;
      for (int64_t r = 0; r < n; ++r)
        s.values.push_back(Rational(coord(n, r)));
      in.push_back(std::move(s));
    }
    auto fits = fitGridBlockModels(in, std::set<int64_t>{}, std::set<int64_t>{}, 3);
    ASSERT_FALSE(fits.empty()) << "c" << d;
    for (const auto &fit : fits)
      for (int64_t target : {32, 64, 60}) {
        const Expr e = fit.exprAt(target);
        for (int64_t r = 0; r < target; ++r) {
          EXPECT_EQ(e.evaluate({r, target, {}}), coord(target, r)) << fit.name << ": " << e.str();
          EXPECT_EQ((*fit.valuesAt(target))[size_t(r)], Rational(coord(target, r))) << fit.name;
        }
      }
  }
}
