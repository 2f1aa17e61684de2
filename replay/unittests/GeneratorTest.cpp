// The generated text: expressions, loops, guards, elastic values, skipped
// inner events and refusals.
#include "TestTraces.h"

#include "sio/replay/ReplayGenerator.h"

#include <gtest/gtest.h>

namespace sio::replay {
namespace {

using sio::trace::Expr;
using sio::trace::RankList;
using test::allRanks;
using test::event;
using test::makeTrace;

const char *kSharedFile = R"([{"id": 0, "name": [{"text": "data/strong.dat"}]}])";

std::string strongBody(int n) {
  return "[" + event(n, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 9, "info": 0, "fh": 0})") +
         R"(, {"loop": "0x00000000000000a1", "ranks": )" + allRanks(n) + R"(, "iterations": 3, "body": [)" +
         event(n, "MPI_File_write_at", "mpiio", R"({"fh": 0, "offset": "240*rank + 960*i0", "count": 240, "datatype": 0})",
               R"(, "site": "0x0000000000000014")") +
         "]}, " + event(n, "MPI_File_close", "mpiio", R"({"fh": 0})") + "]";
}

const char *kStrongSites =
    R"([{"id": "0x0000000000000014", "file": "strong.cpp", "line": 20, "column": 5, "callee": "MPI_File_write_at"}])";
const char *kStrongLoops = R"([{"id": "0x00000000000000a1", "file": "strong.cpp", "line": 19, "column": 3}])";

TEST(ExprToCpp, IntegerPolynomialsArePlainArithmetic) {
  EXPECT_EQ(exprToCpp(Expr::parse("240*rank + 960*i0")), "240*rank + 960*i0");
  EXPECT_EQ(exprToCpp(Expr::parse("16*i0 - 16")), "16*i0 - 16");
  EXPECT_EQ(exprToCpp(Expr::parse("-3*rank + 7")), "-3*rank + 7");
  EXPECT_EQ(exprToCpp(Expr(0)), "0");
  EXPECT_EQ(exprToCpp(Expr::parse("rank*rank")), "rank*rank");
}

TEST(ExprToCpp, FractionsBecomeOneExactDivision) {
  EXPECT_EQ(exprToCpp(Expr::parse("960/nranks")), "exactDiv(960, nranks)");
  EXPECT_EQ(exprToCpp(Expr::parse("rank/2 + 1")), "exactDiv(rank + 2, 2)");
  std::string strong = exprToCpp(Expr::parse("960*rank/nranks + 960*i0"));
  EXPECT_TRUE(strong == "exactDiv(960*rank + 960*i0*nranks, nranks)" ||
              strong == "exactDiv(960*rank + 960*nranks*i0, nranks)")
      << strong;
}

TEST(ExprToCpp, ModAndTablesUseCheckedHelpers) {
  EXPECT_EQ(exprToCpp(Expr::parse("(rank + 1) % nranks * 64")), "64*cmod(rank + 1, nranks)");
  EXPECT_EQ(exprToCpp(Expr::parse("[7, 3, 9][i0]")), "pick({7, 3, 9}, i0)");
}

TEST(ExprToCpp, LongTablesAreParenthesisedLambdas) {
  // As a subscript (`stream[...]`) an unparenthesised lambda would begin with
  // `[[`, which C++ reads as an attribute: the replay did not compile.
  std::string table = "[";
  for (size_t i = 0; i < Expr::kPackedTableMin; ++i)
    table += (i ? ", " : "") + std::to_string(i % 2);
  const std::string cpp = exprToCpp(Expr::parse(table + "][i0]"));
  EXPECT_EQ(cpp.rfind("([](i64 index) { static constexpr i64 t[] = {0, 1, 0, 1", 0), 0u) << cpp;
  EXPECT_EQ(cpp.substr(cpp.size() - 6), "}(i0))") << cpp;
}

TEST(RankGuard, AllRanksNeedNoGuard) { EXPECT_EQ(rankGuard(RankList::all(4), 4), ""); }

TEST(RankGuard, SingleRanksClosedAndOpenBlocks) {
  EXPECT_EQ(rankGuard(RankList::single(0), 4), "rank == 0");
  // Reaches the last traced rank: stays open-ended at other rank counts.
  EXPECT_EQ(rankGuard(RankList::range(1, 3), 4), "rank >= 1");
  EXPECT_EQ(rankGuard(RankList::range(0, 4, 2), 8), "fromRank(rank, 0, 2)");
  EXPECT_EQ(rankGuard(RankList::range(0, 2, 2), 8), "inBlock(rank, 0, 2, 2)");
  EXPECT_EQ(rankGuard(RankList::fromRanks({0, 5}), 8), "inBlock(rank, 0, 5, 2)");
  EXPECT_EQ(rankGuard(RankList::fromRanks({0, 5, 6}), 8), "inBlock(rank, 0, 5, 2) || rank == 6");
  std::string grid = rankGuard(RankList::fromRanks({0, 1, 4, 5}), 8);
  EXPECT_EQ(grid, "inGrid(rank, 0, {{4, 2}, {1, 2}})");
}

TEST(Generator, LoopWithAffineOffsetAndSourceLocation) {
  auto trace = makeTrace(4, kSharedFile, strongBody(4), kStrongSites, kStrongLoops);
  std::string program = generateReplay(trace);
  EXPECT_NE(program.find("// loop at strong.cpp:19:3\n"), std::string::npos);
  EXPECT_NE(program.find("for (i64 i0 = 0, n0 = iterations(3); i0 < n0; ++i0) {"), std::string::npos);
  EXPECT_NE(program.find("    // strong.cpp:20:5\n"), std::string::npos);
  EXPECT_NE(program.find("MPI_File_write_at(fh[0], 240*rank + 960*i0, buffer.elements(240, datatype[0]), 240, "
                         "datatype[0], MPI_STATUS_IGNORE)"),
            std::string::npos)
      << program;
  EXPECT_NE(program.find("MPI_MODE_CREATE | MPI_MODE_RDWR"), std::string::npos);
  EXPECT_NE(program.find("return \"data/strong.dat\";"), std::string::npos);
  EXPECT_NE(program.find("kLargestRequestBytes = 240;"), std::string::npos);
}

TEST(Generator, RankListsBecomeGuards) {
  std::string body = R"([{"event": "MPI_Barrier", "layer": "sync", "ranks": [{"start": 0}], "params": {"comm": 0}},
    {"event": "MPI_Barrier", "layer": "sync", "ranks": [{"start": 1, "stride": 1, "count": 3}], "params": {"comm": 0}}])";
  std::string program = generateReplay(makeTrace(4, "[]", body));
  EXPECT_NE(program.find("  if (rank == 0) {\n"), std::string::npos);
  EXPECT_NE(program.find("  if (rank >= 1) {\n"), std::string::npos);
  EXPECT_NE(program.find("kHighestNamedRank = 1;"), std::string::npos) << program;
}

