#include "Expand.h"
#include "InterRank.h"
#include "Recorder.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>

namespace sio::rt::test {
namespace {

using namespace sio::trace;

struct RankRun {
  Trace trace;
  std::vector<FlatEvent> fed;
};

/// Runs `program` as rank r of n; `files` is the rank's file table (id = index).
RankRun runRank(int64_t r, int64_t n, const std::function<void(Recorder &, int64_t, int64_t)> &program,
                const std::vector<std::string> &files = {}) {
  Recorder rec;
  program(rec, r, n);
  RankRun run;
  run.trace.header.nranks = n;
  for (size_t k = 0; k < files.size(); ++k)
    run.trace.files.push_back({static_cast<int64_t>(k), {FileNamePart{files[k], std::nullopt, 0}}});
  run.trace.body = rec.compressor.finish(r, n);
  run.fed = rec.fed;
  return run;
}

/// Binomial-tree merge as capture does it, then finalize; checks every rank
/// replays exactly what it was fed.
Trace mergeAll(const std::vector<RankRun> &runs, bool finalize = true) {
  std::vector<Trace> level;
  for (const RankRun &r : runs)
    level.push_back(r.trace);
  for (size_t step = 1; step < level.size(); step *= 2)
    for (size_t k = 0; k + step < level.size(); k += 2 * step)
      level[k] = mergeTraces(std::move(level[k]), std::move(level[k + step]));
  Trace t = std::move(level[0]);
  if (finalize)
    finalizeMerged(t);
  for (size_t r = 0; r < runs.size(); ++r)
    EXPECT_EQ(expandRank(t, static_cast<int64_t>(r)), runs[r].fed) << "rank " << r;
  return t;
}

const Value &value(const Node &node, std::string_view name) {
  const Param *p = node.event().param(name);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(p->value.entries().size(), 1u) << name;
  return p->value.entries().at(0).value;
}

void strongScaling(Recorder &rec, int64_t r, int64_t n) {
  rec.event(makeFlat("MPI_File_open", 1, {{"file", 0}, {"amode", 9}}));
  rec.enter(19);
  for (int64_t i = 0; i < 3; ++i) {
    rec.iter(19);
    rec.write(r * (960 / n) + 960 * i, 2, 960 / n);
  }
  rec.exit(19);
  rec.event(makeFlat("MPI_Barrier", 3, {}));
  rec.enter(23);
  for (int64_t i = 0; i < 5; ++i) {
    rec.iter(23);
    rec.event(makeFlat("MPI_File_read_at", 4, {{"fh", 0}, {"offset", 320 * r + 64 * i}, {"count", 64}}));
  }
  rec.exit(23);
  rec.event(makeFlat("MPI_File_close", 5, {{"fh", 0}}));
}

TEST(InterRank, ScalaIOExtrapTable1MergesTo240RankPlus960I) {
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 4; ++r)
    runs.push_back(runRank(r, 4, strongScaling, {"data/strong.dat"}));
  Trace t = mergeAll(runs);
  ASSERT_EQ(t.body.size(), 5u);
  for (const Node &node : t.body)
    EXPECT_EQ(node.ranks, RankList::all(4));
  const Node &write = t.body[1].loop().body.at(0);
  EXPECT_EQ(std::get<Expr>(value(write, "offset")), Expr(240) * Expr::rank() + Expr(960) * Expr::loopIndex(0));
  EXPECT_EQ(std::get<Expr>(value(write, "count")), Expr(240));
  const Node &read = t.body[3].loop().body.at(0);
  EXPECT_EQ(std::get<Expr>(value(read, "offset")), Expr(320) * Expr::rank() + Expr(64) * Expr::loopIndex(0));
  ASSERT_EQ(t.files.size(), 1u);
  EXPECT_EQ(t.files[0].nameFor(2, 4), "data/strong.dat");
}

class EqualStructure : public ::testing::TestWithParam<int64_t> {};

TEST_P(EqualStructure, BecomesOneNodePerEventWithFullRankList) {
  const int64_t n = GetParam();
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < n; ++r)
    runs.push_back(runRank(r, n, strongScaling, {"data/strong.dat"}));
  Trace t = mergeAll(runs);
  EXPECT_EQ(countNodes(t.body), countNodes(runs[0].trace.body));
  for (const Node &node : t.body)
    EXPECT_EQ(node.ranks.str(), "0-" + std::to_string(n - 1));
}
INSTANTIATE_TEST_SUITE_P(Ranks, EqualStructure, ::testing::Values(4, 8, 16));

