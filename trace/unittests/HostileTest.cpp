// Hostile input (issue "Offline tools and replays on hostile traces"):
// text shown to people has no control characters, every duplicated key is
// refused, and every handle-lifetime error of a close is found.
// GCC 12 warns that std::variant's map alternative "may be used
// uninitialized" when an ElasticValue is built here, inside libstdc++'s
// own move; a false positive of its flow analysis.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "TestTraces.h"

#include "sio/trace/Handles.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>

using namespace sio::trace;
using namespace sio::trace::testing;
using OJson = nlohmann::ordered_json;

namespace {

/// No C0, DEL or C1 control (U+0080..U+009F), and valid UTF-8.
void expectPrintable(const std::string &s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    ASSERT_FALSE(c < 0x20 || c == 0x7f) << "byte " << i << " of " << s;
    if (c < 0x80)
      continue;
    const size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    ASSERT_TRUE(c >= 0xc2 && c < 0xf5 && i + len <= s.size()) << "byte " << i;
    for (size_t k = 1; k < len; ++k)
      ASSERT_EQ(static_cast<unsigned char>(s[i + k]) & 0xc0, 0x80) << "byte " << i + k;
    ASSERT_FALSE(c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) << "C1 control at " << i;
    i += len - 1;
  }
}

TEST(PrintableTest, RandomBytesComeOutPrintable) {
  std::mt19937 rng(7);
  for (int n = 0; n < 2000; ++n) {
    std::string s(rng() % 64, '\0');
    for (char &c : s)
      c = char(rng() % 4 == 0 ? 0x80 + rng() % 64 : rng() % 256); // C1 bytes often
    expectPrintable(escapeControl(s));
    expectPrintable(echoValue(s, 16));
  }
}

TEST(PrintableTest, KeepsPrintableText) {
  EXPECT_EQ(escapeControl("data/out_<rank>.dat \\ \"q\" é ✓"), "data/out_<rank>.dat \\ \"q\" é ✓");
  EXPECT_EQ(escapeControl("a\x1b[31mb\n\x7f"), "a\\x1b[31mb\\x0a\\x7f");
  EXPECT_EQ(escapeControl("\xc2\x9b"
                          "2J"),
            "\\u009b2J");
  EXPECT_EQ(escapeControl("\xff\xc0\x80"), "\\xff\\xc0\\x80");
}

TEST(PrintableTest, EchoValueIsCapped) {
  const std::string big(1 << 20, 'x');
  EXPECT_EQ(echoValue(big), std::string(kEchoLimit, 'x') + "... (1048576 bytes)");
  // Never cuts inside a UTF-8 sequence.
  std::string accents;
  for (int i = 0; i < 300; ++i)
    accents += "é";
  const std::string cut = echoValue(accents, 201);
  expectPrintable(cut);
  EXPECT_EQ(cut, accents.substr(0, 200) + "... (600 bytes)");
  EXPECT_LE(printableMessage(std::string(1 << 20, '\x1b')).size(), 4 * kMessageLimit + 40);
}

TEST(PrintableTest, MessagesKeepTheirLineBreaks) {
  // A refusal listing models spans lines; controls inside a line are escaped.
  EXPECT_EQ(printableMessage("ambiguous:\n values \x1b[31m\n add N=24"), "ambiguous:\n values \\x1b[31m\n add N=24");
  EXPECT_EQ(printableMessage("one line"), "one line");
}

