#include "TestTraces.h"

#include "sio/trace/Diff.h"
#include "sio/trace/Json.h"
#include "sio/trace/Summary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace sio::trace;
using namespace sio::trace::testing;
using OJson = nlohmann::ordered_json;

namespace {

void expectSameNodes(const std::vector<Node> &a, const std::vector<Node> &b, const std::string &where);

void expectSameNode(const Node &a, const Node &b, const std::string &where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.ranks, b.ranks);
  ASSERT_EQ(a.isEvent(), b.isEvent());
  if (a.isEvent()) {
    const Event &x = a.event(), &y = b.event();
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.layer, y.layer);
    EXPECT_EQ(x.site, y.site);
    EXPECT_EQ(x.inner, y.inner);
    EXPECT_EQ(x.params, y.params); // names, order, entries, values
    EXPECT_EQ(x.compute, y.compute);
    EXPECT_EQ(x.duration, y.duration);
  } else {
    EXPECT_EQ(a.loop().id, b.loop().id);
    EXPECT_EQ(a.loop().iterations, b.loop().iterations);
    expectSameNodes(a.loop().body, b.loop().body, where + ".body");
  }
}

void expectSameNodes(const std::vector<Node> &a, const std::vector<Node> &b, const std::string &where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i)
    expectSameNode(a[i], b[i], where + "[" + std::to_string(i) + "]");
}

/// Field-by-field equality of two traces (Trace has no operator==).
void expectSameTrace(const Trace &a, const Trace &b) {
  EXPECT_EQ(a.header.generator, b.header.generator);
  EXPECT_EQ(a.header.program, b.header.program);
  EXPECT_EQ(a.header.commandLine, b.header.commandLine);
  EXPECT_EQ(a.header.nranks, b.header.nranks);
  EXPECT_EQ(a.header.complete, b.header.complete);
  EXPECT_EQ(a.header.droppedEvents, b.header.droppedEvents);
  EXPECT_EQ(a.header.notes, b.header.notes);
  EXPECT_EQ(a.header.inexact, b.header.inexact);
  EXPECT_EQ(a.header.metadata, b.header.metadata);
  ASSERT_EQ(a.sites.size(), b.sites.size());
  for (size_t i = 0; i < a.sites.size(); ++i) {
    const SiteInfo &x = a.sites[i], &y = b.sites[i];
    EXPECT_EQ(std::tie(x.id, x.file, x.line, x.column, x.function, x.callee, x.loop),
              std::tie(y.id, y.file, y.line, y.column, y.function, y.callee, y.loop));
  }
  ASSERT_EQ(a.loops.size(), b.loops.size());
  for (size_t i = 0; i < a.loops.size(); ++i) {
    const LoopInfo &x = a.loops[i], &y = b.loops[i];
    EXPECT_EQ(std::tie(x.id, x.file, x.line, x.column, x.function, x.parent),
              std::tie(y.id, y.file, y.line, y.column, y.function, y.parent));
  }
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(a.datatypes, b.datatypes);
  EXPECT_EQ(a.comms, b.comms);
  EXPECT_EQ(a.infos, b.infos);
  expectSameNodes(a.body, b.body, "body");
}

/// The written form of the rich trace, as a mutable JSON document.
OJson richJson() { return OJson::parse(writeTraceString(richTrace())); }

/// Reads `doc` and returns the error; fails the test if it reads.
TraceError readError(const std::string &text) {
  try {
    readTraceString(text, "t.json");
  } catch (const TraceError &e) {
    return e;
  }
  ADD_FAILURE() << "trace was accepted";
  return TraceError("", "", "");
}
TraceError readError(const OJson &doc) { return readError(doc.dump()); }

std::string tempPath(const std::string &name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()))).string();
}

} // namespace

//===----------------------------------------------------------------------===//
// Round trip
//===----------------------------------------------------------------------===//

TEST(Json, RoundTripStrong) {
  Trace t = strongTrace();
  Trace back = readTraceString(writeTraceString(t));
  expectSameTrace(t, back);
  EXPECT_TRUE(diffTraces(t, back, {.compareTiming = true}).empty());
}