TEST(InterRank, DivergentEventOfRankZeroIsKept) {
  auto program = [](Recorder &rec, int64_t r, int64_t n) {
    rec.event(makeFlat("MPI_File_open", 1, {{"file", 0}}));
    if (r == 0)
      rec.event(makeFlat("MPI_File_write_at", 9, {{"fh", 0}, {"offset", 0}, {"count", 16}}));
    rec.enter(7);
    for (int i = 0; i < 4; ++i) {
      rec.iter(7);
      rec.write(16 + 64 * (4 * r + i));
    }
    rec.exit(7);
    rec.event(makeFlat("MPI_File_close", 5, {{"fh", 0}}));
  };
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 16; ++r)
    runs.push_back(runRank(r, 16, program, {"out.dat"}));
  Trace t = mergeAll(runs);
  ASSERT_EQ(t.body.size(), 4u);
  EXPECT_EQ(t.body[1].ranks, RankList::single(0));
  EXPECT_EQ(t.body[2].ranks, RankList::all(16));
  EXPECT_EQ(std::get<Expr>(value(t.body[2].loop().body.at(0), "offset")),
            Expr(16) + Expr(256) * Expr::rank() + Expr(64) * Expr::loopIndex(0));
}

TEST(InterRank, DifferentLoopBodiesMergeWithPerRankNodesInside) {
  auto program = [](Recorder &rec, int64_t r, int64_t) {
    rec.enter(7);
    for (int i = 0; i < 3 + r; ++i) {
      rec.iter(7);
      rec.write(64 * i);
      if (r % 2)
        rec.event(makeFlat("fsync", 2, {{"fd", 3}}));
    }
    rec.exit(7);
  };
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 4; ++r)
    runs.push_back(runRank(r, 4, program));
  Trace t = mergeAll(runs);
  ASSERT_EQ(t.body.size(), 1u);
  EXPECT_EQ(std::get<Expr>(t.body[0].loop().iterations.entries().at(0).value), Expr(3) + Expr::rank());
}

std::string mergedFileFormat(int64_t n, const std::function<std::string(int64_t)> &nameOf) {
  auto program = [](Recorder &rec, int64_t, int64_t) {
    rec.event(makeFlat("open", 1, {{"file", 0}, {"flags", 66}}));
    rec.event(makeFlat("write", 2, {{"fd", 3}, {"count", 100}}));
  };
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < n; ++r)
    runs.push_back(runRank(r, n, program, {nameOf(r)}));
  Trace t = mergeAll(runs);
  EXPECT_EQ(t.files.size(), 1u);
  EXPECT_EQ(t.body.size(), 2u);
  if (t.files.empty() || t.body.empty())
    return "";
  EXPECT_EQ(std::get<Expr>(value(t.body[0], "file")), Expr(t.files[0].id));
  for (int64_t r = 0; r < n; ++r)
    EXPECT_EQ(t.files[0].nameFor(r, n), nameOf(r));
  return t.files[0].formatStr();
}

TEST(InterRank, FileNamesNToN) {
  EXPECT_EQ(mergedFileFormat(16, [](int64_t r) { return "/dir0/file_" + std::to_string(r); }), "/dir0/file_<rank>");
}

TEST(InterRank, FileNamesNToNOverN) {
  EXPECT_EQ(mergedFileFormat(16, [](int64_t r) { return "/dir0/file_" + std::to_string(r / 4); }),
            "/dir0/file_<rank/4>");
}

TEST(InterRank, FileNamesZeroPadded) {
  EXPECT_EQ(mergedFileFormat(16,
                             [](int64_t r) {
                               char buf[32];
                               std::snprintf(buf, sizeof buf, "out_%04d.h5", static_cast<int>(r));
                               return std::string(buf);
                             }),
            "out_<rank:04>.h5");
}