/// Every key of every object of a written trace, once duplicated, makes the
/// reader refuse the trace with a message naming that key.
TEST(HostileTest, EveryDuplicatedKeyIsRefused) {
  const std::string text = writeTraceString(richTrace());
  OJson doc = OJson::parse(text);
  std::vector<std::pair<std::string, std::string>> spots; // object's JSON pointer, key
  std::function<void(const OJson &, const std::string &)> walk = [&](const OJson &j, const std::string &at) {
    if (j.is_object())
      for (auto it = j.begin(); it != j.end(); ++it) {
        spots.emplace_back(at, it.key());
        walk(it.value(), (OJson::json_pointer(at) / it.key()).to_string());
      }
    else if (j.is_array())
      for (size_t i = 0; i < j.size(); ++i)
        walk(j[i], at + "/" + std::to_string(i));
  };
  walk(doc, "");
  ASSERT_GT(spots.size(), 50u);
  EXPECT_NO_THROW(readTraceString(text));
  for (const auto &[at, key] : spots) {
    SCOPED_TRACE(at + " " + key);
    OJson copy = doc;
    OJson &obj = copy[OJson::json_pointer(at)];
    obj["sio-duplicate-marker"] = obj[key];
    std::string dup = copy.dump();
    const std::string marker = "\"sio-duplicate-marker\"";
    dup.replace(dup.find(marker), marker.size(), OJson(key).dump());
    try {
      readTraceString(dup, "t.json");
      ADD_FAILURE() << "accepted";
    } catch (const TraceError &e) {
      EXPECT_NE(std::string(e.what()).find("duplicate key \"" + key + "\""), std::string::npos) << e.what();
    }
  }
}

/// A two-rank trace of one file, `out.dat`, with an empty body.
Trace oneFileTrace() {
  Trace t;
  t.header.nranks = 2;
  FileEntry f;
  f.id = 0;
  f.name = {FileNamePart{"out.dat", {}, 0}};
  t.files.push_back(f);
  return t;
}

/// An event of every rank of a two-rank trace with constant parameters.
Node constEvent(std::string op, Layer layer, std::vector<std::pair<std::string, int64_t>> ps) {
  std::vector<std::pair<std::string, Value>> params;
  for (auto &[n, v] : ps)
    params.emplace_back(n, ex(std::to_string(v)));
  return eventNode(std::move(op), layer, 0, RankList::all(2), std::move(params));
}

Trace stdioTrace() {
  const RankList all = RankList::all(2);
  Trace t = oneFileTrace();
  auto ev = [](std::string op, std::vector<std::pair<std::string, int64_t>> ps) {
    return constEvent(std::move(op), Layer::STDIO, std::move(ps));
  };
  t.body.push_back(ev("fopen", {{"file", 0}, {"stream", 0}}));
  std::vector<Node> body{ev("fwrite", {{"size", 1}, {"nmemb", 8}, {"stream", 0}})};
  t.body.push_back(loopNode(0, all, ElasticValue(ex("3"), all), std::move(body)));
  t.body.push_back(ev("fseek", {{"stream", 0}, {"offset", 0}, {"whence", 0}}));
  t.body.push_back(ev("fclose", {{"stream", 0}}));
  return t;
}

/// Moving the close before any use of the stream, or a second close
/// anywhere, is found; the trace itself is fine.
TEST(HostileTest, EveryMisplacedCloseIsFound) {
  const Trace base = stdioTrace();
  EXPECT_FALSE(checkHandleLifetimes(base));
  for (size_t at = 0; at + 1 < base.body.size(); ++at) {
    Trace moved = base;
    Node close = moved.body.back();
    moved.body.pop_back();
    moved.body.insert(moved.body.begin() + long(at), close);
    auto p = checkHandleLifetimes(moved);
    ASSERT_TRUE(p) << "close moved to " << at;
    EXPECT_NE(p->message.find("stream 0"), std::string::npos) << p->message;
  }
  for (size_t at = 0; at <= base.body.size(); ++at) {
    Trace twice = base;
    twice.body.insert(twice.body.begin() + long(at), base.body.back());
    EXPECT_TRUE(checkHandleLifetimes(twice)) << "second close at " << at;
  }
  // The same close in a loop of one iteration is fine, of two is not.
  for (int64_t n : {1, 2}) {
    Trace loop = base;
    const RankList all = RankList::all(2);
    loop.body.back() = loopNode(0, all, ElasticValue(ex(std::to_string(n)), all), {base.body.back()});
    EXPECT_EQ(checkHandleLifetimes(loop).has_value(), n == 2);
  }
}