TEST(Json, RoundTripEveryFeature) {
  Trace t = richTrace();
  std::string text = writeTraceString(t);
  Trace back = readTraceString(text);
  expectSameTrace(t, back);
  EXPECT_TRUE(back == t) << "every field, timing included, survives the round trip";
  // The writer is deterministic: writing what was read gives the same text.
  EXPECT_EQ(writeTraceString(back), text);
}

// A trace that misses data says why (`inexact`); an exact one has no such
// field, so its text is the 1.0 form it always was.
TEST(Json, InexactReasonsRoundTripAndAreAbsentWhenExact) {
  Trace t = strongTrace();
  EXPECT_EQ(writeTraceString(t).find("\"inexact\""), std::string::npos);
  t.header.inexact = {"a recorded file was memory-mapped (mmap)", "POSIX asynchronous I/O"};
  std::string text = writeTraceString(t);
  EXPECT_NE(text.find("\"inexact\""), std::string::npos);
  Trace back = readTraceString(text);
  EXPECT_EQ(back.header.inexact, t.header.inexact);
}

TEST(Json, WritesTheDocumentedShape) {
  OJson doc = richJson();
  EXPECT_EQ(doc["format"], "sio-trace");
  EXPECT_EQ(doc["version"], "1.1");
  // Parameters keep the recorded order.
  const OJson &params = doc["body"][3]["params"];
  std::vector<std::string> names;
  for (auto it = params.begin(); it != params.end(); ++it)
    names.push_back(it.key());
  EXPECT_EQ(names, (std::vector<std::string>{"fh", "offset", "count", "datatype"}));
  // Uniform values are bare; rank-varying ones are (ranks, value) lists.
  EXPECT_EQ(params["count"], 25);
  ASSERT_TRUE(params["offset"].is_array());
  EXPECT_EQ(params["offset"][0]["value"], "100*rank");
  EXPECT_EQ(params["offset"][0]["ranks"], OJson::parse(R"([{"start":0,"stride":2,"count":2}])"));
  EXPECT_EQ(doc["body"][0]["params"]["mode"], OJson::parse(R"({"string":"w"})"));
  EXPECT_EQ(doc["body"][1]["body"][1]["iterations"], "i0 + 1");
  EXPECT_EQ(doc["body"][4]["ranks"], OJson::parse(R"([{"start":0}])"));
  EXPECT_EQ(doc["body"][5]["ranks"],
            OJson::parse(R"([{"start":0,"dims":[{"stride":4,"count":2},{"stride":1,"count":2}]}])"));
  EXPECT_EQ(doc["files"][0]["format"], "logs/out_<rank:04>.txt");
  EXPECT_EQ(doc["files"][0]["name"][1], OJson::parse(R"({"field":"rank","width":4})"));
  EXPECT_EQ(doc["sites"][0]["id"], "0x0000000000000101");
  // Timing: sparse histogram, omitted when empty.
  const OJson &compute = doc["body"][1]["body"][0]["compute"];
  EXPECT_EQ(compute["count"], 4);
  EXPECT_EQ(compute["min_ns"], 90);
  EXPECT_EQ(compute["max_ns"], 4000);
  EXPECT_EQ(compute["hist"], "7:3 12:1") << "one line, whatever the number of bins";
  EXPECT_FALSE(doc["body"][0].contains("compute"));
}

