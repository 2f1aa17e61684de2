#include "TestTraces.h"

#include "sio/trace/Summary.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace sio::trace;
using namespace sio::trace::testing;

TEST(Summary, StrongScalingTrace) {
  TraceSummary s = summarize(strongTrace(4));
  EXPECT_EQ(s.nranks, 4);
  EXPECT_EQ(s.totalCalls, 4u + 12u + 4u + 20u + 4u);
  EXPECT_EQ(s.innerCalls, 0u);
  EXPECT_EQ(s.bytesWritten, 3 * 240 * 4);
  EXPECT_EQ(s.bytesRead, 5 * 64 * 4);
  EXPECT_EQ(s.byOp["MPI_File_write_at"].calls, 12u);
  EXPECT_EQ(s.byOp["MPI_File_write_at"].bytes, 2880);
  EXPECT_EQ(s.byOp["MPI_Barrier"].calls, 4u);
  EXPECT_EQ(s.byOp["MPI_Barrier"].bytes, 0);
  ASSERT_EQ(s.byFile.size(), 1u);
  // open, writes, reads and close all reach f0 through the handle.
  EXPECT_EQ(s.byFile[0].calls, 4u + 12u + 20u + 4u);
  EXPECT_EQ(s.byFile[0].bytes, 2880 + 1280);
  EXPECT_EQ(s.activeRanks, 4u);
  EXPECT_EQ(s.staticEvents, 5u);
  EXPECT_EQ(s.staticLoops, 2u);
  EXPECT_TRUE(s.exact);
}

TEST(Summary, RankVaryingValuesAndLoopDependentIterations) {
  TraceSummary s = summarize(richTrace());
  // fwrite: ranks 0-3 run i0 = 0, 1; ranks 4-7 run i0 = 0, 1, 2; 8 * (16*i0 + 16) bytes.
  EXPECT_EQ(s.byOp["fwrite"].calls, 4u * 2 + 4u * 3);
  EXPECT_EQ(s.byOp["fwrite"].bytes, 4 * 8 * (16 + 32) + 4 * 8 * (16 + 32 + 48));
  // fseek runs i0 + 1 times per outer iteration.
  EXPECT_EQ(s.byOp["fseek"].calls, 4u * (1 + 2) + 4u * (1 + 2 + 3));
  // A vector of 2 doubles: 16 bytes per element, 25 elements, 4 ranks.
  EXPECT_EQ(s.byOp["MPI_File_write_at_all"].bytes, 4 * 25 * 16);
  // The inner pwrite64 counts as a call but not towards the totals.
  EXPECT_EQ(s.innerCalls, 1u);
  EXPECT_EQ(s.byOp["pwrite64"].bytes, 400);
  EXPECT_EQ(s.bytesWritten, 4608 + 1600);
  EXPECT_EQ(s.bytesRead, 0);
  EXPECT_EQ(s.totalCalls, 89u);
  EXPECT_EQ(s.byFile[0].calls, 8u + 20u + 36u + 8u);
  EXPECT_EQ(s.byFile[1].bytes, 1600);
  EXPECT_EQ(s.byFile[2].calls, 4u);
  EXPECT_EQ(s.activeRanks, 8u);
  EXPECT_TRUE(s.exact);
}

TEST(Summary, PerRankIterationCounts) {
  // Rank r writes r + 1 times: rank-dependent iterations force expansion.
  Trace t = strongTrace(4);
  t.body[1].loop().iterations = ElasticValue(ex("rank + 1"), RankList::all(4));
  TraceSummary s = summarize(t);
  EXPECT_EQ(s.byOp["MPI_File_write_at"].calls, 1u + 2 + 3 + 4);
  EXPECT_EQ(s.byOp["MPI_File_write_at"].bytes, 240 * 10);
  EXPECT_TRUE(s.exact);
}

TEST(Summary, MillionRanksWithoutExpansion) {
  const int64_t n = int64_t(1) << 20;
  Trace t = strongTrace(4);
  t.header.nranks = n;
  const RankList all = RankList::all(n);
  std::vector<Node *> stack;
  for (Node &node : t.body)
    stack.push_back(&node);
  while (!stack.empty()) {
    Node *node = stack.back();
    stack.pop_back();
    node->ranks = all;
    auto rebind = [&](ElasticValue &v) { v.entries()[0].ranks = all; };
    if (node->isEvent()) {
      for (Param &p : node->event().params)
        rebind(p.value);
    } else {
      rebind(node->loop().iterations);
      for (Node &c : node->loop().body)
        stack.push_back(&c);
    }
  }
  auto start = std::chrono::steady_clock::now();
  TraceSummary s = summarize(t);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(2));
  EXPECT_EQ(s.totalCalls, uint64_t(11 * n));
  EXPECT_EQ(s.bytesWritten, 3 * 240 * n);
  EXPECT_EQ(s.activeRanks, uint64_t(n));
  EXPECT_TRUE(s.exact);
}

