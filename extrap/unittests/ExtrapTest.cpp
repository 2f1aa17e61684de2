#include "sio/extrap/Extrapolate.h"

#include "../lib/ReadResults.h"

#include "sio/trace/Diff.h"
#include "sio/trace/Json.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace sio::trace;
using sio::extrap::extrapolate;
using sio::extrap::ExtrapError;
using sio::extrap::ExtrapOptions;

namespace {

Param param(const std::string &name, Expr value, int64_t n) { return {name, ElasticValue(Value(value), RankList::all(n))}; }

Node eventNode(Event e, RankList ranks) { return Node{std::move(ranks), std::move(e)}; }

Node loopNode(uint64_t id, int64_t iterations, std::vector<Node> body, RankList ranks) {
  Loop l;
  l.id = id;
  l.iterations = ElasticValue(Value(Expr(iterations)), ranks);
  l.body = std::move(body);
  return Node{std::move(ranks), std::move(l)};
}

Event event(const std::string &op, uint64_t site, std::vector<Param> params, uint64_t meanNs = 1000) {
  Event e;
  e.op = op;
  e.layer = op.rfind("MPI_", 0) == 0 ? Layer::MPIIO : Layer::POSIX;
  e.site = site;
  e.params = std::move(params);
  e.duration.add(meanNs);
  return e;
}

// What the runtime writes for ScalaIOExtrap's strong-scaling program at n ranks.
Trace strongTrace(int64_t n) {
  Trace t;
  t.header.program = "strong";
  t.header.nranks = n;
  t.files.push_back({0, {FileNamePart{"data/strong.dat", std::nullopt, 0}}});
  t.datatypes.push_back({0, "named", "MPI_BYTE", {}, {}});
  t.sites.push_back({0x11, "strong.cpp", 20, 5, "main", "MPI_File_write_at", 0x21});
  t.loops.push_back({0x21, "strong.cpp", 19, 3, "main", 0});
  RankList all = RankList::all(n);
  Expr rank = Expr::rank(), i0 = Expr::loopIndex(0);
  t.body.push_back(eventNode(event("MPI_File_open", 0x10, {param("file", 0, n), param("amode", 9, n)}), all));
  t.body.push_back(loopNode(
      0x21, 3,
      {eventNode(event("MPI_File_write_at", 0x11,
                       {param("fh", 0, n), param("offset", Expr(960 / n) * rank + Expr(960) * i0, n),
                        param("count", 960 / n, n), param("datatype", 0, n)}),
                 all)},
      all));
  // Rank 0 writes a header; the last rank a footer at a rank-count-dependent place.
  t.body.push_back(eventNode(event("MPI_File_write_at", 0x12, {}),
                             RankList::single(0)));
  t.body.back().event().params = {{"fh", ElasticValue(Value(Expr(0)), RankList::single(0))},
                                  {"offset", ElasticValue(Value(Expr(0)), RankList::single(0))}};
  t.body.push_back(eventNode(event("MPI_File_write_at", 0x13, {}), RankList::single(n - 1)));
  t.body.back().event().params = {{"fh", ElasticValue(Value(Expr(0)), RankList::single(n - 1))},
                                  {"offset", ElasticValue(Value(Expr(2880 + 8 * n)), RankList::single(n - 1))}};
  // Strong scaling of a loop count: 1920/N iterations.
  t.body.push_back(loopNode(0x22, 1920 / n,
                            {eventNode(event("MPI_File_read_at", 0x14,
                                             {param("fh", 0, n), param("offset", Expr(320) * rank + Expr(64) * i0, n)}),
                                       all)},
                            all));
  t.body.push_back(eventNode(event("MPI_File_close", 0x15, {param("fh", 0, n)}), all));
  return t;
}

std::vector<Trace> strongInputs() { return {strongTrace(4), strongTrace(8), strongTrace(12), strongTrace(16)}; }

Trace run(std::vector<Trace> inputs, int64_t target) {
  ExtrapOptions o;
  o.targetRanks = target;
  return extrapolate(std::move(inputs), o);
}

std::string errorOf(std::vector<Trace> inputs, int64_t target) {
  try {
    run(std::move(inputs), target);
  } catch (const ExtrapError &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Extrap, StrongScalingEqualsTheTraceTakenAtTheTarget) {
  for (int64_t target : {20, 24, 32, 64}) {
    Trace x = run(strongInputs(), target);
    auto diffs = diffTraces(x, strongTrace(target));
    EXPECT_TRUE(diffs.empty()) << target << ": " << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
    EXPECT_EQ(x.header.nranks, target);
  }
}

TEST(Extrap, ValuesStayFormulasOfTheRankCount) {
  Trace x = run(strongInputs(), 32);
  const Event &w = x.body[1].loop().body[0].event();
  EXPECT_EQ(valueStr(w.param("offset")->value.entries()[0].value), "960*rank/nranks + 960*i0");
  EXPECT_EQ(valueStr(w.param("count")->value.entries()[0].value), "960/nranks");
  EXPECT_EQ(valueStr(x.body[4].loop().iterations.entries()[0].value), "1920/nranks");
  EXPECT_EQ(x.body[3].ranks, RankList::single(31)) << "the last rank stays the last rank";
  EXPECT_EQ(valueStr(x.body[3].event().param("offset")->value.entries()[0].value), "8*nranks + 2880");
}

TEST(Extrap, InputsInAnyOrder) {
  std::vector<Trace> in = strongInputs();
  std::reverse(in.begin(), in.end());
  std::swap(in[0], in[2]);
  EXPECT_TRUE(diffTraces(run(std::move(in), 32), strongTrace(32)).empty());
}

TEST(Extrap, NToNAndNToNOverNFileNames) {
  auto trace = [](int64_t n) {
    Trace t = strongTrace(n);
    Expr group = (Expr::rank() - Expr::mod(Expr::rank(), Expr(4))) / Expr(4);
    t.files = {{0, {FileNamePart{"out_", std::nullopt, 0}, FileNamePart{"", Expr::rank(), 4}}},
               {1, {FileNamePart{"agg_", std::nullopt, 0}, FileNamePart{"", group, 0}}}};
    return t;
  };
  Trace x = run({trace(4), trace(8), trace(12), trace(16)}, 32);
  EXPECT_TRUE(diffTraces(x, trace(32)).empty());
  EXPECT_EQ(x.files[0].nameFor(31, 32), "out_0031");
  EXPECT_EQ(x.files[1].nameFor(31, 32), "agg_7");
}

// Events that only some ranks run, with rank sets whose start, stride and
// count follow the rank count: every other rank, the odd ranks, the ranks of
// a stencil's left column and its two left columns in a 4-wide process grid
// (a 2-d rank block), and a fixed pair of aggregators.
Trace stencilTrace(int64_t n) {
  Trace t = strongTrace(n);
  auto block = [](int64_t start, std::vector<RankDim> dims) { return RankList::fromBlocks({RankBlock{start, dims}}); };
  std::vector<RankList> sets = {
      RankList::range(0, n / 2, 2),                 // even ranks
      RankList::range(1, n / 2, 2),                 // odd ranks
      RankList::range(0, n / 4, 4),                 // left column of an (N/4) x 4 grid
      block(0, {RankDim{4, n / 4}, RankDim{1, 2}}), // its two left columns
      block(n - 4, {RankDim{1, 4}}),                // the last row
  };
  uint64_t site = 0x40;
  for (const RankList &ranks : sets) {
    t.body.push_back(eventNode(event("MPI_File_write_at", site++, {}), ranks));
    t.body.back().event().params = {{"fh", ElasticValue(Value(Expr(0)), ranks)},
                                    {"offset", ElasticValue(Value(Expr(64) * Expr::rank()), ranks)}};
  }
  return t;
}

TEST(Extrap, StridedAndMeshRankListsFollowTheRankCount) {
  std::vector<Trace> in = {stencilTrace(8), stencilTrace(12), stencilTrace(16), stencilTrace(20)};
  for (int64_t target : {24, 32, 40}) {
    Trace x = run(in, target);
    auto diffs = diffTraces(x, stencilTrace(target));
    EXPECT_TRUE(diffs.empty()) << target << ": " << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  }
  Trace x = run(in, 32);
  const size_t first = x.body.size() - 5;
  EXPECT_EQ(x.body[first].ranks.size(), 16);
  EXPECT_TRUE(x.body[first + 1].ranks.contains(31));
  EXPECT_FALSE(x.body[first + 1].ranks.contains(30));
  EXPECT_EQ(x.body[first + 3].ranks.size(), 16) << "two columns of an 8 x 4 grid";
  EXPECT_TRUE(x.body[first + 3].ranks.contains(29));
  EXPECT_FALSE(x.body[first + 3].ranks.contains(30));
  EXPECT_EQ(x.body[first + 4].ranks, RankList::range(28, 4));
}

// One rank in four does more (writes its group's header): the merge keeps
// the owners {0, 4, 8, ...} and the others apart. The others are one block
// {1+4*[0..N/4-1]+1*[0..2]} from 8 ranks on, but 1-3 at 4: the block of
// the smallest input gets the outer dimension with count 1.
TEST(Extrap, EveryKthRankSplitFollowsTheRankCount) {
  auto trace = [](int64_t n) {
    Trace t = strongTrace(n);
    const RankList owners = RankList::range(0, n / 4, 4), others = RankList::all(n).subtract(owners);
    t.body.push_back(eventNode(event("MPI_File_write_at", 0x60, {param("fh", 0, n)}), RankList::all(n)));
    ElasticValue offset(Value(Expr(32) * Expr::rank()), owners); // entries by first rank, as the merge sorts them
    offset.entries().push_back({others, Value(Expr(64) * Expr::rank() + Expr(8))});
    t.body.back().event().params.push_back({"offset", offset});
    return t;
  };
  for (int64_t target : {24, 32, 64}) {
    Trace x = run({trace(4), trace(8), trace(12), trace(16)}, target);
    auto diffs = diffTraces(x, trace(target));
    EXPECT_TRUE(diffs.empty()) << target << ": " << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  }
}

// A rank set that is a stride at some counts and not at others follows no
// model: refused, naming the ranks seen.
TEST(Extrap, RefusesRankListsOfChangingShape) {
  auto trace = [](int64_t n, RankList ranks) {
    Trace t = strongTrace(n);
    t.body.push_back(eventNode(event("MPI_File_sync", 0x50, {}), ranks));
    t.body.back().event().params = {{"fh", ElasticValue(Value(Expr(0)), ranks)}};
    return t;
  };
  std::string err = errorOf({trace(4, RankList::range(0, 2, 2)), trace(8, RankList::fromRanks({0, 3, 5})),
                             trace(12, RankList::range(0, 6, 2)), trace(16, RankList::range(0, 8, 2))},
                            32);
  EXPECT_NE(err.find("rank list"), std::string::npos) << err;
  EXPECT_NE(err.find("MPI_File_sync"), std::string::npos) << err;
}

TEST(Extrap, ModuloFamily) {
  auto trace = [](int64_t n) {
    Trace t = strongTrace(n);
    Expr shifted = Expr::mod(Expr::rank() + Expr(1), Expr::nranks()) * Expr(64);
    t.body[1].loop().body[0].event().param("offset")->value = ElasticValue(Value(shifted), RankList::all(n));
    return t;
  };
  Trace x = run({trace(4), trace(8), trace(12), trace(16)}, 32);
  EXPECT_TRUE(diffTraces(x, trace(32)).empty());
}

TEST(Extrap, RefusesValuesThatFollowNoModel) {
  auto trace = [](int64_t n) {
    Trace t = strongTrace(n);
    const int64_t seen[] = {0, 7, 9, 100, 3};
    t.body[1].loop().body[0].event().param("offset")->value =
        ElasticValue(Value(Expr(seen[n / 4]) * Expr::rank()), RankList::all(n));
    return t;
  };
  std::string e = errorOf({trace(4), trace(8), trace(12), trace(16)}, 32);
  EXPECT_NE(e.find("parameter 'offset'"), std::string::npos) << e;
  EXPECT_NE(e.find("MPI_File_write_at"), std::string::npos) << e;
  EXPECT_NE(e.find("strong.cpp:20:5"), std::string::npos) << e;
  EXPECT_NE(e.find("N=4: 7*rank"), std::string::npos) << e;
  EXPECT_NE(e.find("models tried: constant, k/N, k/N + b, k*N, k*N + b"), std::string::npos) << e;
}

TEST(Extrap, RefusesDifferentStructuresAndPrograms) {
  std::vector<Trace> in = strongInputs();
  in[2].body.pop_back();
  EXPECT_NE(errorOf(in, 32).find("inputs differ in structure"), std::string::npos);
  in = strongInputs();
  in[1].header.program = "other";
  EXPECT_NE(errorOf(in, 32).find("not all the same program"), std::string::npos);
  in = strongInputs();
  in.pop_back();
  EXPECT_NE(errorOf(in, 32).find("need traces at 4 different rank counts"), std::string::npos);
  in = strongInputs();
  in[3] = strongTrace(4);
  EXPECT_NE(errorOf(in, 32).find("same rank count"), std::string::npos);
}

/// The refusal of `inputs` when extrapolated with their file names.
std::string namedErrorOf(std::vector<Trace> inputs, const std::vector<std::string> &names) {
  ExtrapOptions o;
  o.targetRanks = 32;
  o.inputNames = names;
  try {
    extrapolate(std::move(inputs), o);
  } catch (const ExtrapError &e) {
    return e.what();
  }
  return "";
}

TEST(ExtrapInputs, TheInputOfAnotherProgramIsNamedWithItsFile) {
  // Whichever input differs (first, middle, last), the message names that
  // one and its file, not the first and the last input.
  const std::vector<std::string> names = {"a.4.json", "b.8.json", "c.12.json", "d.16.json"};
  for (size_t odd = 0; odd < 4; ++odd) {
    std::vector<Trace> in = strongInputs();
    in[odd].header.program = "other";
    std::string e = namedErrorOf(in, names);
    const std::string n = std::to_string(in[odd].header.nranks);
    EXPECT_NE(e.find(names[odd] + " (N=" + n + ") is 'other'"), std::string::npos) << e;
    for (size_t k = 0; k < 4; ++k)
      if (k != odd)
        EXPECT_NE(e.find(names[k]), std::string::npos) << e;
    EXPECT_NE(e.find("are 'strong'"), std::string::npos) << e;
  }
  // Two against two: every input with its program.
  std::vector<Trace> in = strongInputs();
  in[0].header.program = in[1].header.program = "other";
  std::string e = namedErrorOf(in, names);
  EXPECT_NE(e.find("a.4.json (N=4) is 'other'"), std::string::npos) << e;
  EXPECT_NE(e.find("d.16.json (N=16) is 'strong'"), std::string::npos) << e;
}

TEST(ExtrapInputs, TheSameRankCountTwiceNamesBothFiles) {
  std::vector<Trace> in = strongInputs();
  in[3] = strongTrace(8);
  std::string e = namedErrorOf(in, {"a.json", "b.json", "c.json", "again.json"});
  EXPECT_NE(e.find("same rank count (8): b.json and again.json"), std::string::npos) << e;
}

TEST(ExtrapInputs, AnExtrapolatedTraceIsRefusedAsInput) {
  // docs/extrap.md's glob `app.*.sio.json` matches the output of an earlier
  // run: an extrapolation is no measurement, and is named as such.
  Trace x = run(strongInputs(), 32);
  std::vector<Trace> in = strongInputs();
  in.push_back(x);
  std::string e = namedErrorOf(in, {"a.json", "b.json", "c.json", "d.json", "app.x32.json"});
  EXPECT_NE(e.find("app.x32.json is an extrapolated trace (sio-extrap's output at N=32, from the traces at N=4,8,12,16)"),
            std::string::npos)
      << e;
}

TEST(Extrap, RefusesTargetsWhereTheModelIsNotExact) {
  // 960/nranks is not an integer at 7 ranks.
  EXPECT_NE(errorOf(strongInputs(), 7).find("not an integer at 7 ranks"), std::string::npos);
}

// IOR-style N-to-1 segmented writes (weak scaling): exact at any rank count.
Trace weakTrace(int64_t n) {
  Trace t = strongTrace(n);
  Event &w = t.body[1].loop().body[0].event();
  w.param("offset")->value = ElasticValue(Value(Expr(240) * Expr::rank() + Expr(240 * n) * Expr::loopIndex(0)), RankList::all(n));
  w.param("count")->value = ElasticValue(Value(Expr(240)), RankList::all(n));
  t.body[4].loop().iterations = ElasticValue(Value(Expr(5)), RankList::all(n));
  return t;
}

TEST(Extrap, OutputSizeIndependentOfTheTarget) {
  std::vector<Trace> in = {weakTrace(4), weakTrace(8), weakTrace(12), weakTrace(16)};
  std::string small = writeTraceString(run(in, 64));
  std::string huge = writeTraceString(run(in, 1048576));
  EXPECT_NE(small.find("240*nranks*i0"), std::string::npos) << small;
  EXPECT_LE(huge.size(), small.size() + 64) << "only digits may grow";
}

TEST(Extrap, UserModels) {
  // Values that grow with N squared fit no built-in model until one is added.
  auto trace = [](int64_t n) {
    Trace t = strongTrace(n);
    t.body[0].event().param("amode")->value = ElasticValue(Value(Expr(n * n)), RankList::all(n));
    return t;
  };
  EXPECT_NE(errorOf({trace(4), trace(8), trace(12), trace(16)}, 32).find("parameter 'amode'"), std::string::npos);
  sio::extrap::registerModel({"k*N^2", {Expr::nranks() * Expr::nranks()}});
  Trace x = run({trace(4), trace(8), trace(12), trace(16)}, 32);
  EXPECT_TRUE(diffTraces(x, trace(32)).empty());
}

TEST(Extrap, TimingIsFittedApproximately) {
  auto trace = [](int64_t n) {
    Trace t = strongTrace(n);
    TimingStats s;
    s.add(uint64_t(1000000 / n + 500)); // inverse + constant
    t.body[1].loop().body[0].event().duration = s;
    return t;
  };
  Trace x = run({trace(4), trace(8), trace(12), trace(16)}, 32);
  double mean = x.body[1].loop().body[0].event().duration.mean();
  EXPECT_NEAR(mean, 1000000.0 / 32 + 500, 50);
  EXPECT_NE(x.header.metadata["timing_fit"].find("timing fits"), std::string::npos);
}

// Issue 32: per-rank timing describes the inputs' own ranks. The
// extrapolated trace carries none (no invented straggler at new ranks) and
// says so in its metadata.
TEST(Extrap, PerRankTimingIsDroppedAndSaid) {
  auto trace = [](int64_t n, bool perRank) {
    Trace t = strongTrace(n);
    Event &e = t.body[1].loop().body[0].event();
    if (perRank)
      for (int64_t r = 0; r < n; ++r) {
        TimingStats d;
        for (int k = 0; k < 3; ++k)
          d.add(r == 1 ? 50000 : 1000);
        e.rankTiming.push_back(rankTimingOf(RankList::single(r), TimingStats(), d));
      }
    return t;
  };
  Trace x = run({trace(4, true), trace(8, true), trace(12, true), trace(16, true)}, 32);
  EXPECT_TRUE(x.body[1].loop().body[0].event().rankTiming.empty());
  EXPECT_NE(x.header.metadata["per_rank_timing"].find("not extrapolated"), std::string::npos);
  Trace y = run({trace(4, false), trace(8, false), trace(12, false), trace(16, false)}, 32);
  EXPECT_EQ(y.header.metadata.count("per_rank_timing"), 0u);
}

// Issue 14 item 3: MPI_Dims_create grids are recomputed at the target.
namespace {

TEST(Extrap, DimsCreateIsMpichsBalancedGrid) {
  using sio::extrap::dimsCreate;
  EXPECT_EQ(dimsCreate(4, 2), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(dimsCreate(12, 2), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(dimsCreate(32, 2), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(dimsCreate(72, 2), (std::vector<int64_t>{9, 8}));
  EXPECT_EQ(dimsCreate(20, 4), (std::vector<int64_t>{5, 2, 2, 1}));
  EXPECT_EQ(dimsCreate(360, 3), (std::vector<int64_t>{10, 6, 6}));
  EXPECT_EQ(dimsCreate(7, 3), (std::vector<int64_t>{7, 1, 1}));
  EXPECT_TRUE(dimsCreate(0, 2).empty());
}

// A darray over the grid: psizes = dims, gsizes = 16 * dims.
Trace gridTrace(int64_t n, bool withDimsCreate, int64_t wrongDim = 0) {
  Trace t;
  t.header.program = "grid";
  t.header.nranks = n;
  const std::vector<int64_t> dims = sio::extrap::dimsCreate(n, 2);
  ObjectEntry darray;
  darray.id = 0;
  darray.kind = "darray";
  darray.serial = 0;
  darray.fields["ints"] = {Expr::nranks() * Expr(1), Expr::rank(), Expr(2), Expr(16 * dims[0]), Expr(16 * dims[1]),
                           Expr(dims[0]), Expr(dims[1])};
  t.datatypes.push_back(darray);
  Event e;
  e.op = "MPI_Dims_create";
  e.layer = Layer::SYNC;
  e.site = 0x10;
  e.params = {param("nnodes", Expr(n), n), param("ndims", Expr(2), n), param("dims0", Expr(dims[0] + wrongDim), n),
              param("dims1", Expr(dims[1]), n)};
  if (withDimsCreate)
    t.body.push_back(eventNode(e, RankList::all(n)));
  Event w = event("MPI_File_write_all", 0x11, {param("count", Expr(256), n), param("datatype", Expr(0), n)});
  t.body.push_back(eventNode(w, RankList::all(n)));
  // ints[0] is the constant n at each traced size, as the runtime records it.
  t.datatypes[0].fields["ints"][0] = Expr(n);
  return t;
}

TEST(Extrap, GridDimensionsAreRecomputedAtTheTarget) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(gridTrace(n, true));
  ExtrapOptions o;
  o.targetRanks = 32;
  Trace out = extrapolate(in, o);
  Trace real = gridTrace(32, true);
  DiffOptions d;
  auto diffs = diffTraces(out, real, d);
  EXPECT_TRUE(diffs.empty()) << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  EXPECT_EQ(out.datatypes[0].fields["ints"][3], Expr(128)); // 16 * 8
  EXPECT_EQ(out.datatypes[0].fields["ints"][6], Expr(4));
}

TEST(Extrap, GridDimensionsNeedTheRecordedCall) {
  for (bool recorded : {false, true}) {
    std::vector<Trace> in;
    for (int64_t n : {4, 8, 12, 16})
      in.push_back(gridTrace(n, recorded, recorded ? 1 : 0)); // recorded, but not the grid dimsCreate computes
    ExtrapOptions o;
    o.targetRanks = 32;
    EXPECT_THROW(extrapolate(in, o), ExtrapError) << recorded;
  }
}

// Cartesian coordinates over the grid (MPI_Cart_coords): a write at row
// rank / dims1, column rank % dims1 of a 64-byte tile (rows of 2*dims1 tiles),
// as the runtime's merge writes it at each rank count (a rank grid whose
// period is dims1: 2, 2, 3, 4 at N = 4, 8, 12, 16).
Trace coordsTrace(int64_t n, bool withDimsCreate) {
  Trace t = gridTrace(n, withDimsCreate);
  t.datatypes.clear();
  t.body.pop_back(); // the darray's write
  const int64_t c = sio::extrap::dimsCreate(n, 2)[1];
  const Expr within = Expr::mod(Expr::rank(), Expr(c));
  const Expr row = (Expr::rank() - within) / Expr(c);
  const Expr offset = Expr(64 * c * 2) * row + Expr(64) * within + Expr(8);
  Event w = event("MPI_File_write_at", 0x12, {param("offset", offset, n), param("count", Expr(64), n)});
  t.body.push_back(eventNode(w, RankList::all(n)));
  return t;
}

TEST(Extrap, GridCoordinatesFollowTheTargetGrid) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(coordsTrace(n, true));
  ExtrapOptions o;
  o.targetRanks = 32;
  Trace out = extrapolate(in, o);
  Trace real = coordsTrace(32, true);
  DiffOptions d;
  auto diffs = diffTraces(out, real, d);
  EXPECT_TRUE(diffs.empty()) << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  // Rank 13 of the 8x4 grid is row 3, column 1: 3*512 + 64 + 8.
  const Expr &offset = std::get<Expr>(out.body.back().event().param("offset")->value.entries()[0].value);
  EXPECT_EQ(offset.evaluate({13, 32, {}}), 3 * 512 + 64 + 8);
  EXPECT_EQ(offset.str(), "128*rank - 64*(rank % 4) + 8");
}

TEST(Extrap, GridCoordinatesNeedTheRecordedCall) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(coordsTrace(n, false));
  ExtrapOptions o;
  o.targetRanks = 32;
  EXPECT_THROW(extrapolate(in, o), ExtrapError);
}

} // namespace

// Issue 14 item 5: an info hint whose value is an integer that follows the
// rank count (cb_nodes = nranks/2) is fitted; other values must agree.
namespace {

Trace infoTrace(int64_t n, const std::string &other) {
  Trace t;
  t.header.program = "hints";
  t.header.nranks = n;
  ObjectEntry info;
  info.kind = "info";
  info.strings = {{"cb_nodes", std::to_string(n / 2)}, {"romio_cb_write", other}};
  t.infos.push_back(info);
  t.body.push_back(eventNode(event("MPI_File_open", 0x20, {param("info", Expr(0), n)}), RankList::all(n)));
  return t;
}

TEST(Extrap, NumericInfoValuesAreFitted) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(infoTrace(n, "enable"));
  ExtrapOptions o;
  o.targetRanks = 32;
  Trace out = extrapolate(in, o);
  EXPECT_EQ(out.infos[0].strings.at("cb_nodes"), "16");
  EXPECT_EQ(out.infos[0].strings.at("romio_cb_write"), "enable");
  in.back() = infoTrace(16, "disable");
  EXPECT_THROW(extrapolate(in, o), ExtrapError);
}

} // namespace

// Never silently wrong: a 3-d grid whose dims1 is 2 at 4, 8, 12 and 16 ranks
// (and 4 at 32) fits "constant 2" and "dims(N,3)[1]" alike. MPI_Dims_create's
// output is recomputed, never fitted; a value both models fit is refused,
// naming both and the rank count that decides (24), unless --prefer chooses
// or a trace at 24 is among the inputs.
namespace {

/// MPI_Dims_create(n, 3) at site 0x10 on every rank, returning `dims`.
Node dimsCreateEvent(int64_t n, const std::vector<int64_t> &dims) {
  Event e;
  e.op = "MPI_Dims_create";
  e.layer = Layer::SYNC;
  e.site = 0x10;
  e.params = {param("nnodes", Expr(n), n), param("ndims", Expr(3), n), param("dims0", Expr(dims[0]), n),
              param("dims1", Expr(dims[1]), n), param("dims2", Expr(dims[2]), n)};
  return eventNode(e, RankList::all(n));
}

Trace grid3Trace(int64_t n) {
  Trace t;
  t.header.program = "grid3";
  t.header.nranks = n;
  const std::vector<int64_t> dims = sio::extrap::dimsCreate(n, 3);
  ObjectEntry darray;
  darray.id = 0;
  darray.kind = "darray";
  darray.fields["ints"] = {
      Expr(n),       Expr::rank(),  Expr(3),      Expr(16 * dims[0]), Expr(16 * dims[1]), Expr(16 * dims[2]),
      Expr(dims[0]), Expr(dims[1]), Expr(dims[2])};
  t.datatypes.push_back(darray);
  t.body.push_back(dimsCreateEvent(n, dims));
  t.body.push_back(eventNode(event("MPI_File_write_all", 0x11, {param("count", Expr(4096), n)}), RankList::all(n)));
  return t;
}

TEST(ExtrapAmbiguity, DimsCreateWithPresetEntries) {
  using sio::extrap::dimsCreate;
  // What MPICH returns (checked with MPI_Dims_create): free entries get the
  // balanced grid of the rest, in non-increasing order.
  EXPECT_EQ(dimsCreate(32, std::vector<int64_t>{0, 2, 0}), (std::vector<int64_t>{4, 2, 4}));
  EXPECT_EQ(dimsCreate(24, std::vector<int64_t>{0, 0, 3}), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(dimsCreate(30, std::vector<int64_t>{0, 0, 0}), (std::vector<int64_t>{5, 3, 2}));
  EXPECT_TRUE(dimsCreate(30, std::vector<int64_t>{0, 4, 0}).empty());
}

TEST(ExtrapAmbiguity, RefusesAndNamesTheDecidingRankCount) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(grid3Trace(n));
  ExtrapOptions o;
  o.targetRanks = 32;
  try {
    extrapolate(in, o);
    FAIL() << "extrapolated an ambiguous grid";
  } catch (const sio::extrap::AmbiguityError &e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("add a trace at N=24"), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid"), std::string::npos) << msg;
  }
  // Three inputs, 4, 8, 16: the same.
  std::vector<Trace> three = {grid3Trace(4), grid3Trace(8), grid3Trace(16)};
  o.minInputs = 3;
  EXPECT_THROW(extrapolate(three, o), sio::extrap::AmbiguityError);
}

TEST(ExtrapAmbiguity, ATraceAtTheDecidingCountSettlesIt) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16, 24})
    in.push_back(grid3Trace(n));
  ExtrapOptions o;
  o.targetRanks = 32;
  Trace out = extrapolate(in, o);
  auto diffs = diffTraces(out, grid3Trace(32), DiffOptions{});
  EXPECT_TRUE(diffs.empty()) << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  EXPECT_EQ(out.header.metadata.count("extrap_choices"), 0u);
}