TEST(InterRank, SharedFileStaysOneLiteralName) {
  EXPECT_EQ(mergedFileFormat(8, [](int64_t) { return "shared_2024.dat"; }), "shared_2024.dat");
}

/// A metadata benchmark per rank: mkdir dir.<r>, then in a loop one file
/// per iteration, named by `nameOf(r, i)`, created and stat'ed. The rank's
/// table lists the directory and then every file, as capture builds it.
Trace loopFilesTrace(int64_t n, const std::function<std::string(int64_t, int64_t)> &nameOf, int64_t files = 6) {
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < n; ++r) {
    auto program = [&](Recorder &rec, int64_t, int64_t) {
      rec.event(makeFlat("mkdir", 1, {{"file", 0}, {"mode", 493}}));
      for (int64_t i = 0; i < files; ++i) {
        rec.event(makeFlat("open", 2, {{"file", 1 + i}, {"flags", 65}, {"fd", 0}}));
        rec.event(makeFlat("close", 3, {{"fd", 0}}));
        rec.event(makeFlat("stat", 4, {{"file", 1 + i}}));
      }
    };
    std::vector<std::string> names = {"dir." + std::to_string(r)};
    for (int64_t i = 0; i < files; ++i)
      names.push_back(nameOf(r, i));
    RankRun run = runRank(r, n, program, names);
    formatLoopFileNames(run.trace, r);
    runs.push_back(std::move(run));
  }
  std::vector<Trace> level;
  for (RankRun &r : runs)
    level.push_back(std::move(r.trace));
  for (size_t step = 1; step < level.size(); step *= 2)
    for (size_t k = 0; k + step < level.size(); k += 2 * step)
      level[k] = mergeTraces(std::move(level[k]), std::move(level[k + step]));
  finalizeMerged(level[0]);
  return std::move(level[0]);
}

/// Generated: n ranks, each with or without each MPI-IO environment key and
/// one of two values. After the tree merge, mpi_io_env_differs lists
/// exactly the keys that are not the same on every rank (absent counts as
/// a value), each once, with one note each; rank 0's values are kept.
TEST(InterRank, DifferingMpiIoEnvironmentIsListedOnce) {
  const std::vector<std::string> keys = {"env.ROMIO_HINTS", "env.ROMIO_PRINT_HINTS", "romio_hints.contents"}; // sorted
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const int64_t n = 1 + int64_t(rng() % 9);
    auto level = std::vector<Trace>(size_t(n));
    std::map<std::string, std::set<std::string>> seen; // key -> values over ranks ("" = absent)
    for (int64_t r = 0; r < n; ++r) {
      level[size_t(r)].header.nranks = n;
      level[size_t(r)].header.metadata["hostname"] = "node" + std::to_string(r); // differs, not listed
      for (const std::string &key : keys) {
        unsigned pick = rng() % 8; // mostly the common value
        std::string v = pick == 0 ? "" : pick == 1 ? "other" : "common";
        if (!v.empty())
          level[size_t(r)].header.metadata[key] = v;
        seen[key].insert(v);
      }
    }
    const auto rank0 = level[0].header.metadata;
    for (size_t step = 1; step < level.size(); step *= 2)
      for (size_t k = 0; k + step < level.size(); k += 2 * step)
        level[k] = mergeTraces(std::move(level[k]), std::move(level[k + step]));
    const auto &meta = level[0].header.metadata;
    std::string expected;
    for (const std::string &key : keys)
      if (seen[key].size() > 1)
        expected += (expected.empty() ? "" : ",") + key;
    auto listed = meta.find(std::string(kMpiIoEnvDiffersKey));
    EXPECT_EQ(listed == meta.end() ? "" : listed->second, expected) << "round " << round << ", " << n << " ranks";
    EXPECT_EQ(std::count(expected.begin(), expected.end(), ',') + (expected.empty() ? 0 : 1),
              int64_t(level[0].header.notes.size()));
    for (const std::string &key : keys)
      EXPECT_EQ(meta.count(key) ? meta.at(key) : "", rank0.count(key) ? rank0.at(key) : "");
  }
}