TEST(Generator, ElasticValuesAreSetUnderRankGuards) {
  std::string body = "[" + event(4, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 5, "info": 0, "fh": 0})") +
                     ", " +
                     event(4, "MPI_File_write_at", "mpiio",
                           R"({"fh": 0, "offset": [{"ranks": [{"start": 0}], "value": 7},
                                {"ranks": [{"start": 1, "stride": 1, "count": 3}], "value": "100*rank"}],
                              "count": 8, "datatype": 0})") +
                     "]";
  std::string program = generateReplay(makeTrace(4, kSharedFile, body));
  EXPECT_NE(program.find("i64 offsetValue = 0;\n"), std::string::npos) << program;
  EXPECT_NE(program.find("if (rank == 0)\n      offsetValue = 7;\n"), std::string::npos) << program;
  EXPECT_NE(program.find("else if (rank >= 1)\n      offsetValue = 100*rank;\n"), std::string::npos);
  EXPECT_NE(program.find("MPI_File_write_at(fh[0], offsetValue,"), std::string::npos);
}

TEST(Generator, SiblingLoopsWithRankVaryingCountsHaveTheirOwnBlocks) {
  // A choice run's guards: sibling loops whose trip counts differ by rank.
  auto guard = [](const std::string &offset) {
    return R"({"loop": 0, "ranks": )" + allRanks(2) + R"(, "iterations": [{"ranks": [{"start": 0}], "value": 1},
        {"ranks": [{"start": 1}], "value": 0}], "body": [)" +
           event(2, "MPI_File_write_at", "mpiio",
                 R"({"fh": 0, "offset": )" + offset + R"(, "count": 8, "datatype": 0})") +
           "]}";
  };
  std::string body = "[" +
                     event(2, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 5, "info": 0, "fh": 0})") +
                     ", " + guard("0") + ", " + guard("8") + "]";
  std::string program = generateReplay(makeTrace(2, kSharedFile, body));
  const std::string block = "  {\n    i64 iterations0Value = 0;\n";
  const size_t first = program.find(block);
  ASSERT_NE(first, std::string::npos) << program;
  EXPECT_NE(program.find(block, first + 1), std::string::npos) << program;
}