TEST(ExtrapAmbiguity, PreferSettlesItAndIsRecorded) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(grid3Trace(n));
  ExtrapOptions o;
  o.targetRanks = 32;
  // The grid for the darray's fields, constants for the rest (the count of
  // 4096 is 2048*dims1 as well at these inputs).
  o.prefer = {"grid@datatype", "grid@MPI_Dims_create", "constant"};
  Trace out = extrapolate(in, o);
  auto diffs = diffTraces(out, grid3Trace(32), DiffOptions{});
  EXPECT_TRUE(diffs.empty()) << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  ASSERT_EQ(out.header.metadata.count("extrap_choices"), 1u);
  EXPECT_NE(out.header.metadata["extrap_choices"].find("--prefer grid@datatype"), std::string::npos);
  // Preferring constants everywhere is what the user asked for: recorded too.
  o.prefer = {"constant", "preset"};
  Trace wrong = extrapolate(in, o);
  EXPECT_FALSE(diffTraces(wrong, grid3Trace(32), DiffOptions{}).empty());
  EXPECT_NE(wrong.header.metadata["extrap_choices"].find("--prefer constant"), std::string::npos);
}

} // namespace

// Read results follow from the file's extent: in a strong-scaling program
// rank r writes 9600/N bytes at r*9600/N (9600 bytes in all), then reads
// 1200 bytes at r*1200: ranks 8 and
// up read past the end (0 bytes) at 12 and 16 ranks, every rank reads all at
// 4 and 8. Modeled as min(count, max(0, extent - offset)), the result is
// exact at 32; with the file opened without O_CREAT (it existed before the
// run) the same results are refused.
namespace {

Trace eofTrace(int64_t n, bool created) {
  Trace t;
  t.header.program = "eof";
  t.header.nranks = n;
  t.files.push_back({0, {FileNamePart{"eof.dat", std::nullopt, 0}}});
  const RankList all = RankList::all(n);
  const Expr rank = Expr::rank();
  Event open = event(
      "open", 0x30, {param("file", Expr(0), n), param("flags", Expr(created ? 0102 : 02), n), param("fd", Expr(3), n)});
  t.body.push_back(eventNode(open, all));
  t.body.push_back(eventNode(event("pwrite", 0x31,
                                   {param("fd", Expr(3), n), param("count", Expr(9600 / n), n),
                                    param("offset", Expr(9600 / n) * rank, n), param("result", Expr(9600 / n), n)}),
                             all));
  Event read = event("pread", 0x32,
                     {param("fd", Expr(3), n), param("count", Expr(1200), n), param("offset", Expr(1200) * rank, n)});
  ElasticValue result;
  const int64_t full = std::min<int64_t>(n, 8);
  result.entries().push_back({RankList::range(0, full), Value(Expr(1200))});
  if (n > 8)
    result.entries().push_back({RankList::range(8, n - 8), Value(Expr(0))});
  read.params.push_back({"result", result});
  t.body.push_back(eventNode(read, all));
  return t;
}

TEST(ExtrapReadResults, ShortReadsPastTheEndAreExact) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(eofTrace(n, true));
  Trace out = run(in, 32);
  auto diffs = diffTraces(out, eofTrace(32, true), DiffOptions{});
  EXPECT_TRUE(diffs.empty()) << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
  // And at 8, where every rank reads all: the result is the count again.
  Trace at8 = run(in, 8);
  EXPECT_TRUE(diffTraces(at8, eofTrace(8, true), DiffOptions{}).empty());
}

