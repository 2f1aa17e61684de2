// Property test of the read-result simulation (extrap/lib/ReadResults.cpp,
// docs/extrap.md, Read results): random sequences of POSIX calls on one
// file (pwrite, write, lseek with each whence, read, pread, ftruncate, an
// O_APPEND descriptor and a dup'ed one that shares the first one's offset)
// are run on a real file, and the trace of what they did must be
// simulated with every read's result equal to what the kernel returned.
#include "../lib/ReadResults.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace sio::trace;

Param param(const std::string &name, int64_t value) {
  return {name, ElasticValue(Value(Expr(value)), RankList::all(1))};
}

TEST(ReadResultsProperty, PosixOffsetsMatchTheKernel) {
  std::mt19937 rng(2);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  char path[] = "/tmp/sio-readresults-XXXXXX";
  const int scratch = mkstemp(path);
  ASSERT_GE(scratch, 0);
  close(scratch);
  std::vector<char> buf(4096, 'x');
  int checkedReads = 0, shortReads = 0;
  for (int round = 0; round < 200; ++round) {
    Trace t;
    t.header.program = "readresults";
    t.header.nranks = 1;
    t.files.push_back({0, {FileNamePart{"p.dat", std::nullopt, 0}}});
    auto add = [&](const std::string &op, std::vector<Param> params, long ret) {
      Event e;
      e.op = op;
      e.layer = Layer::POSIX;
      e.params = std::move(params);
      if (ret < 0)
        e.params.push_back(param("error", errno));
      else if (op != "lseek" && op != "ftruncate" && op != "open" && op != "dup")
        e.params.push_back(param("result", ret));
      t.body.push_back(Node{RankList::all(1), std::move(e)});
    };
    // fd codes 0 (the creating open), 1 (O_APPEND), 2 (dup of 0).
    int fds[3];
    fds[0] = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    add("open", {param("file", 0), param("flags", O_CREAT | O_TRUNC | O_RDWR), param("fd", 0)}, fds[0]);
    fds[1] = open(path, O_RDWR | O_APPEND);
    add("open", {param("file", 0), param("flags", O_RDWR | O_APPEND), param("fd", 1)}, fds[1]);
    fds[2] = dup(fds[0]);
    add("dup", {param("oldfd", 0), param("fd", 2)}, fds[2]);
    std::vector<std::pair<std::string, long>> reads; // path, kernel's result
    for (int k = 0; k < 30; ++k) {
      const int code = pick(0, 2), fd = fds[code];
      const int count = pick(0, 700), offset = pick(0, 2000);
      switch (pick(0, 6)) {
      case 0:
        add("pwrite", {param("fd", code), param("count", count), param("offset", offset)},
            pwrite(fd, buf.data(), size_t(count), offset));
        break;
      case 1:
        add("write", {param("fd", code), param("count", count)}, write(fd, buf.data(), size_t(count)));
        break;
      case 2: {
        const int whence = pick(0, 2), off = whence == 0 ? offset : pick(-300, 300);
        add("lseek", {param("fd", code), param("offset", off), param("whence", whence)}, lseek(fd, off, whence));
        break;
      }
      case 3:
      case 4: {
        long got = read(fd, buf.data(), size_t(count));
        reads.push_back({"body[" + std::to_string(t.body.size()) + "]", got});
        add("read", {param("fd", code), param("count", count)}, got);
        shortReads += got >= 0 && got < count;
        break;
      }
      case 5: {
        long got = pread(fd, buf.data(), size_t(count), offset);
        reads.push_back({"body[" + std::to_string(t.body.size()) + "]", got});
        add("pread", {param("fd", code), param("count", count), param("offset", offset)}, got);
        shortReads += got >= 0 && got < count;
        break;
      }
      default:
        add("ftruncate", {param("fd", code), param("length", offset)}, ftruncate(fd, offset));
      }
    }
    for (int fd : fds)
      close(fd);
    const auto sim = sio::extrap::simulateReads(t, true);
    for (const auto &[where, got] : reads) {
      auto it = sim.find(where);
      ASSERT_NE(it, sim.end()) << where;
      const auto &o = it->second;
      EXPECT_TRUE(o.supported) << "round " << round << " " << where << ": " << o.why;
      EXPECT_EQ(o.mismatch, "") << "round " << round << " " << where << "\n"
                                << [&] {
                                     std::string ops;
                                     for (const Node &n : t.body) {
                                       ops += n.event().op;
                                       for (const Param &p : n.event().params)
                                         ops += " " + p.name + "=" + valueStr(p.value.entries()[0].value);
                                       ops += "\n";
                                     }
                                     return ops;
                                   }();
      ASSERT_EQ(o.sequence.count(0), 1u) << where;
      EXPECT_EQ(o.sequence.at(0).back(), got) << "round " << round << " " << where;
      ++checkedReads;
    }
  }
  unlink(path);
  std::printf("read results: %d reads checked against the kernel, %d short\n", checkedReads, shortReads);
  EXPECT_GT(shortReads, 100);
}

} // namespace