TEST(Generator, InnerEventsAreNotReplayed) {
  std::string body = "[" + event(2, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 5, "info": 0, "fh": 0})") +
                     ", " + event(2, "open", "posix", R"({"file": 0, "flags": 2, "fd": 0})", R"(, "inner": true)") +
                     ", " + event(2, "pwrite", "posix", R"({"fd": 0, "count": 4, "offset": 0})", R"(, "inner": true)") +
                     "]";
  std::string program = generateReplay(makeTrace(2, kSharedFile, body));
  EXPECT_EQ(program.find("pwrite("), std::string::npos);
  EXPECT_EQ(program.find("= open("), std::string::npos);
  EXPECT_NE(program.find("MPI_File_open("), std::string::npos);
}

// Issue 14 items 1 and 3: objects are rebuilt with their constructors, and
// what cannot be is listed in the header and printed at start-up.
TEST(Generator, ObjectsAreRebuiltAndApproximationsListed) {
  auto trace = makeTrace(4, kSharedFile, "[" + event(4, "MPI_Barrier", "sync", R"({"comm": 1})") + "]");
  sio::trace::ObjectEntry other;
  other.id = 1;
  other.kind = "other";
  other.fields["member_blocks"] = {Expr(0), Expr(2), Expr::nranks() / Expr(2)};
  trace.comms.push_back(other);
  sio::trace::ObjectEntry rec;
  rec.id = 1;
  rec.kind = "struct";
  rec.fields["ints"] = {Expr(1), Expr(16)};
  rec.fields["aints"] = {Expr(1024) * Expr::rank()};
  rec.fields["types"] = {Expr(0)};
  rec.fields["oldtype"] = {Expr(0)};
  trace.datatypes.push_back(rec);
  std::string program = generateReplay(trace);
  EXPECT_NE(program.find("MPI_Type_create_struct(1, lengths, displacements, types, &datatype[1]);"), std::string::npos)
      << program;
  EXPECT_NE(program.find("const MPI_Aint displacements[] = {MPI_Aint(1024*rank)};"), std::string::npos);
  EXPECT_NE(program.find("// APPROXIMATED (also printed at start-up)"), std::string::npos);
  EXPECT_NE(program.find("blockRanks({0, 2, exactDiv(nranks, 2)})"), std::string::npos);
  EXPECT_NE(program.find("PMPI_Comm_create_group(MPI_COMM_WORLD, group, 30001, &comm[1])"), std::string::npos);
  EXPECT_NE(program.find("\"communicator 1 (made by a call sio does not intercept)"), std::string::npos);
  // Without approximations the header says so.
  std::string exact = generateReplay(makeTrace(4, kSharedFile, strongBody(4), kStrongSites, kStrongLoops));
  EXPECT_NE(exact.find("// Every MPI object of the trace is rebuilt exactly."), std::string::npos);
}

TEST(Generator, StrongScalingValuesAreCheckedAtStartUp) {
  std::string body = "[" + event(4, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 5, "info": 0, "fh": 0})") +
                     ", " + event(4, "MPI_File_write_at", "mpiio", R"({"fh": 0, "offset": "960*rank/nranks", "count": "960/nranks", "datatype": 0})") +
                     "]";
  std::string program = generateReplay(makeTrace(4, kSharedFile, body));
  EXPECT_NE(program.find("(void)(exactDiv(960, nranks));"), std::string::npos) << program;
  EXPECT_NE(program.find("toInt(exactDiv(960, nranks))"), std::string::npos);
}