TEST(ExtrapReadResults, RefusesResultsFromAFileThatExistedBeforeTheRun) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(eofTrace(n, false));
  const std::string msg = errorOf(in, 32);
  EXPECT_NE(msg.find("parameter 'result'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is not in the trace"), std::string::npos) << msg;
}

TEST(ExtrapReadResults, AHugeRankCountAllocatesNoPerRankTables) {
  // A (hostile) trace of 2^31-1 ranks: refused by the rank-count check,
  // not by std::bad_alloc from tables sized before it (the fuzz test).
  Trace t = eofTrace(4, true);
  t.header.nranks = 2147483647;
  std::map<std::string, sio::extrap::ReadOutcome> reads;
  EXPECT_NO_THROW(reads = sio::extrap::simulateReads(t, true));
  for (const auto &[path, outcome] : reads)
    EXPECT_FALSE(outcome.supported) << path;
}

TEST(ExtrapReadResults, RefusesResultsTheWritesDoNotGive) {
  // The recorded results say 0 from rank 6 up, the writes leave 9600 bytes.
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16}) {
    Trace t = eofTrace(n, true);
    auto &entries = t.body.back().event().params.back().value.entries();
    entries.clear();
    entries.push_back({RankList::range(0, std::min<int64_t>(n, 6)), Value(Expr(1200))});
    if (n > 6)
      entries.push_back({RankList::range(6, n - 6), Value(Expr(0))});
    in.push_back(std::move(t));
  }
  const std::string msg = errorOf(in, 32);
  EXPECT_NE(msg.find("does not follow from the trace's writes"), std::string::npos) << msg;
}

} // namespace