TEST(Json, StreamsLongTablesWithoutHoldingTheirText) {
  // Two ranks' tables of random offsets (~280 KB of text each), one inside
  // a `%`, under a loop: written in pieces, never as one string, and still
  // exactly the text of the document's dump, in both forms.
  constexpr int64_t n = 100000;
  auto column = [](uint64_t x) {
    ColumnBuilder b;
    for (int64_t i = 0; i < n; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b.push(int64_t(x % 100000));
    }
    return std::move(b).finish();
  };
  Trace t = richTrace();
  const RankList all = RankList::all(8), low = RankList::range(0, 4), high = RankList::range(4, 4);
  const Expr a = Expr::table(column(1), Expr::loopIndex(0)) + Expr(8) * Expr::rank();
  const Expr b = Expr::mod(Expr::table(column(2), Expr::loopIndex(0)), Expr(7)) * Expr(64) + Expr(3);
  Node pwrite = eventNode("pwrite", Layer::POSIX, 0, all, {{"fd", Expr(3)}, {"offset", Expr(0)}});
  pwrite.event().param("offset")->value.entries() = {{low, a}, {high, b}};
  t.body.push_back(loopNode(0x201, all, ElasticValue(Expr(n), all), {pwrite}));
  for (bool pretty : {true, false}) {
    SCOPED_TRACE(pretty ? "pretty" : "compact");
    std::string text;
    size_t longest = 0;
    writeTraceTo(
        [&](std::string_view piece) {
          text += piece;
          longest = std::max(longest, piece.size());
        },
        t, pretty);
    EXPECT_LE(longest, size_t(128 << 10)) << "a table's text (~280 KB) went out whole";
    const OJson doc = OJson::parse(text);
    EXPECT_EQ(text, (pretty ? doc.dump(2) : doc.dump()) + "\n");
    const OJson &offset = doc["body"].back()["body"][0]["params"]["offset"];
    EXPECT_EQ(offset[0]["value"], a.packedStr());
    EXPECT_EQ(offset[1]["value"], b.packedStr());
    expectSameTrace(readTraceString(text), t);
  }
  // The reader cuts such tables out before parsing and puts a mark that
  // starts with a NUL in their place; a text that holds a NUL (here a note
  // that is the mark itself) is parsed whole, and the note reads as it was.
  t.header.notes.push_back(std::string("\0sio-long:0", 11));
  const std::string text = writeTraceString(t);
  ASSERT_NE(text.find("\\u0000sio-long:0"), std::string::npos);
  const Trace back = readTraceString(text);
  EXPECT_EQ(back.header.notes.back(), t.header.notes.back());
  expectSameTrace(back, t);
  EXPECT_THROW(readTraceString(text.substr(0, text.find("[#") + 100000)), TraceError) << "cut inside a table";
}

TEST(Json, LongTablesSurviveTheObjectsGrowingAroundThem) {
  // A long table as an event's first parameter, then more parameters: the
  // params object (nlohmann's ordered_map) grows and copies its entries, so
  // the writer met a copy of the table's stand-in. It wrote the formula as
  // "" (a child rank's trace then failed to merge) and threw "lost on its
  // way" after the entry, as threads.test-like runs did under load with
  // descriptors interleaved at random. The same in a loop count and in
  // every position of a parameter list.
  constexpr int64_t n = 20000;
  ColumnBuilder b;
  uint64_t x = 5;
  for (int64_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b.push(int64_t(x % 7));
  }
  const IntColumn column = std::move(b).finish();
  const RankList all = RankList::all(8);
  for (size_t at = 0; at < 5; ++at) {
    SCOPED_TRACE("long table in parameter " + std::to_string(at));
    Trace t = richTrace();
    Node call = eventNode("pwrite", Layer::POSIX, 0, all, {});
    for (size_t k = 0; k < 5; ++k) {
      Expr v = k == at ? Expr::table(column, Expr::loopIndex(0)) : Expr(static_cast<int64_t>(k));
      call.event().params.push_back(param("p" + std::to_string(k), std::move(v), all));
    }
    Node inner = loopNode(0, all, ElasticValue(Expr::table(column, Expr::loopIndex(0)) + Expr(1), all), {call});
    t.body.push_back(loopNode(0, all, ElasticValue(Expr(n), all), {inner}));
    std::string text;
    ASSERT_NO_THROW(writeTraceTo([&](std::string_view piece) { text += piece; }, t, false));
    EXPECT_EQ(text.find("\"\""), std::string::npos) << "a formula was written empty";
    expectSameTrace(readTraceString(text), t);
  }
}