TEST(InterRank, LoopFileNamesBecomeOneFormat) {
  const int64_t n = 8;
  auto nameOf = [](int64_t r, int64_t i) {
    return "dir." + std::to_string(r) + "/file." + std::to_string(r) + "." + std::to_string(i);
  };
  Trace t = loopFilesTrace(n, nameOf, 12);
  ASSERT_EQ(t.files.size(), 2u) << "one entry per format, not one per file";
  EXPECT_EQ(t.files[0].formatStr(), "dir.<rank>");
  EXPECT_EQ(t.files[1].formatStr(), "dir.<rank>/file.<rank>.<i0>");
  // Every rank names every file it used, at every iteration.
  for (int64_t r = 0; r < n; ++r)
    for (int64_t i = 0; i < 12; ++i) {
      std::vector<int64_t> idx = {i};
      EXPECT_EQ(t.files[1].nameFor(r, n, idx), nameOf(r, i));
    }
  ASSERT_EQ(t.body.size(), 2u);
  const Loop &loop = t.body[1].loop();
  EXPECT_EQ(std::get<Expr>(value(loop.body[0], "file")), Expr(t.files[1].id));
  EXPECT_EQ(std::get<Expr>(value(loop.body[2], "file")), Expr(t.files[1].id));
}

TEST(InterRank, LoopFileNamesZeroPaddedAndStrided) {
  auto nameOf = [](int64_t r, int64_t i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "ckpt_%04d/part_%d", static_cast<int>(10 * i + 5), static_cast<int>(r));
    return std::string(buf);
  };
  Trace t = loopFilesTrace(4, nameOf);
  ASSERT_EQ(t.files.size(), 2u);
  EXPECT_EQ(t.files[1].formatStr(), "ckpt_<10*i0 + 5:04>/part_<rank>");
}

TEST(InterRank, LoopFileNamesThatFollowNoModelKeepTheirEntries) {
  // i*i is not affine in the index: the files stay one entry each.
  Trace t = loopFilesTrace(2, [](int64_t r, int64_t i) {
    return "dir." + std::to_string(r) + "/sq." + std::to_string(i * i);
  });
  EXPECT_GT(t.files.size(), 6u);
}

TEST(InterRank, RotatedRankModelIsFitted) {
  auto program = [](Recorder &rec, int64_t r, int64_t n) { rec.write(((r + 1) % n) * 64); };
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 8; ++r)
    runs.push_back(runRank(r, 8, program));
  Trace t = mergeAll(runs);
  ASSERT_EQ(t.body.size(), 1u);
  EXPECT_EQ(std::get<Expr>(value(t.body[0], "offset")),
            Expr::mod(Expr::rank() + Expr(1), Expr::nranks()) * Expr(64));
}

TEST(InterRank, ConstantPeriodAndGroupModelsAreFitted) {
  // N-to-N/n: rank r writes slot r % 4 of its group's file; a 2-d grid mixes
  // the position in the group with the group index.
  auto slot = [](Recorder &rec, int64_t r, int64_t) { rec.write(100 * (r % 4)); };
  auto grid = [](Recorder &rec, int64_t r, int64_t) { rec.write(8 * (r % 4) + 1000 * (r / 4) + 5); };
  std::vector<RankRun> slots, grids;
  for (int64_t r = 0; r < 16; ++r) {
    slots.push_back(runRank(r, 16, slot));
    grids.push_back(runRank(r, 16, grid));
  }
  Expr within = Expr::mod(Expr::rank(), Expr(4));
  Expr group = (Expr::rank() - within) / Expr(4);
  EXPECT_EQ(std::get<Expr>(value(mergeAll(slots).body.at(0), "offset")), Expr(100) * within);
  EXPECT_EQ(std::get<Expr>(value(mergeAll(grids).body.at(0), "offset")), Expr(8) * within + Expr(1000) * group + Expr(5));
}

TEST(InterRank, UnfittableValuesStayAsRankEntries) {
  auto program = [](Recorder &rec, int64_t r, int64_t) { rec.write(r * r * 8); };
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 6; ++r)
    runs.push_back(runRank(r, 6, program));
  Trace t = mergeAll(runs);
  EXPECT_EQ(t.body.at(0).event().param("offset")->value.entries().size(), 6u);
}