TEST(Generator, UntrustedFileNamesAreLiterals) {
  std::string files = R"([{"id": 0, "name": [{"text": "a\"b\\c\n*/??/"}, {"field": "rank", "width": 3}]}])";
  std::string body = "[" + event(2, "open", "posix", R"({"file": 0, "flags": 65, "mode": 420, "fd": 0})") + "]";
  std::string program = generateReplay(makeTrace(2, files, body));
  EXPECT_NE(program.find(R"(return std::string("a\"b\\c\n*/\?\?/") + decimal(rank, 3);)"), std::string::npos) << program;
  EXPECT_NE(program.find("O_WRONLY | O_CREAT, 0644"), std::string::npos);
}

TEST(Generator, UnsupportedEventIsAClearError) {
  std::string sites = R"([{"id": "0x0000000000000007", "file": "app.c", "line": 12, "column": 3}])";
  std::string body = R"([{"event": "mmap", "layer": "posix", "site": "0x0000000000000007", "ranks": )" + allRanks(2) +
                     R"(, "params": {}}])";
  auto trace = makeTrace(2, "[]", body, sites);
  try {
    generateReplay(trace);
    FAIL() << "mmap accepted";
  } catch (const UnsupportedTrace &e) {
    EXPECT_NE(std::string(e.what()).find("'mmap'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("app.c:12:3"), std::string::npos) << e.what();
  }
}

TEST(Generator, MissingParameterIsAClearError) {
  std::string body = "[" + event(2, "MPI_File_close", "mpiio", "{}") + "]";
  auto trace = makeTrace(2, "[]", body);
  EXPECT_THROW(generateReplay(trace), UnsupportedTrace);
}

// Duplicated descriptors (docs/replay.md): dup and dup2 store the new code;
// codes of -1 (descriptors the trace does not know) go to dup2Codes, which
// resolves them; a failed dup2 is the same attempt.
TEST(Generator, DupAndDup2StoreTheNewCode) {
  std::string files = R"([{"id": 0, "name": [{"text": "a.dat"}]}])";
  std::string body = "[" + event(1, "open", "posix", R"({"file": 0, "flags": 577, "mode": 420, "fd": 0})") + ", " +
                     event(1, "dup", "posix", R"({"oldfd": 0, "fd": 1})") + ", " +
                     event(1, "dup2", "posix", R"({"oldfd": 0, "newfd": 1, "fd": 2})") + ", " +
                     event(1, "dup2", "posix", R"({"oldfd": -1, "newfd": 2, "fd": -1})") + ", " +
                     event(1, "dup2", "posix", R"({"oldfd": 0, "newfd": -1, "fd": -1, "error": 9})") + "]";
  std::string program = generateReplay(makeTrace(1, files, body));
  EXPECT_NE(program.find("storeDescriptor(1, dup(fd[0]));"), std::string::npos) << program;
  EXPECT_NE(program.find("storeDescriptor(2, dup2Codes(0, 1, false));"), std::string::npos);
  EXPECT_NE(program.find("storeDescriptor(-1, dup2Codes(-1, 2, false));"), std::string::npos);
  EXPECT_NE(program.find(R"(expectPosixFailure(dup2Codes(0, -1, true), EBADF, "EBADF");)"), std::string::npos);
}

// A failed writev has no `bytes` (the runtime reads the array only after a
// success): the replay gives it an empty one.
TEST(Generator, FailedWritevWithoutBytes) {
  std::string files = R"([{"id": 0, "name": [{"text": "a.dat"}]}])";
  std::string body = "[" + event(1, "open", "posix", R"({"file": 0, "flags": 577, "mode": 420, "fd": 0})") + ", " +
                     event(1, "writev", "posix", R"({"fd": 0, "iovcnt": 1025, "error": 22})") + "]";
  std::string program = generateReplay(makeTrace(1, files, body));
  EXPECT_NE(program.find(R"(expectPosixFailure(writev(fd[0], buffer.iov(1025, 0), 1025), EINVAL, "EINVAL");)"),
            std::string::npos)
      << program;
}

} // namespace
} // namespace sio::replay