TEST(Summary, Direction) {
  for (const char *op : {"MPI_File_read", "MPI_File_read_at_all_c", "MPI_File_iread_shared", "MPI_File_read_all_begin",
                         "read", "pread64", "readv", "preadv", "fread", "__read_chk", "__fread_chk"})
    EXPECT_EQ(direction(op), Direction::Read) << op;
  for (const char *op : {"MPI_File_write", "MPI_File_write_at_all_c", "MPI_File_iwrite_at", "MPI_File_write_ordered_begin_c",
                         "write", "pwrite64", "writev", "pwritev", "fwrite"})
    EXPECT_EQ(direction(op), Direction::Write) << op;
  for (const char *op : {"MPI_File_open", "MPI_File_read_all_end", "MPI_File_write_at_all_end", "MPI_File_get_size",
                         "MPI_File_seek", "open", "lseek", "fopen", "fseek", "MPI_Barrier", "readlink"})
    EXPECT_EQ(direction(op), Direction::None) << op;
}

TEST(Summary, TransferBytesPerLayer) {
  Trace t;
  t.header.nranks = 2;
  ObjectEntry dbl;
  dbl.kind = "named";
  dbl.name = "MPI_DOUBLE";
  t.datatypes = {dbl};
  const RankList all = RankList::all(2);
  std::vector<int64_t> idx;
  ExprEnv env{1, 2, idx};
  auto bytes = [&](Node n) { return transferBytes(t, n.event(), env); };
  EXPECT_EQ(bytes(eventNode("MPI_File_write_all_c", Layer::MPIIO, 0, all,
                            {{"fh", Expr(0)}, {"count", ex("10*rank + 1")}, {"datatype", Expr(0)}})),
            11 * 8);
  EXPECT_EQ(bytes(eventNode("pwrite", Layer::POSIX, 0, all, {{"fd", Expr(3)}, {"count", Expr(100)}, {"offset", Expr(0)}})),
            100);
  EXPECT_EQ(bytes(eventNode("writev", Layer::POSIX, 0, all, {{"fd", Expr(3)}, {"iovcnt", Expr(2)}, {"bytes", Expr(64)}})),
            64);
  EXPECT_EQ(bytes(eventNode("fread", Layer::STDIO, 0, all, {{"size", Expr(4)}, {"nmemb", Expr(3)}, {"stream", Expr(0)}})),
            12);
  // Unknown datatype or missing size: not computable.
  EXPECT_EQ(bytes(eventNode("MPI_File_read", Layer::MPIIO, 0, all, {{"fh", Expr(0)}, {"count", Expr(1)}, {"datatype", Expr(5)}})),
            std::nullopt);
  EXPECT_EQ(bytes(eventNode("MPI_File_open", Layer::MPIIO, 0, all, {{"file", Expr(0)}})), std::nullopt);
}

TEST(Summary, UnknownSizesMakeTheSummaryInexact) {
  Trace t = strongTrace(4);
  t.datatypes[0].name = "MPI_MYSTERY";
  TraceSummary s = summarize(t);
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.totalCalls, 44u);
}

//===----------------------------------------------------------------------===//
// Results (docs/trace-format.md, Results)
//===----------------------------------------------------------------------===//

namespace {

/// strongTrace with results: the writes failed on ranks 0-1 (EBADF-like
/// error, no result) and moved their bytes elsewhere; the reads got
/// `64 - 16*i0` bytes (a read running into the end of the file).
Trace strongWithResults() {
  Trace t = strongTrace(4);
  const RankList all = RankList::all(4);
  Event &write = t.body[1].loop().body[0].event();
  write.params.push_back(param("result", Expr(240), all));
  Event &read = t.body[3].loop().body[0].event();
  read.params.push_back(param("result", ex("64 - 16*i0"), all));
  return t;
}

} // namespace

