// Record buffer, handle tables and conversion, without interposition: the
// test links the runtime core only, so its own I/O goes straight to libc.
#include "ParamKinds.h"
#include "Runtime.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <set>
#include <thread>

using namespace sio::rt;

TEST(Record, PlainAndSmall) {
  static_assert(std::is_trivially_copyable_v<Record>);
  static_assert(std::is_trivially_default_constructible_v<ThreadState>);
  EXPECT_LE(sizeof(Record), 160u);
  Record r{};
  for (int i = 0; i < kMaxSlots + 3; ++i)
    r.add("x", i);
  EXPECT_EQ(r.nslots, kMaxSlots); // extra slots are dropped, never overflow
  r.nslots = 0;
  r.addString("mode", 3);
  EXPECT_EQ(r.strMask, 1u);
}

TEST(Record, BufferReserveAndDrain) {
  ensureInit();
  ThreadState &ts = tls;
  Record *r = reserveRecord(ts);
  ASSERT_NE(r, nullptr);
  ASSERT_NE(ts.buf, nullptr);
  ThreadBuffer *b = ts.buf;
  size_t cap = size_t(b->end - b->begin);
  Block *first = b->block;
  // Fill the block with loop markers; the next reserve links a new block and
  // the full one stays where it is until the drain side has converted it.
  for (size_t i = 0; i < cap; ++i) {
    Record *x = reserveRecord(ts);
    ASSERT_NE(x, nullptr);
    *x = Record{};
    x->kind = RecKind::LoopExit;
    x->id = 7;
    b->cur = x + 1;
    finishRecord(b, x);
    EXPECT_EQ(x->seq + 1, g_seq.load());
  }
  EXPECT_EQ(b->cur, b->end);
  Record *y = reserveRecord(ts);
  EXPECT_EQ(y, b->begin);
  EXPECT_NE(b->block, first);
  EXPECT_EQ(first->next.load(), b->block);
  EXPECT_EQ(b->base, cap);
  EXPECT_EQ(b->published.load(), cap);
  drainPublished();
  EXPECT_EQ(b->consumed, cap);
}

/// A second recording thread switches sequence numbers to the atomic
/// increment: numbers taken concurrently from then on are all distinct.
TEST(Record, SecondThreadTakesDistinctNumbers) {
  ensureInit();
  reserveRecord(tls); // this thread's buffer first
  auto take = [](std::vector<uint64_t> &out) {
    ThreadState &ts = tls;
    for (int i = 0; i < 3000; ++i) {
      Record *x = reserveRecord(ts);
      ASSERT_NE(x, nullptr);
      *x = Record{};
      x->kind = RecKind::LoopExit; // of no open loop: ignored by the compressor
      ts.buf->cur = x + 1;
      finishRecord(ts.buf, x);
      out.push_back(x->seq);
      if (i % 512 == 0)
        drainPublished(); // keeps the blocks (and the memory cap) small
    }
  };
  std::vector<uint64_t> mine, theirs;
  std::thread other([&] {
    reserveRecord(tls); // registers the second buffer
    take(theirs);
  });
  other.join();
  EXPECT_TRUE(g_manyThreads.load());
  std::thread again([&] { take(theirs); });
  take(mine);
  again.join();
  std::set<uint64_t> all(mine.begin(), mine.end());
  all.insert(theirs.begin(), theirs.end());
  EXPECT_EQ(all.size(), mine.size() + theirs.size());
  drainPublished();
}

TEST(Record, OpenCallIsNotConverted) {
  ensureInit();
  ThreadState &ts = tls;
  reserveRecord(ts); // creates the buffer when this test runs alone
  drainPublished();
  ThreadBuffer *b = ts.buf;
  ASSERT_NE(b, nullptr);
  uint64_t before = b->consumed;
  // A finished marker, then an MPI-IO call in progress, then an inner event:
  // only the marker is published and converted.
  Record *m = reserveRecord(ts);
  *m = Record{};
  m->kind = RecKind::LoopEnter;
  m->id = 1;
  b->cur = m + 1;
  finishRecord(b, m);
  Record *o = reserveRecord(ts);
  *o = Record{};
  o->kind = RecKind::Event;
  o->open = 1;
  o->call = uint16_t(CallId::MPI_File_write_at);
  o->id = 42;
  b->cur = o + 1;
  Record *in = reserveRecord(ts);
  *in = Record{};
  in->kind = RecKind::Event;
  in->inner = 1;
  in->call = uint16_t(CallId::pwrite64);
  b->cur = in + 1;
  drainPublished();
  EXPECT_EQ(b->consumed, before + 1);
  // The call returns: it and its inner event are converted together.
  finishRecord(b, o);
  drainPublished();
  EXPECT_EQ(b->consumed, before + 3);
}