TEST(InterRank, MergeIsDeterministic) {
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 8; ++r)
    runs.push_back(runRank(r, 8, strongScaling, {"data/strong.dat"}));
  Trace a = mergeAll(runs), b = mergeAll(runs);
  EXPECT_EQ(serializeTrace(a), serializeTrace(b));
}

TEST(InterRank, SerializedPerRankTraceMergesLikeTheOriginal) {
  std::vector<RankRun> runs;
  for (int64_t r = 0; r < 4; ++r)
    runs.push_back(runRank(r, 4, strongScaling, {"data/strong.dat"}));
  Trace direct = mergeTraces(runs[0].trace, runs[1].trace);
  Trace shipped = mergeTraces(runs[0].trace, deserializeTrace(serializeTrace(runs[1].trace)));
  EXPECT_EQ(serializeTrace(direct), serializeTrace(shipped));
}

// Issue 14 item 2: objects are identified by their creation event (site and
// per-rank serial), so a split made by every rank with key = rank is one
// entry whose key is the function `rank`, whatever the rank count.
ObjectEntry madeObject(int64_t id, std::string kind, uint64_t site, int64_t serial, int64_t rank,
                       std::map<std::string, std::vector<Expr>> fields) {
  ObjectEntry e;
  e.id = id;
  e.kind = std::move(kind);
  e.site = site;
  e.serial = serial;
  e.fields = std::move(fields);
  e.ranks = RankList::single(rank);
  return e;
}

Trace objectsOfRank(int64_t r, int64_t n, const std::function<int64_t(int64_t)> &color) {
  Trace t;
  t.header.nranks = n;
  ObjectEntry world;
  world.kind = "world";
  world.ranks = RankList::single(r);
  t.comms.push_back(world);
  t.comms.push_back(madeObject(1, "split", 0x51, 0, r, {{"color", {Expr(color(r))}}, {"key", {Expr(r)}}, {"parent", {Expr(0)}}}));
  // A second split of the first: its parent is an id of the same table.
  t.comms.push_back(madeObject(2, "split", 0x52, 0, r, {{"color", {Expr(0)}}, {"key", {Expr(-r)}}, {"parent", {Expr(1)}}}));
  // A struct whose displacement is 1024*rank.
  ObjectEntry byte;
  byte.kind = "named";
  byte.name = "MPI_BYTE";
  byte.ranks = RankList::single(r);
  t.datatypes.push_back(byte);
  t.datatypes.push_back(madeObject(1, "struct", 0, 0, r, {{"aints", {Expr(1024 * r)}}, {"types", {Expr(0)}}}));
  Node node;
  node.ranks = RankList::single(r);
  Event e;
  e.op = "MPI_Barrier";
  e.layer = Layer::SYNC;
  e.params.push_back({"comm", ElasticValue(Expr(2), RankList::single(r))});
  node.item = e;
  t.body.push_back(node);
  return t;
}

Trace mergeObjectTraces(int64_t n, const std::function<int64_t(int64_t)> &color) {
  std::vector<Trace> level;
  for (int64_t r = 0; r < n; ++r)
    level.push_back(objectsOfRank(r, n, color));
  for (size_t step = 1; step < level.size(); step *= 2)
    for (size_t k = 0; k + step < level.size(); k += 2 * step)
      level[k] = mergeTraces(std::move(level[k]), std::move(level[k + step]));
  finalizeMerged(level[0]);
  return level[0];
}

TEST(InterRank, ObjectsMadeByEveryRankAreOneEntryWithRankModels) {
  for (int64_t n : {4, 8, 12}) {
    Trace t = mergeObjectTraces(n, [](int64_t r) { return r % 2; });
    ASSERT_EQ(t.comms.size(), 3u) << n;
    EXPECT_EQ(t.comms[1].fields.at("color")[0], Expr::mod(Expr::rank(), Expr(2)));
    EXPECT_EQ(t.comms[1].fields.at("key")[0], Expr::rank());
    EXPECT_EQ(t.comms[2].fields.at("key")[0], -Expr::rank());
    EXPECT_EQ(t.comms[2].fields.at("parent")[0], Expr(1));
    EXPECT_EQ(t.comms[1].site, 0x51u);
    EXPECT_TRUE(t.comms[1].ranks.empty()) << "merge-only ranks are dropped";
    ASSERT_EQ(t.datatypes.size(), 2u);
    EXPECT_EQ(t.datatypes[1].fields.at("aints")[0], Expr(1024) * Expr::rank());
    // Every rank names the same communicator in the body: one uniform value.
    ASSERT_EQ(t.body.size(), 1u);
    EXPECT_TRUE(t.body[0].event().params[0].value.isUniform());
    EXPECT_EQ(value(t.body[0], "comm"), Value(Expr(2)));
  }
}