// A program that presets dims[1] = 2 (MPI_Dims_create(N, 3, {0, 2, 0})):
// at 4, 8, 12, 16 ranks its grids are those of {0, 0, 0}, at 24 they are not
// (4x2x3, not 4x3x2), so with a 24-rank input the preset is the only
// hypothesis left and the 32-rank grid is 4x2x4.
namespace {

Trace presetTrace(int64_t n) {
  Trace t;
  t.header.program = "preset";
  t.header.nranks = n;
  const std::vector<int64_t> dims = sio::extrap::dimsCreate(n, std::vector<int64_t>{0, 2, 0});
  t.body.push_back(dimsCreateEvent(n, dims));
  return t;
}

TEST(ExtrapAmbiguity, PresetDimsCreateEntries) {
  std::vector<Trace> in;
  for (int64_t n : {4, 8, 12, 16})
    in.push_back(presetTrace(n));
  EXPECT_NE(errorOf(in, 32).find("preset dims1=2 given by the program gives 4x2x4"), std::string::npos);
  ExtrapOptions o;
  o.targetRanks = 32;
  o.prefer = {"preset"};
  EXPECT_TRUE(diffTraces(extrapolate(in, o), presetTrace(32), DiffOptions{}).empty());
  in.push_back(presetTrace(24));
  Trace out = run(in, 32);
  EXPECT_TRUE(diffTraces(out, presetTrace(32), DiffOptions{}).empty());
  EXPECT_EQ(out.header.metadata.count("extrap_choices"), 0u);
}

} // namespace