TEST(Handles, FdTableCodesInCreationOrder) {
  Record r{};
  Call c{};
  c.rec = &r;
  // An fd whose open was not recorded vetoes recording.
  EXPECT_FALSE(pk::Fd::pre(c, "fd", 900));
  EXPECT_FALSE(pk::Fd::pre(c, "fd", -1));
  EXPECT_FALSE(pk::Fd::pre(c, "fd", kMaxFd + 5));
  pk::RetFd::post(c, 900);
  int32_t first = int32_t(r.slots[0].value);
  pk::RetFd::post(c, 901);
  EXPECT_EQ(r.slots[1].value, first + 1);
  r.nslots = 0;
  EXPECT_TRUE(pk::Fd::pre(c, "fd", 901));
  EXPECT_EQ(r.slots[0].value, first + 1);
  // A close frees the descriptor's entry before the real call (another
  // thread's open may get the number as soon as it returns).
  EXPECT_TRUE(pk::FdClose::pre(c, "fd", 901));
  EXPECT_EQ(c.released[int(pk::Table::Fd)], first + 1);
  EXPECT_FALSE(pk::Fd::pre(c, "fd", 901));
  pk::RetFd::post(c, -1); // a failed open
  EXPECT_EQ(r.slots[r.nslots - 1].value, -1);
}

// Directory streams follow the descriptors' rule: closedir frees the entry
// before the real call and the code only after it (Call::finish).
TEST(Handles, DirClosedBeforeTheRealCall) {
  Record r{};
  Call c{};
  c.rec = &r;
  DIR *d = opendir("/");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(pk::Dir::pre(c, "dir", d));
  EXPECT_FALSE(pk::Dir::pre(c, "dir", static_cast<DIR *>(nullptr)));
  pk::RetDir::post(c, d);
  const int32_t code = int32_t(r.slots[r.nslots - 1].value);
  EXPECT_GE(code, 0);
  r.nslots = 0;
  EXPECT_TRUE(pk::Dir::pre(c, "dir", d));
  EXPECT_EQ(r.slots[0].value, code);
  EXPECT_TRUE(pk::DirClose::pre(c, "dir", d));
  EXPECT_EQ(c.released[int(pk::Table::Dir)], code);
  EXPECT_FALSE(pk::Dir::pre(c, "dir", d)); // the entry is gone already
  closedir(d);
  c.finish();
  // The code is free again: the next directory stream gets it back.
  DIR *e = opendir("/");
  ASSERT_NE(e, nullptr);
  Call c2{};
  c2.rec = &r;
  pk::RetDir::post(c2, e);
  EXPECT_EQ(r.slots[r.nslots - 1].value, code);
  closedir(e);
}

TEST(Handles, FilesAndStrings) {
  int64_t a = fileId("data/a.dat");
  int64_t b = fileId("data/b.dat");
  EXPECT_NE(a, b);
  EXPECT_EQ(fileId("data/a.dat"), a);
  EXPECT_EQ(stringId("w+"), stringId("w+"));
  EXPECT_TRUE(pathExcluded("/proc/self/maps"));
  EXPECT_FALSE(pathExcluded("out_3.dat"));
}

TEST(Handles, OpenModeOnlyWithCreate) {
  EXPECT_TRUE(openNeedsMode(O_CREAT | O_WRONLY));
  EXPECT_FALSE(openNeedsMode(O_RDONLY));
  Record r{};
  Call c{};
  c.rec = &r;
  pk::Int::pre(c, "flags", O_RDONLY);
  pk::VaMode::pre(c, "mode", 0644);
  EXPECT_EQ(r.nslots, 1);
  pk::Int::pre(c, "flags", O_CREAT);
  pk::VaMode::pre(c, "mode", 0644);
  EXPECT_EQ(r.nslots, 3);
  EXPECT_EQ(r.slots[2].value, 0644);
}

TEST(Handles, IovBytes) {
  char x[10];
  struct iovec iov[3] = {{x, 3}, {x, 4}, {x, 5}};
  Record r{};
  Call c{};
  c.rec = &r;
  pk::Iov::pre(c, "iov", iov);
  pk::IovCnt::pre(c, "iovcnt", 3);
  ASSERT_EQ(r.nslots, 1); // nothing read from iov before the call
  c.ret = 12;
  pk::IovCnt::post(c, "iovcnt", 3);
  ASSERT_EQ(r.nslots, 2);
  EXPECT_STREQ(r.slots[1].name, "bytes");
  EXPECT_EQ(r.slots[1].value, 12);
}

// A failed call's array is never read (it may be unreadable, or shorter
// than its count): the count is recorded, no `bytes`.
TEST(Handles, IovBytesNotReadAfterFailure) {
  Record r{};
  Call c{};
  c.rec = &r;
  pk::Iov::pre(c, "iov", reinterpret_cast<const struct iovec *>(1));
  pk::IovCnt::pre(c, "iovcnt", 1 << 20);
  c.ret = -1;
  pk::IovCnt::post(c, "iovcnt", 1 << 20);
  ASSERT_EQ(r.nslots, 1);
  EXPECT_STREQ(r.slots[0].name, "iovcnt");
  EXPECT_EQ(r.slots[0].value, 1 << 20);
}

TEST(Calls, TableFromIoCallsDef) {
  EXPECT_STREQ(kCallInfo[size_t(CallId::pread64)].op, "pread");
  EXPECT_STREQ(kCallInfo[size_t(CallId::__read_chk)].op, "read");
  EXPECT_STREQ(kCallInfo[size_t(CallId::MPI_File_write_at_all_c)].op, "MPI_File_write_at_all");
  EXPECT_EQ(kCallInfo[size_t(CallId::MPI_Barrier)].layer, sio::trace::Layer::SYNC);
  EXPECT_EQ(kCallInfo[size_t(CallId::fopen64)].layer, sio::trace::Layer::STDIO);
}