TEST(InterRank, ObjectFieldsWithoutRankModelBecomeRankTables) {
  const std::vector<int64_t> colors = {5, 1, 4, 1, 5, 9};
  Trace t = mergeObjectTraces(6, [&](int64_t r) { return colors[size_t(r)]; });
  ASSERT_EQ(t.comms.size(), 3u);
  EXPECT_EQ(t.comms[1].fields.at("color")[0], Expr::table(colors, Expr::rank()));
}

// Issue 32: per-rank timing survives the merge where it shows a difference.
Trace timedRank(int64_t r, int64_t n, uint64_t writeNs) {
  Trace t;
  t.header.nranks = n;
  for (auto [op, ns] : {std::pair{"MPI_File_write_at", writeNs}, std::pair{"MPI_File_close", uint64_t(1000000)}}) {
    Event e;
    e.op = op;
    e.layer = Layer::MPIIO;
    e.site = 7;
    for (int k = 0; k < 4; ++k) {
      e.duration.add(ns);
      e.compute.add(1000);
    }
    t.body.push_back(Node{RankList::single(r), std::move(e)});
  }
  seedRankTiming(t.body, r);
  return t;
}

Trace mergeTimed(const std::vector<uint64_t> &writeNs) {
  std::vector<Trace> level;
  for (size_t r = 0; r < writeNs.size(); ++r)
    level.push_back(timedRank(int64_t(r), int64_t(writeNs.size()), writeNs[r]));
  for (size_t step = 1; step < level.size(); step *= 2)
    for (size_t k = 0; k + step < level.size(); k += 2 * step)
      level[k] = mergeTraces(std::move(level[k]), std::move(level[k + step]));
  finalizeMerged(level[0]);
  return std::move(level[0]);
}

TEST(InterRank, PerRankTimingKeepsAStragglerApart) {
  Trace t = mergeTimed({100000, 100000, 100000, 100000, 100000, 10000000, 100000, 100000});
  ASSERT_EQ(t.body.size(), 2u);
  const std::vector<RankTiming> &write = t.body[0].event().rankTiming;
  ASSERT_EQ(write.size(), 2u);
  const RankTiming *slow = findRankTiming(write, 5);
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->ranks, RankList::single(5));
  EXPECT_DOUBLE_EQ(slow->durationMean(), 10000000.0);
  EXPECT_EQ(findRankTiming(write, 0)->ranks.size(), 7);
  // Equal ranks: nothing kept, the event's statistics describe them.
  EXPECT_TRUE(t.body[1].event().rankTiming.empty());
  Trace equal = mergeTimed(std::vector<uint64_t>(8, 100000));
  EXPECT_TRUE(equal.body[0].event().rankTiming.empty());
}

TEST(InterRank, PerRankTimingHasAtMostFourGroupsPerCount) {
  std::vector<uint64_t> ns;
  for (int r = 0; r < 16; ++r)
    ns.push_back(uint64_t(100000) << (r % 8)); // 8 distinct log2 bins
  Trace t = mergeTimed(ns);
  const std::vector<RankTiming> &write = t.body[0].event().rankTiming;
  EXPECT_EQ(write.size(), 4u);
  int64_t covered = 0;
  for (const RankTiming &g : write)
    covered += g.ranks.size();
  EXPECT_EQ(covered, 16);
  // The slowest ranks (7 and 15) share the slowest group.
  EXPECT_EQ(findRankTiming(write, 7), findRankTiming(write, 15));
  EXPECT_NE(findRankTiming(write, 7), findRankTiming(write, 0));
}

} // namespace
} // namespace sio::rt::test