TEST(Summary, BytesAreWhatCallsMovedNotWhatTheyAskedFor) {
  Trace t = strongWithResults();
  TraceSummary s = summarize(t);
  EXPECT_EQ(s.bytesWritten, 3 * 240 * 4);
  // 64 + 48 + 32 + 16 + 0 per rank.
  EXPECT_EQ(s.bytesRead, 4 * (64 + 48 + 32 + 16 + 0));
  EXPECT_EQ(s.byOp["MPI_File_read_at"].bytes, 4 * 160);
  EXPECT_EQ(s.failedCalls, 0u);
  EXPECT_TRUE(s.exact);
}

TEST(Summary, FailedCallsMoveNothing) {
  Trace t = strongWithResults();
  Event &write = t.body[1].loop().body[0].event();
  write.params.pop_back(); // no result: an error instead
  write.params.push_back(param("error", Expr(40), RankList::all(4)));
  TraceSummary s = summarize(t);
  EXPECT_EQ(s.bytesWritten, 0);
  EXPECT_EQ(s.byOp["MPI_File_write_at"].calls, 12u);
  EXPECT_EQ(s.byOp["MPI_File_write_at"].failed, 12u);
  EXPECT_EQ(s.failedCalls, 12u);
  EXPECT_EQ(s.byFile[0].bytes, 4 * 160);
  // The request is still known.
  const Event &ev = t.body[1].loop().body[0].event();
  std::vector<int64_t> idx = {0};
  ExprEnv env{1, 4, std::span<const int64_t>(idx)};
  EXPECT_EQ(transferBytes(t, ev, env), 0);
  EXPECT_EQ(requestedBytes(t, ev, env), 240);
}

TEST(Summary, TracesWithoutResultsCountTheRequests) {
  // A trace written before results were recorded: the requests stand for
  // what was moved, as they always did.
  Trace t = strongTrace(4);
  const Event &read = t.body[3].loop().body[0].event();
  std::vector<int64_t> idx = {2};
  ExprEnv env{3, 4, std::span<const int64_t>(idx)};
  EXPECT_EQ(transferBytes(t, read, env), 64);
  EXPECT_EQ(summarize(t).bytesRead, 1280);
}

TEST(Summary, ErrorNamesPerLayer) {
  EXPECT_EQ(errorName(Layer::POSIX, 9), "EBADF");
  EXPECT_EQ(errorName(Layer::STDIO, 2), "ENOENT");
  EXPECT_EQ(errorName(Layer::MPIIO, 37), "MPI_ERR_NO_SUCH_FILE");
  EXPECT_EQ(errorName(Layer::MPIIO, 40), "MPI_ERR_READ_ONLY");
  EXPECT_EQ(errorName(Layer::MPIIO, 1000), std::nullopt);
  EXPECT_EQ(errorName(Layer::POSIX, -3), std::nullopt);
}

// Duplicated descriptors (docs/trace-format.md): a write on the code a dup
// or dup2 made counts for the file its `oldfd` names; a dup2 target that
// named another file names the source's from then on.
TEST(Summary, DuplicatedDescriptorsFollowTheirSource) {
  Trace t;
  t.header.nranks = 2;
  const RankList all = RankList::all(2);
  t.files = {FileEntry{0, {FileNamePart{"a.dat", std::nullopt, 0}}},
             FileEntry{1, {FileNamePart{"b.dat", std::nullopt, 0}}}};
  auto write = [&](int64_t fd, int64_t n) {
    return eventNode("write", Layer::POSIX, 0, all, {{"fd", Expr(fd)}, {"count", Expr(n)}, {"result", Expr(n)}});
  };
  t.body.push_back(eventNode("open", Layer::POSIX, 0, all, {{"file", Expr(0)}, {"flags", Expr(577)}, {"fd", Expr(0)}}));
  t.body.push_back(eventNode("open", Layer::POSIX, 0, all, {{"file", Expr(1)}, {"flags", Expr(577)}, {"fd", Expr(1)}}));
  t.body.push_back(write(0, 10));
  t.body.push_back(eventNode("dup2", Layer::POSIX, 0, all, {{"oldfd", Expr(1)}, {"newfd", Expr(0)}, {"fd", Expr(2)}}));
  t.body.push_back(write(2, 100));
  t.body.push_back(eventNode("dup", Layer::POSIX, 0, all, {{"oldfd", Expr(2)}, {"fd", Expr(0)}}));
  t.body.push_back(write(0, 7));
  TraceSummary s = summarize(t);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.byFile[0].bytes, 2 * 10);
  EXPECT_EQ(s.byFile[1].bytes, 2 * (100 + 7));
  EXPECT_EQ(s.byFile[1].calls, 2u * 5u); // open, dup2, write, dup, write
}