TEST(Json, FileRoundTripLeavesNoTemporary) {
  std::string path = tempPath("sio-json-test.json");
  writeTraceFile(path, richTrace());
  expectSameTrace(readTraceFile(path), richTrace());
  for (const auto &e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    EXPECT_EQ(e.path().string().find(path + ".tmp"), std::string::npos) << e.path();
  std::filesystem::remove(path);
}

TEST(Json, WriteFailureNamesThePath) {
  const std::string path = "/nonexistent-sio-dir/t.json";
  try {
    writeTraceFile(path, strongTrace());
    FAIL() << "write succeeded";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(Json, DocumentedExampleIsWhatTheWriterWrites) {
  // docs/trace-format.md shows this file; it must stay in the writer's form.
  std::ifstream in(SIO_SOURCE_DIR "/lit-tests/trace/Inputs/strong.json");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  Trace t = readTraceString(text.str(), "strong.json");
  EXPECT_EQ(writeTraceString(t), text.str());
  EXPECT_TRUE(diffTraces(t, strongTrace(), {.ignoreSites = true}).empty());
}

//===----------------------------------------------------------------------===//
// Versions and forward compatibility
//===----------------------------------------------------------------------===//

TEST(Json, AcceptsNewerMinorVersion) {
  OJson doc = richJson();
  doc["version"] = "1.7";
  doc["some_future_field"] = {{"x", 1}}; // minor versions only add fields
  doc["body"][0]["future_node_field"] = true;
  Trace t = readTraceString(doc.dump(), "t.json");
  EXPECT_EQ(t.header.version.major, 1u);
  EXPECT_EQ(t.header.version.minor, 7u);
}

TEST(Json, RefusesOtherMajorVersion) {
  OJson doc = richJson();
  doc["version"] = "2.0";
  TraceError e = readError(doc);
  EXPECT_EQ(e.file(), "t.json");
  EXPECT_EQ(e.jsonPath(), "/version");
  EXPECT_NE(std::string(e.what()).find("2.0"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("1.x"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind("t.json: /version: ", 0), 0u) << e.what();
}

TEST(Json, RefusesMalformedVersionAndFormat) {
  OJson doc = richJson();
  doc["version"] = "one";
  EXPECT_EQ(readError(doc).jsonPath(), "/version");
  doc = richJson();
  doc["format"] = "otf2";
  EXPECT_EQ(readError(doc).jsonPath(), "/format");
}

//===----------------------------------------------------------------------===//
// Rejection: every error names the JSON path of the bad field
//===----------------------------------------------------------------------===//

TEST(Json, RejectsTruncatedFile) {
  std::string text = writeTraceString(richTrace());
  for (size_t cut : {size_t(0), size_t(1), text.size() / 3, text.size() / 2, text.size() - 3}) {
    TraceError e = readError(text.substr(0, cut));
    EXPECT_EQ(e.jsonPath(), "") << cut;
    EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
  }
}

TEST(Json, RejectsWrongTypes) {
  struct Case {
    std::function<void(OJson &)> mutate;
    std::string path;
  };
  std::vector<Case> cases = {
      {[](OJson &d) { d["nranks"] = "8"; }, "/nranks"},
      {[](OJson &d) { d["nranks"] = 0; }, "/nranks"},
      {[](OJson &d) { d["complete"] = 1; }, "/complete"},
      {[](OJson &d) { d["command_line"][1] = 3; }, "/command_line/1"},
      {[](OJson &d) { d["metadata"]["host"] = 3; }, "/metadata/host"},
      {[](OJson &d) { d["body"] = OJson::object(); }, "/body"},
      {[](OJson &d) { d["body"][3]["params"]["count"] = 2.5; }, "/body/3/params/count"},
      {[](OJson &d) { d["body"][3]["params"]["count"] = true; }, "/body/3/params/count"},
      {[](OJson &d) { d["body"][3]["params"]["count"] = "18446744073709551616"; }, "/body/3/params/count"},
      {[](OJson &d) { d["body"][3]["params"]["count"] = 18446744073709551615ull; }, "/body/3/params/count"},
      {[](OJson &d) { d["body"][0]["params"]["mode"] = OJson{{"str", "w"}}; }, "/body/0/params/mode"},
      {[](OJson &d) { d["body"][3]["ranks"] = OJson{{"start", 0}}; }, "/body/3/ranks"},
      {[](OJson &d) { d["body"][3]["ranks"][0]["stride"] = 0; }, "/body/3/ranks/0/stride"},
      {[](OJson &d) { d["body"][3]["layer"] = "hdf5"; }, "/body/3/layer"},
      {[](OJson &d) { d["body"][3].erase("layer"); }, "/body/3/layer"},
      {[](OJson &d) { d["body"][3].erase("ranks"); }, "/body/3/ranks"},
      {[](OJson &d) { d["body"][3]["inner"] = "no"; }, "/body/3/inner"},
      {[](OJson &d) { d["body"][3]["site"] = "0xZZ"; }, "/body/3/site"},
      {[](OJson &d) { d["body"][3]["event"] = ""; }, "/body/3/event"},
      {[](OJson &d) { d["body"][3].erase("event"); }, "/body/3"},
      {[](OJson &d) { d["body"][1].erase("body"); }, "/body/1/body"},
      {[](OJson &d) { d["body"][1]["iterations"] = -1; }, "/body/1/iterations"},
      {[](OJson &d) { d["body"][1]["iterations"] = OJson{{"string", "x"}}; }, "/body/1/iterations"},
      {[](OJson &d) { d["sites"][1]["line"] = -4; }, "/sites/1/line"},
      {[](OJson &d) { d["sites"][1]["id"] = 258; }, "/sites/1/id"},
      {[](OJson &d) { d["sites"][1]["id"] = d["sites"][0]["id"]; }, "/sites/1/id"},
      {[](OJson &d) { d["files"][0]["name"][1]["width"] = "4"; }, "/files/0/name/1/width"},
      {[](OJson &d) { d["files"][0]["name"][1]["text"] = "x"; }, "/files/0/name/1"},
      {[](OJson &d) { d["files"][1]["id"] = 0; }, "/files/1/id"},
      {[](OJson &d) { d["datatypes"][2]["fields"]["count"] = 2; }, "/datatypes/2/fields/count"},
      {[](OJson &d) { d["infos"][1]["strings"]["cb_nodes"] = 2; }, "/infos/1/strings/cb_nodes"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"]["hist"] = OJson::parse("[[48,3],[12,1]]"); },
       "/body/1/body/0/compute/hist/0/0"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"]["hist"] = "48:3 12:1"; }, "/body/1/body/0/compute/hist"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"]["hist"] = "7:3 12"; }, "/body/1/body/0/compute/hist"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"]["hist"] = "7:3 7:1"; }, "/body/1/body/0/compute/hist"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"]["count"] = 5; }, "/body/1/body/0/compute"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"].erase("min_ns"); }, "/body/1/body/0/compute/min_ns"},
      {[](OJson &d) { d["body"][1]["body"][0]["compute"]["hist"] = OJson::parse("[7,[12,1]]"); },
       "/body/1/body/0/compute/hist/0"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    OJson doc = richJson();
    cases[i].mutate(doc);
    TraceError e = readError(doc);
    EXPECT_EQ(e.jsonPath(), cases[i].path) << "case " << i << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("t.json: " + cases[i].path + ": ", 0), 0u) << e.what();
  }
}

TEST(Json, RejectsRankOutsideRankCount) {
  OJson doc = richJson();
  doc["body"][0]["ranks"] = OJson::parse(R"([{"start":0,"stride":1,"count":9}])");
  TraceError e = readError(doc);
  EXPECT_EQ(e.jsonPath(), "/body/0/ranks/0");
  EXPECT_NE(std::string(e.what()).find("nranks = 8"), std::string::npos) << e.what();

  doc = richJson();
  doc["body"][4]["ranks"] = OJson::parse(R"([{"start":8}])");
  EXPECT_EQ(readError(doc).jsonPath(), "/body/4/ranks/0/start");

  doc = richJson();
  doc["body"][4]["ranks"] = OJson::parse(R"([{"start":-1}])");
  EXPECT_EQ(readError(doc).jsonPath(), "/body/4/ranks/0/start");

  doc = richJson();
  doc["body"][5]["ranks"] = OJson::parse(R"([{"start":1,"dims":[{"stride":4,"count":2},{"stride":3,"count":2}]}])");
  EXPECT_EQ(readError(doc).jsonPath(), "/body/5/ranks/0");
}

TEST(Json, RejectsOverlappingRankLists) {
  // Blocks of one list.
  OJson doc = richJson();
  doc["body"][4]["ranks"] = OJson::parse(R"([{"start":0,"stride":1,"count":3},{"start":2}])");
  EXPECT_EQ(readError(doc).jsonPath(), "/body/4/ranks");
  // A block naming a rank twice.
  doc = richJson();
  doc["body"][4]["ranks"] = OJson::parse(R"([{"start":0,"dims":[{"stride":1,"count":2},{"stride":1,"count":2}]}])");
  EXPECT_EQ(readError(doc).jsonPath(), "/body/4/ranks/0");
  // Entries of an elastic value.
  doc = richJson();
  doc["body"][3]["params"]["offset"][1]["ranks"] = OJson::parse(R"([{"start":2,"stride":2,"count":2}])");
  TraceError e = readError(doc);
  EXPECT_EQ(e.jsonPath(), "/body/3/params/offset/1/ranks");
  EXPECT_NE(std::string(e.what()).find("rank 2 already has a value"), std::string::npos) << e.what();
}

TEST(Json, RejectsElasticEntriesThatDoNotMatchTheNode) {
  OJson doc = richJson();
  // Rank 1 does not run this node.
  doc["body"][3]["params"]["offset"][1]["ranks"] = OJson::parse(R"([{"start":1}])");
  EXPECT_EQ(readError(doc).jsonPath(), "/body/3/params/offset/1/ranks");
  // Ranks 4 and 6 get no value.
  doc = richJson();
  doc["body"][3]["params"]["offset"].erase(1);
  EXPECT_EQ(readError(doc).jsonPath(), "/body/3/params/offset");
  doc = richJson();
  doc["body"][3]["params"]["offset"] = OJson::array();
  EXPECT_EQ(readError(doc).jsonPath(), "/body/3/params/offset");
  // A loop body node with ranks its loop does not have.
  doc = richJson();
  doc["body"][1]["ranks"] = OJson::parse(R"([{"start":0,"stride":1,"count":4}])");
  doc["body"][1]["iterations"] = 2;
  EXPECT_EQ(readError(doc).jsonPath(), "/body/1/body/0/ranks");
}

TEST(Json, RejectsBadFormulas) {
  for (const char *bad : {"240*rank +", "240*rnak", "rank/0", "rank % 0", "[1, 2][", "99999999999999999999*rank",
                          "rank/(rank + 1)", ""}) {
    OJson doc = richJson();
    doc["body"][3]["params"]["count"] = bad;
    TraceError e = readError(doc);
    EXPECT_EQ(e.jsonPath(), "/body/3/params/count") << bad << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("formula"), std::string::npos) << e.what();
  }
  // Everything read must be writable: -2^63 has no printable magnitude.
  for (const OJson &bad : {OJson("-9223372036854775807*rank - rank"), OJson(INT64_MIN)}) {
    OJson doc = richJson();
    doc["files"][0]["name"][1]["field"] = bad;
    EXPECT_EQ(readError(doc).jsonPath(), "/files/0/name/1/field") << bad;
  }
  // Loop indices must be in scope.
  OJson doc = richJson();
  doc["body"][3]["params"]["count"] = "25 + i0";
  EXPECT_EQ(readError(doc).jsonPath(), "/body/3/params/count");
  doc = richJson();
  doc["body"][1]["body"][0]["params"]["nmemb"] = "i1";
  EXPECT_EQ(readError(doc).jsonPath(), "/body/1/body/0/params/nmemb");
  // A file name field in i0 is fine in the table; a call outside any loop
  // that names the file is not.
  doc = richJson();
  doc["files"][0]["name"][1]["field"] = "i0";
  EXPECT_EQ(readError(doc).jsonPath(), "/body/0/params/file");
  EXPECT_NE(std::string(readError(doc).what()).find("loop index i0 but only 0 loop(s) enclose this call"),
            std::string::npos);
  // A formula nested deep enough to exhaust a recursive parser's stack.
  doc = richJson();
  doc["body"][3]["params"]["count"] = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_EQ(readError(doc).jsonPath(), "/body/3/params/count");
}

TEST(Json, RejectsMissingTableEntries) {
  OJson doc = richJson();
  doc["body"][0]["params"]["file"] = 7;
  TraceError e = readError(doc);
  EXPECT_EQ(e.jsonPath(), "/body/0/params/file");
  EXPECT_NE(std::string(e.what()).find("files table"), std::string::npos) << e.what();
  doc = richJson();
  doc["body"][3]["params"]["datatype"] = 9;
  EXPECT_EQ(readError(doc).jsonPath(), "/body/3/params/datatype");
}

TEST(Json, RefusesDeepNestingWithoutCrashing) {
  // 100 nested loops read fine; 300 exceed the nesting limit.
  auto nested = [](int depth) {
    std::string text = R"({"format":"sio-trace","version":"1.0","nranks":1,"body":[)";
    for (int i = 0; i < depth; ++i)
      text += R"({"loop":0,"ranks":[{"start":0}],"iterations":1,"body":[)";
    text += R"({"event":"close","layer":"posix","ranks":[{"start":0}],"params":{"fd":3}})";
    for (int i = 0; i < depth; ++i)
      text += "]}";
    return text + "]}";
  };
  Trace t = readTraceString(nested(100), "t.json");
  EXPECT_EQ(t.body.size(), 1u);
  TraceError e = readError(nested(300));
  EXPECT_EQ(e.jsonPath(), "");
  EXPECT_NE(std::string(e.what()).find("nests deeper"), std::string::npos) << e.what();
  // Plain arrays nested a million deep.
  EXPECT_EQ(readError(std::string(1000000, '[')).jsonPath(), "");
}

TEST(Json, RejectsNonObjectsAndGarbage) {
  for (const char *text : {"[]", "null", "42", "\"sio-trace\"", "{", "{}", "\xff\xfe", "{\"format\":\"sio-trace\"}"}) {
    TraceError e = readError(std::string(text));
    EXPECT_EQ(e.file(), "t.json") << text;
  }
}

TEST(Json, MissingFileNamesThePath) {
  try {
    readTraceFile("/nonexistent/trace.json");
    FAIL();
  } catch (const TraceError &e) {
    EXPECT_EQ(e.file(), "/nonexistent/trace.json");
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/trace.json: cannot open", 0), 0u) << e.what();
  }
}

TEST(Json, ReadsTheArrayFormOfHistogramsToo) {
  OJson doc = OJson::parse(writeTraceString(richTrace()));
  OJson &compute = doc["body"][1]["body"][0]["compute"];
  compute["hist"] = OJson::parse("[[7,3],[12,1]]");
  Trace t = readTraceString(doc.dump());
  EXPECT_TRUE(t == richTrace());
}

//===----------------------------------------------------------------------===//
// Results (docs/trace-format.md, Results)
//===----------------------------------------------------------------------===//

TEST(Json, ResultsAndErrorsRoundTripAsParameters) {
  Trace t = strongTrace();
  const RankList all = RankList::all(4);
  // A failed open before the one that works: fh = -1 and the error.
  Node failed = t.body[0];
  failed.event().params.back().value = ElasticValue(Value(Expr(-1)), all);
  failed.event().params.push_back(param("error", Expr(37), all));
  t.body.insert(t.body.begin(), failed);
  Event &read = t.body[4].loop().body[0].event();
  read.params.push_back(param("result", ex("64 - 16*i0"), all));
  std::string text = writeTraceString(t);
  EXPECT_NE(text.find("\"error\": 37"), std::string::npos);
  EXPECT_NE(text.find("\"result\": \"-16*i0 + 64\""), std::string::npos);
  Trace back = readTraceString(text);
  EXPECT_TRUE(back == t);
  const Event &r = back.body[4].loop().body[0].event();
  ASSERT_EQ(r.params.size(), 5u);
  EXPECT_EQ(r.params.back().name, "result") << "results come after the call's parameters";
  EXPECT_TRUE(diffTraces(t, back, {}).empty());
}

TEST(Json, TracesWithoutResultsStillRead) {
  // The documented example was written before results were recorded: it
  // reads, has none, and its calls count the bytes they asked for.
  Trace t = readTraceFile(SIO_SOURCE_DIR "/lit-tests/trace/Inputs/strong.json");
  int events = 0;
  std::function<void(const std::vector<Node> &)> walk = [&](const std::vector<Node> &nodes) {
    for (const Node &n : nodes) {
      if (n.isLoop()) {
        walk(n.loop().body);
        continue;
      }
      ++events;
      EXPECT_EQ(n.event().param("result"), nullptr);
      EXPECT_EQ(n.event().param("error"), nullptr);
    }
  };
  walk(t.body);
  EXPECT_EQ(events, 5);
  EXPECT_EQ(summarize(t).bytesWritten, 2880);
}
