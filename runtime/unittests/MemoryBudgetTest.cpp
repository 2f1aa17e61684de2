// SIO_MEMORY_CAP's accounting (MemoryBudget.h) against malloc's own count:
// each estimate must be an upper bound of the heap the structure really
// takes (or the cap would not hold), and not a loose one (or the cap would
// stop recording long before it is reached).
#include "MemoryBudget.h"

#include "compress/InterRank.h"
#include "sio/trace/Json.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

using namespace sio::rt;
using namespace sio::trace;

namespace {

size_t heapInUse() { return mallinfo2().uordblks; }

/// Names like a program's distinct files: no common format, some of them
/// longer than the 15 characters a std::string keeps inline.
std::string distinctName(size_t i, bool longName) {
  char buf[96];
  std::snprintf(buf, sizeof buf, longName ? "/scratch/project/run.%03zu/output/part-%08x.dat" : "out.%zu/%08x", i % 7,
                unsigned(i * 2654435761u));
  return buf;
}

void expectBound(size_t estimate, size_t real, const char *what) {
  EXPECT_GE(estimate, real) << what << ": the estimate must bound the heap it takes";
  EXPECT_LE(estimate, 2 * real + 4096) << what << ": the estimate is too loose";
}

} // namespace

TEST(MemoryBudget, MallocSizes) {
  EXPECT_EQ(mallocBytes(1), 32u);
  EXPECT_EQ(mallocBytes(24), 32u);
  EXPECT_EQ(mallocBytes(25), 48u);
  EXPECT_EQ(stringHeapBytes(15), 0u); // inline
  EXPECT_EQ(stringHeapBytes(16), 32u);
}

TEST(MemoryBudget, InternedTableBoundsItsHeap) {
  for (bool longNames : {false, true}) {
    const size_t before = heapInUse();
    std::vector<std::string> names;
    std::unordered_map<std::string, int64_t> ids;
    InternedTableBytes account;
    for (size_t i = 0; i < 30000; ++i) {
      std::string name = distinctName(i, longNames);
      auto [it, fresh] = ids.try_emplace(name, int64_t(names.size()));
      ASSERT_TRUE(fresh);
      names.emplace_back(name);
      account.add(names.back().size());
    }
    const size_t real = heapInUse() - before;
    EXPECT_EQ(account.entries(), 30000u);
    expectBound(account.heldBytes(), real, longNames ? "long names" : "short names");
  }
}

TEST(MemoryBudget, FinalizeReserveBoundsTheRankTraceFiles) {
  // As buildRankTrace does it: names moved from the runtime's table into
  // one-part FileEntries; the reserve covers those entries (and more: the
  // merge's indexes), the names themselves stay counted by heldBytes.
  std::vector<std::string> names;
  InternedTableBytes account;
  for (size_t i = 0; i < 30000; ++i) {
    names.push_back(distinctName(i, true));
    account.add(names.back().size());
  }
  const size_t before = heapInUse();
  Trace t;
  for (size_t i = 0; i < names.size(); ++i) {
    FileEntry f;
    f.id = int64_t(i);
    f.name.push_back(FileNamePart{std::move(names[i]), std::nullopt, 0});
    t.files.push_back(std::move(f));
  }
  // Measured before the emptied names array is freed (that would make the
  // entries look smaller than they are): the moved strings' heap is now the
  // entries', the array itself was allocated before `before`.
  const size_t real = heapInUse() - before;
  std::vector<std::string>().swap(names);
  EXPECT_GE(account.finalizeBytes(), real);
  // The trace's own estimate counts the moved names too (allocated before
  // `before`), so it bounds the entries; neither is loose (measured: reserve
  // 2.3x, estimate 1.4x of the entries).
  expectBound(traceHeapBytes(t), real, "trace estimate of the files");
  EXPECT_LE(account.finalizeBytes(), 4 * real) << "the finalize reserve is too loose";
}

TEST(MemoryBudget, TraceEstimateBoundsTheTraceReadFromText) {
  for (bool longNames : {false, true}) {
    Trace src;
    src.header.nranks = 2;
    for (size_t i = 0; i < 20000; ++i) {
      FileEntry f;
      f.id = int64_t(i);
      f.name.push_back(FileNamePart{distinctName(i, longNames), std::nullopt, 0});
      src.files.push_back(std::move(f));
    }
    std::string text;
    writeTraceTo([&](std::string_view piece) { text += piece; }, src, /*pretty=*/false);
    text.shrink_to_fit();
    const size_t before = heapInUse();
    Trace back = deserializeTrace(std::string(text)); // a copy: the text is needed below
    const size_t real = heapInUse() - before;
    ASSERT_EQ(back.files.size(), src.files.size());
    expectBound(traceHeapBytes(back), real, longNames ? "long names" : "short names");
    // What a merge reserves for a child's text covers the text and the
    // trace read from it.
    EXPECT_GE(mergeInputBytes(text.size()), text.size() + real);
  }
}