/// Handles made from other handles (dup, dup2 onto an untraced descriptor,
/// fdopen, an fclose that releases its descriptor too) are followed, not
/// refused; a use of the descriptor after the fclose that released it is.
TEST(HostileTest, DuplicatedAndWrappedHandlesAreFollowed) {
  Trace t = oneFileTrace();
  const auto ev = constEvent;
  t.body.push_back(ev("open", Layer::POSIX, {{"file", 0}, {"flags", 65}, {"fd", 0}}));
  t.body.push_back(ev("dup2", Layer::POSIX, {{"oldfd", 0}, {"newfd", -1}, {"fd", 1}}));
  t.body.push_back(ev("write", Layer::POSIX, {{"fd", 1}, {"count", 10}, {"result", 10}}));
  t.body.push_back(ev("close", Layer::POSIX, {{"fd", 1}}));
  t.body.push_back(ev("fdopen", Layer::STDIO, {{"fd", 0}, {"stream", 0}}));
  t.body.push_back(ev("fwrite", Layer::STDIO, {{"size", 1}, {"nmemb", 4}, {"stream", 0}, {"result", 4}}));
  t.body.push_back(ev("fclose", Layer::STDIO, {{"stream", 0}, {"fd", 0}}));
  EXPECT_FALSE(checkHandleLifetimes(t)) << checkHandleLifetimes(t)->message;
  Trace after = t;
  after.body.push_back(ev("write", Layer::POSIX, {{"fd", 0}, {"count", 1}, {"result", 1}}));
  auto p = checkHandleLifetimes(after);
  ASSERT_TRUE(p);
  EXPECT_NE(p->message.find("fd 0 is used after its close (fclose"), std::string::npos) << p->message;
}

/// A dup2 that failed (EBADF: its source is not open) closed nothing: its
/// target stays open and its use after is fine; a successful one closes it.
TEST(HostileTest, FailedDup2KeepsItsTarget) {
  for (bool fails : {true, false}) {
    Trace t = oneFileTrace();
    const auto ev = constEvent;
    t.body.push_back(ev("open", Layer::POSIX, {{"file", 0}, {"flags", 65}, {"fd", 0}}));
    if (fails)
      t.body.push_back(ev("dup2", Layer::POSIX, {{"oldfd", -1}, {"newfd", 0}, {"fd", -1}, {"error", 9}}));
    else
      t.body.push_back(ev("dup2", Layer::POSIX, {{"oldfd", -1}, {"newfd", 0}, {"fd", -1}}));
    t.body.push_back(ev("write", Layer::POSIX, {{"fd", 0}, {"count", 10}, {"result", 10}}));
    auto p = checkHandleLifetimes(t);
    EXPECT_EQ(p.has_value(), !fails) << (p ? p->message : "no problem");
    if (p) {
      EXPECT_NE(p->message.find("fd 0 is used after its close (dup2"), std::string::npos) << p->message;
    }
  }
}

/// A use of handle -1 without an error is refused (the runtime never writes
/// one), except MPI_FILE_NULL, on which MPICH lets MPI_File_get_position
/// succeed.
TEST(HostileTest, OnlyFileNullMaySucceed) {
  Trace descriptor = oneFileTrace();
  descriptor.body.push_back(constEvent("write", Layer::POSIX, {{"fd", -1}, {"count", 1}, {"result", 1}}));
  auto p = checkHandleLifetimes(descriptor);
  ASSERT_TRUE(p);
  EXPECT_NE(p->message.find("negative handle code"), std::string::npos) << p->message;
  Trace file = oneFileTrace();
  file.body.push_back(constEvent("MPI_File_get_position", Layer::MPIIO, {{"fh", -1}}));
  EXPECT_FALSE(checkHandleLifetimes(file)) << checkHandleLifetimes(file)->message;
}

} // namespace