namespace {

// A loop of 96/N iterations runs once at N = 96: the runtime records its
// only iteration's values (offset 64*rank, not 64*rank + 8*i0), and the
// extrapolated trace writes them the same way (the property test's square
// grid with 96/N steps at 64 ranks differed from the real trace only so).
Trace onceTrace(int64_t n) {
  Trace t;
  t.header.program = "once";
  t.header.nranks = n;
  t.files.push_back({0, {FileNamePart{"once.dat", std::nullopt, 0}}});
  t.sites.push_back({0x11, "once.c", 20, 5, "main", "MPI_File_write_at", 0x21});
  t.loops.push_back({0x21, "once.c", 19, 3, "main", 0});
  t.loops.push_back({0x22, "once.c", 21, 3, "main", 0x21});
  RankList all = RankList::all(n);
  Expr rank = Expr::rank(), i0 = Expr::loopIndex(0), i1 = Expr::loopIndex(1);
  // An inner loop of 2 iterations whose offsets use both indices.
  t.body.push_back(loopNode(
      0x21, 96 / n,
      {eventNode(
           event("MPI_File_write_at", 0x11, {param("fh", 0, n), param("offset", Expr(64) * rank + Expr(8) * i0, n)}),
           all),
       loopNode(0x22, 2,
                {eventNode(event("MPI_File_write_at", 0x12,
                                 {param("fh", 0, n), param("offset", Expr(16) * i0 + Expr(4) * i1 + Expr(3), n)}),
                           all)},
                all)},
      all));
  return t;
}

TEST(Extrap, ALoopThatRunsOnceAtTheTargetHasNoIndex) {
  auto offsets = [](const Trace &t) {
    const Loop &loop = t.body.at(0).loop();
    auto of = [](const Node &n) { return std::get<Expr>(n.event().param("offset")->value.entries().at(0).value); };
    return std::pair{of(loop.body.at(0)), of(loop.body.at(1).loop().body.at(0))};
  };
  std::vector<Trace> inputs{onceTrace(4), onceTrace(8), onceTrace(12), onceTrace(16)};
  auto [once, onceInner] = offsets(run(inputs, 96));
  EXPECT_EQ(once, Expr(64) * Expr::rank());
  EXPECT_EQ(onceInner, Expr(4) * Expr::loopIndex(1) + Expr(3)); // the inner loop runs twice: i1 stays
  auto [twice, twiceInner] = offsets(run(inputs, 48));
  EXPECT_EQ(twice, Expr(64) * Expr::rank() + Expr(8) * Expr::loopIndex(0));
  EXPECT_EQ(twiceInner, Expr(16) * Expr::loopIndex(0) + Expr(4) * Expr::loopIndex(1) + Expr(3));
}

// n/N + (rank < n % N) doubles a rank with n = 505 as the merge writes it:
// two groups, the first the n % N ranks with one more. Where n % N = 1 (N =
// 4, 8, 12) the first group is rank 0 alone, its offset 0: no slope. A fit
// over every input took the slopes 0, 0, 0, 256 for a block model and gave
// 768*rank at 32 (the real 128*rank); it is refused, naming the inputs.
Trace remainderTrace(int64_t n, int64_t len) {
  Trace t;
  t.header.program = "remainder";
  t.header.nranks = n;
  t.files.push_back({0, {FileNamePart{"block.dat", std::nullopt, 0}}});
  const int64_t q = len / n, r = len % n;
  const RankList first = RankList::range(0, r), rest = RankList::range(r, n - r);
  ElasticValue offset(Value(r == 1 ? Expr(0) : Expr(8 * (q + 1)) * Expr::rank()), first);
  offset.entries().push_back({rest, Value(Expr(8 * q) * Expr::rank() + Expr(8 * r))});
  ElasticValue count(Value(Expr(q + 1)), first);
  count.entries().push_back({rest, Value(Expr(q))});
  t.body.push_back(eventNode(event("MPI_File_write_at", 0x70, {param("fh", 0, n)}), RankList::all(n)));
  t.body.back().event().params.push_back({"offset", offset});
  t.body.back().event().params.push_back({"count", count});
  return t;
}

TEST(Extrap, AGroupOfOneRankAtSomeInputsHasNoSlopeThere) {
  const std::string e505 =
      errorOf({remainderTrace(4, 505), remainderTrace(8, 505), remainderTrace(12, 505), remainderTrace(16, 505)}, 32);
  EXPECT_NE(e505.find("a group of ranks has one rank at N=4, 8, 12, whose slope in rank no such input shows"),
            std::string::npos)
      << e505;
  // With 506 the groups have two ranks or more at every input: exact.
  Trace x = run({remainderTrace(4, 506), remainderTrace(8, 506), remainderTrace(12, 506), remainderTrace(16, 506)}, 32);
  auto diffs = diffTraces(x, remainderTrace(32, 506));
  EXPECT_TRUE(diffs.empty()) << (diffs.empty() ? "" : diffs[0].where + ": " + diffs[0].what);
}

} // namespace
