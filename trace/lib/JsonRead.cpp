// The JSON form of a trace (docs/trace-format.md): the validating reader.
//
// The reader treats its input as untrusted: every field is checked for
// presence, type and range before it reaches the trace model, so that the
// model's own invariants (disjoint rank lists, exact formulas, consistent
// timing statistics) hold for any trace that reads without error. All errors
// are TraceErrors naming the file and the JSON pointer of the bad field.
#include "sio/trace/AtomicFile.h"
#include "sio/trace/Handles.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <unistd.h>
#include <unordered_map>
#include <utility>

#include "JsonFormat.h"

namespace sio::trace {

using json::kFormatName;
using json::OJson;

TraceError::TraceError(std::string file, std::string jsonPath, const std::string &message)
    : std::runtime_error(printableMessage(file + ": " + (jsonPath.empty() ? "" : jsonPath + ": ") + message)),
      file_(std::move(file)), jsonPath_(std::move(jsonPath)) {}

namespace {

/// JSON nesting allowed in a trace file; a loop level costs two (node, body).
constexpr int kMaxJsonDepth = 256;
/// Parenthesis/bracket nesting allowed inside a formula string, so that a
/// hostile formula cannot exhaust the stack of a recursive-descent parser.
constexpr int kMaxFormulaDepth = 64;
constexpr uint32_t kMaxFileLoopDepth = 64; ///< loop indices a file name field may use
/// MPI ranks are C ints.
constexpr int64_t kMaxRanks = std::numeric_limits<int32_t>::max();
constexpr size_t kMaxRankDims = 16;
/// Rank sets up to this size are checked by enumeration (RankList's own
/// limit for materializing a set).
constexpr int64_t kMaxCheckedRanks = int64_t(1) << 24;
// Above this many ranks a node's elastic partition is checked with set
// operations instead of one sorted pass over the enumerated ranks.
constexpr int64_t kMaxEnumeratedPartition = 4096;

/// JSON pointer escaping (RFC 6901).
std::string pointerKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string at(const std::string &path, std::string_view key) { return path + "/" + pointerKey(key); }
std::string at(const std::string &path, size_t index) { return path + "/" + std::to_string(index); }

std::string describe(const OJson &j) {
  if (j.is_number_float())
    return "a number with a fraction";
  if (j.is_number_integer())
    return "an integer";
  if (j.is_string())
    return "a string";
  if (j.is_boolean())
    return "a boolean";
  if (j.is_null())
    return "null";
  if (j.is_array())
    return "an array";
  return "an object";
}

/// Deepest bracket nesting outside of strings; scanned before parsing so that
/// a hostile file is refused before any recursive code sees it.
int jsonDepth(std::string_view text) {
  int depth = 0, maxDepth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      maxDepth = std::max(maxDepth, ++depth);
      if (maxDepth > kMaxJsonDepth)
        return maxDepth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return maxDepth;
}

/// String values at least this long are cut out of the text before it is
/// parsed (cutLongStrings).
constexpr size_t kLongString = 64 << 10;
/// What stands in their place, as written and as read: it starts with a
/// NUL, which JSON text can only write as \u0000 (no hex letters to vary
/// in case), so a text without that escape has no value that looks like it.
constexpr std::string_view kLongMark = "\\u0000sio-long:", kLongValue("\0sio-long:", 10);

/// A document without its long packed formulas: megabytes of base64 that
/// the JSON parser would hold two and three times over while it lexes them
/// (its token buffers grow by doubling, then the value is copied). Each
/// string value (not key) of at least kLongString characters without
/// escapes that holds a packed table (`[#`) becomes `"\u0000sio-long:<k>"`,
/// and `cut[k]` views its characters in `text`. nullopt when there is
/// nothing to cut, or when the text holds a NUL anywhere (a stand-in could
/// then not be told from a value).
std::optional<std::string> cutLongStrings(std::string_view text, std::vector<std::string_view> &cut) {
  cut.clear();
  if (text.size() < kLongString || text.find(kLongMark.substr(0, 6)) != std::string_view::npos)
    return std::nullopt;
  std::string skeleton;
  size_t copied = 0; // text before this is in skeleton
  for (size_t pos = text.find('"'); pos != std::string_view::npos; pos = text.find('"', pos)) {
    const size_t begin = pos + 1;
    bool escapes = false;
    size_t end = begin;
    for (;; ++end) {
      end = text.find_first_of("\"\\", end);
      if (end == std::string_view::npos)
        return std::nullopt; // unterminated: the parser reports it
      if (text[end] == '"')
        break;
      escapes = true;
      ++end; // the escaped character
    }
    pos = end + 1;
    const std::string_view value = text.substr(begin, end - begin);
    if (escapes || value.size() < kLongString || value.find("[#") == std::string_view::npos)
      continue;
    const size_t next = text.find_first_not_of(" \t\r\n", pos);
    if (next != std::string_view::npos && text[next] == ':')
      continue; // a key
    skeleton.append(text.substr(copied, begin - copied));
    skeleton.append(kLongMark);
    skeleton.append(std::to_string(cut.size()));
    cut.push_back(value);
    copied = end;
  }
  if (cut.empty())
    return std::nullopt;
  skeleton.append(text.substr(copied));
  return skeleton;
}

int formulaDepth(std::string_view text) {
  int depth = 0, maxDepth = 0;
  for (char c : text) {
    if (c == '(' || c == '[')
      maxDepth = std::max(maxDepth, ++depth);
    else if (c == ')' || c == ']')
      --depth;
  }
  return maxDepth;
}

/// Whether the nested-RSD block names each of its ranks once. Sorted by
/// stride, each dimension must step over everything the finer ones span (the
/// mixed-radix form RankList produces); other shapes are checked by
/// enumeration when small.
bool blockIsDistinct(const RankBlock &b) {
  std::vector<RankDim> dims = b.dims;
  std::sort(dims.begin(), dims.end(), [](const RankDim &x, const RankDim &y) { return x.stride < y.stride; });
  WideInt span = 0;
  bool nested = true;
  for (const RankDim &d : dims) {
    if (d.count > 1 && WideInt(d.stride) <= span) {
      nested = false;
      break;
    }
    span += WideInt(d.stride) * (d.count - 1);
  }
  if (nested)
    return true;
  WideInt size = 1;
  for (const RankDim &d : dims)
    size *= d.count;
  if (size > (1 << 16))
    return false;
  std::vector<int64_t> points{b.start};
  for (const RankDim &d : dims) {
    std::vector<int64_t> next;
    next.reserve(points.size() * size_t(d.count));
    for (int64_t p : points)
      for (int64_t j = 0; j < d.count; ++j)
        next.push_back(p + d.stride * j);
    points = std::move(next);
  }
  std::sort(points.begin(), points.end());
  return std::adjacent_find(points.begin(), points.end()) == points.end();
}

/// Whether Expr::str() can print `e`: a coefficient of -2^63 has no
/// printable magnitude, and everything the reader accepts must be writable.
bool printable(const Expr &e) {
  for (const auto &[mono, coef] : e.terms()) {
    if (coef.num() == std::numeric_limits<int64_t>::min())
      return false;
    for (const auto &[atom, exp] : mono)
      if ((atom.lhs && !printable(*atom.lhs)) || (atom.rhs && !printable(*atom.rhs)))
        return false;
  }
  return true;
}

class Reader {
public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  /// `owned`: the text itself, freed once it is parsed unless long strings
  /// were cut out of it (they are read from it while the DOM becomes the
  /// trace).
  Trace read(const std::string &text, std::string *owned = nullptr);

private:
  [[noreturn]] void fail(const std::string &path, const std::string &message) const {
    throw TraceError(file_, path, message);
  }

  const OJson &require(const OJson &obj, const std::string &path, std::string_view key) const {
    auto it = obj.find(key);
    if (it == obj.end())
      fail(at(path, key), "missing required field");
    return *it;
  }
  static const OJson *optional(const OJson &obj, std::string_view key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  void expectObject(const OJson &j, const std::string &path) const {
    if (!j.is_object())
      fail(path, "expected an object, found " + describe(j));
  }
  void expectArray(const OJson &j, const std::string &path) const {
    if (!j.is_array())
      fail(path, "expected an array, found " + describe(j));
  }
  std::string getString(const OJson &j, const std::string &path) const {
    if (!j.is_string())
      fail(path, "expected a string, found " + describe(j));
    return std::string(stringOf(j));
  }
  /// A string value's characters, those of a long string cut out before
  /// parsing (cutLongStrings) for its stand-in.
  std::string_view stringOf(const OJson &j) const {
    const std::string &s = j.get_ref<const std::string &>();
    if (cut_.empty() || !s.starts_with(kLongValue))
      return s;
    return cut_.at(std::stoul(s.substr(kLongValue.size())));
  }
  bool getBool(const OJson &j, const std::string &path) const {
    if (!j.is_boolean())
      fail(path, "expected a boolean, found " + describe(j));
    return j.get<bool>();
  }
  int64_t getInt(const OJson &j, const std::string &path, int64_t lo = std::numeric_limits<int64_t>::min(),
                 int64_t hi = std::numeric_limits<int64_t>::max()) const {
    if (!j.is_number_integer())
      fail(path, "expected an integer, found " + describe(j));
    int64_t v;
    if (j.is_number_unsigned()) {
      uint64_t u = j.get<uint64_t>();
      if (u > uint64_t(std::numeric_limits<int64_t>::max()))
        fail(path, "integer " + std::to_string(u) + " is out of range");
      v = int64_t(u);
    } else {
      v = j.get<int64_t>();
    }
    if (v < lo || v > hi)
      fail(path, "integer " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
    return v;
  }
  uint64_t getUnsigned(const OJson &j, const std::string &path) const {
    if (!j.is_number_integer() || (!j.is_number_unsigned() && j.get<int64_t>() < 0))
      fail(path, "expected a non-negative integer, found " + describe(j));
    return j.get<uint64_t>();
  }
  double getNumber(const OJson &j, const std::string &path) const {
    if (!j.is_number())
      fail(path, "expected a number, found " + describe(j));
    return j.get<double>();
  }
  /// A "0x..." id; `allowZero` also accepts the integer 0 (no id).
  uint64_t getId(const OJson &j, const std::string &path, bool allowZero) const {
    if (allowZero && j.is_number_integer() && !j.is_number_float() && j.get<int64_t>() == 0)
      return 0;
    if (!j.is_string())
      fail(path, "expected an id string \"0x<16 hex digits>\", found " + describe(j));
    std::string s(stringOf(j));
    auto id = parseId(s);
    if (!id)
      fail(path, "malformed id \"" + echoValue(s) + "\" (expected \"0x<16 hex digits>\")");
    return *id;
  }
  std::vector<std::string> getStrings(const OJson &j, const std::string &path) const {
    expectArray(j, path);
    std::vector<std::string> out;
    for (size_t i = 0; i < j.size(); ++i)
      out.push_back(getString(j[i], at(path, i)));
    return out;
  }

  /// An integer or a formula; `loopDepth` is the number of loop indices in scope.
  Expr getExpr(const OJson &j, const std::string &path, uint32_t loopDepth) const;
  Value getValue(const OJson &j, const std::string &path, uint32_t loopDepth) const;
  RankList getRanks(const OJson &j, const std::string &path) const;
  RankList parseRanks(const OJson &j, const std::string &path) const;
  ElasticValue getElastic(const OJson &j, const std::string &path, const RankList &nodeRanks, uint32_t loopDepth) const;
  /// The entries' rank lists are disjoint and cover exactly the node's ranks.
  void checkPartition(const ElasticValue &ev, const RankList &nodeRanks, const std::string &path) const;
  TimingStats getStats(const OJson &j, const std::string &path) const;
  std::vector<RankTiming> getRankTiming(const OJson &j, const std::string &path, const RankList &nodeRanks) const;
  ObjectEntry getObject(const OJson &j, const std::string &path) const;
  std::vector<Node> getBody(const OJson &j, const std::string &path, const RankList *enclosing,
                            uint32_t loopDepth) const;
  Node getNode(const OJson &j, const std::string &path, const RankList *enclosing, uint32_t loopDepth) const;
  void checkReference(const Param &p, const std::string &path, uint32_t loopDepth) const;
  FileEntry readFile(const OJson &fj, const std::string &path);
  OJson parseRoot(const std::string &text);

  std::string file_;
  int64_t nranks_ = 1;
  std::set<int64_t> fileIds_, datatypeIds_;
  std::map<int64_t, uint32_t> fileLoopDepth_; ///< loop indices a file's name uses
  mutable std::map<std::string, RankList> rankCache_;
  /// The files table, read while parsing (parseRoot): a trace with 100,000
  /// files never holds their DOM. The first error is kept for its turn.
  bool streamedFiles_ = false;
  std::vector<FileEntry> files_;
  std::exception_ptr filesError_;
  /// The long strings cut out of the text (cutLongStrings), views into it.
  std::vector<std::string_view> cut_;
};

/// Parses the document; the entries of the top-level "files" array are read
/// as each one ends and left out of the DOM (they are what grows with a
/// run's distinct files). Errors in them surface where read() would have
/// found them: the first failing entry, after the checks before the table.
OJson Reader::parseRoot(const std::string &text) {
  std::string key;      // the current key of the root object
  bool inFiles = false; // inside the root's "files" array
  size_t index = 0;     // its next entry
  // Open containers, innermost last, for refusing a key an object already
  // has: nlohmann keeps the last value silently, so a trace could mean one
  // thing to sio and another to any other JSON reader. Frames are reused
  // (cleared, not freed), so the cost is one compare per key of an object.
  struct Frame {
    bool array = false;
    size_t index = 0;              // arrays: elements begun
    std::vector<std::string> keys; // objects: keys so far, the current last
  };
  std::vector<Frame> open;
  size_t openCount = 0;
  auto pointer = [&] {
    std::string p;
    for (size_t k = 0; k + 1 < openCount; ++k)
      p = open[k].array ? at(p, open[k].index - 1) : at(p, open[k].keys.back());
    return p;
  };
  auto begin = [&](bool array) {
    if (openCount && open[openCount - 1].array)
      ++open[openCount - 1].index;
    if (open.size() == openCount)
      open.emplace_back();
    Frame &f = open[openCount++];
    f.array = array;
    f.index = 0;
    f.keys.clear();
  };
  auto callback = [&](int depth, OJson::parse_event_t event, OJson &parsed) -> bool {
    using E = OJson::parse_event_t;
    switch (event) {
    case E::object_start:
    case E::array_start:
      begin(event == E::array_start);
      break;
    case E::object_end:
    case E::array_end:
      --openCount;
      break;
    case E::value:
      if (openCount && open[openCount - 1].array)
        ++open[openCount - 1].index;
      break;
    case E::key: {
      std::vector<std::string> &keys = open[openCount - 1].keys;
      const std::string &k = parsed.get_ref<const std::string &>();
      if (std::find(keys.begin(), keys.end(), k) != keys.end()) {
        fail(at(pointer(), k), "duplicate key \"" + echoValue(k) + "\" (each key may appear once in an object)");
      }
      keys.push_back(k);
      break;
    }
    }
    if (depth == 1 && event == E::key) {
      key = parsed.get<std::string>();
      inFiles = false;
      return true;
    }
    if (depth == 1 && event == E::array_start && key == "files") {
      inFiles = streamedFiles_ = true;
      index = 0;
      files_.clear();
      filesError_ = nullptr;
      fileIds_.clear();
      fileLoopDepth_.clear();
      return true;
    }
    if (depth == 1 && event == E::array_end)
      inFiles = false;
    if (!inFiles || depth != 2 || (event != E::object_end && event != E::array_end && event != E::value))
      return true;
    const std::string p = at("/files", index++);
    if (!filesError_) {
      try {
        files_.push_back(readFile(parsed, p));
      } catch (const TraceError &) {
        filesError_ = std::current_exception();
      }
    }
    return false;
  };
  return OJson::parse(text, callback);
}

Expr Reader::getExpr(const OJson &j, const std::string &path, uint32_t loopDepth) const {
  if (j.is_number_integer()) {
    int64_t v = getInt(j, path);
    if (v == std::numeric_limits<int64_t>::min())
      fail(path, "integer " + std::to_string(v) + " is out of range");
    return Expr(v);
  }
  if (!j.is_string())
    fail(path, "expected an integer or a formula string, found " + describe(j));
  const std::string_view text = stringOf(j); // not copied: a packed table is megabytes
  if (formulaDepth(text) > kMaxFormulaDepth)
    fail(path, "formula nests deeper than " + std::to_string(kMaxFormulaDepth) + " levels");
  Expr e;
  try {
    e = Expr::parse(text);
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const std::exception &ex) {
    // Expr::parse names the formula and the column itself.
    std::string what = ex.what();
    fail(path, what.find("formula") != std::string::npos ? what : "bad formula \"" + echoValue(text) + "\": " + what);
  }
  if (!printable(e))
    fail(path, "formula \"" + echoValue(text) + "\" has a coefficient out of range");
  if (e.loopDepthUsed() > loopDepth)
    fail(path, "formula \"" + echoValue(text) + "\" uses loop index i" + std::to_string(e.loopDepthUsed() - 1) +
                   " but only " + std::to_string(loopDepth) + " loop(s) enclose it");
  return e;
}

Value Reader::getValue(const OJson &j, const std::string &path, uint32_t loopDepth) const {
  if (j.is_object()) {
    if (j.size() != 1 || !j.contains("string"))
      fail(path, "expected {\"string\": ...} for a string value");
    return getString(j["string"], at(path, "string"));
  }
  return getExpr(j, path, loopDepth);
}

RankList Reader::getRanks(const OJson &j, const std::string &path) const {
  // Most nodes of a trace share a few rank lists; validating and
  // canonicalizing each once keeps million-rank traces fast to read.
  std::string key = j.dump();
  if (auto it = rankCache_.find(key); it != rankCache_.end())
    return it->second;
  RankList ranks = parseRanks(j, path);
  rankCache_.emplace(std::move(key), ranks);
  return ranks;
}

RankList Reader::parseRanks(const OJson &j, const std::string &path) const {
  expectArray(j, path);
  if (j.empty())
    fail(path, "empty rank list");
  std::vector<RankBlock> blocks;
  WideInt total = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string bp = at(path, i);
    const OJson &bj = j[i];
    expectObject(bj, bp);
    RankBlock b;
    b.start = getInt(require(bj, bp, "start"), at(bp, "start"), 0, kMaxRanks);
    if (b.start >= nranks_)
      fail(at(bp, "start"), "rank " + std::to_string(b.start) + " is not below nranks = " + std::to_string(nranks_));
    const OJson *stride = optional(bj, "stride");
    const OJson *count = optional(bj, "count");
    const OJson *dims = optional(bj, "dims");
    if (dims && (stride || count))
      fail(bp, "a rank block has either \"stride\"/\"count\" or \"dims\", not both");
    if (stride || count) {
      RankDim d;
      d.stride = stride ? getInt(*stride, at(bp, "stride"), 1, kMaxRanks) : 1;
      d.count = getInt(require(bj, bp, "count"), at(bp, "count"), 1, kMaxRanks);
      b.dims.push_back(d);
    } else if (dims) {
      const std::string dp = at(bp, "dims");
      expectArray(*dims, dp);
      if (dims->size() > kMaxRankDims)
        fail(dp, "more than " + std::to_string(kMaxRankDims) + " dimensions");
      for (size_t k = 0; k < dims->size(); ++k) {
        const std::string kp = at(dp, k);
        const OJson &dj = (*dims)[k];
        expectObject(dj, kp);
        RankDim d;
        d.stride = getInt(require(dj, kp, "stride"), at(kp, "stride"), 1, kMaxRanks);
        d.count = getInt(require(dj, kp, "count"), at(kp, "count"), 1, kMaxRanks);
        b.dims.push_back(d);
      }
    }
    WideInt last = b.start, size = 1;
    for (const RankDim &d : b.dims) {
      last += WideInt(d.stride) * (d.count - 1);
      size *= d.count;
      if (size > nranks_)
        break;
    }
    if (last >= nranks_ || size > nranks_)
      fail(bp, "rank block reaches beyond nranks = " + std::to_string(nranks_));
    if (!blockIsDistinct(b))
      fail(bp, "rank block names some ranks more than once");
    total += size;
    if (total > nranks_)
      fail(path, "rank list has more ranks than nranks = " + std::to_string(nranks_) + " (blocks overlap)");
    blocks.push_back(std::move(b));
  }
  try {
    return RankList::fromBlocks(std::move(blocks));
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const std::exception &ex) {
    fail(path, std::string("invalid rank list: ") + ex.what());
  }
}

ElasticValue Reader::getElastic(const OJson &j, const std::string &path, const RankList &nodeRanks,
                                uint32_t loopDepth) const {
  if (!j.is_array())
    return ElasticValue(getValue(j, path, loopDepth), nodeRanks);
  if (j.empty())
    fail(path, "empty list of (ranks, value) entries");
  ElasticValue ev;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string ep = at(path, i);
    const OJson &ej = j[i];
    expectObject(ej, ep);
    RankList ranks = getRanks(require(ej, ep, "ranks"), at(ep, "ranks"));
    ev.entries().push_back({std::move(ranks), getValue(require(ej, ep, "value"), at(ep, "value"), loopDepth)});
  }
  checkPartition(ev, nodeRanks, path);
  return ev;
}

void Reader::checkPartition(const ElasticValue &ev, const RankList &nodeRanks, const std::string &path) const {
  // One sorted pass over all ranks rather than pairwise set operations,
  // which would be quadratic in the number of entries.
  int64_t total = 0;
  for (const ElasticEntry &e : ev.entries())
    total += e.ranks.size();
  if (total > kMaxCheckedRanks || nodeRanks.size() > kMaxCheckedRanks)
    return; // too many ranks to enumerate; the blocks were checked one by one
  if (nodeRanks.size() > kMaxEnumeratedPartition) {
    // Large runs: set operations on the rank lists (their cost is in blocks,
    // not ranks), same checks and messages.
    RankList covered;
    for (size_t i = 0; i < ev.entries().size(); ++i) {
      const RankList &r = ev.entries()[i].ranks;
      RankList outside = r.subtract(nodeRanks);
      if (!outside.empty())
        fail(at(at(path, i), "ranks"),
             "rank " + std::to_string(*outside.first()) + " is not a rank of the node (" + nodeRanks.str() + ")");
      RankList twice = r.intersect(covered);
      if (!twice.empty())
        fail(at(at(path, i), "ranks"), "rank " + std::to_string(*twice.first()) + " already has a value");
      covered = covered.unite(r);
    }
    RankList missing = nodeRanks.subtract(covered);
    if (!missing.empty())
      fail(path, "no value for ranks " + missing.str());
    return;
  }
  const std::vector<int64_t> node = nodeRanks.ranks();
  std::vector<std::pair<int64_t, size_t>> all;
  all.reserve(size_t(total));
  for (size_t i = 0; i < ev.entries().size(); ++i)
    for (int64_t r : ev.entries()[i].ranks.ranks()) {
      if (!std::binary_search(node.begin(), node.end(), r))
        fail(at(at(path, i), "ranks"),
             "rank " + std::to_string(r) + " is not a rank of the node (" + nodeRanks.str() + ")");
      all.emplace_back(r, i);
    }
  std::sort(all.begin(), all.end());
  for (size_t k = 1; k < all.size(); ++k)
    if (all[k].first == all[k - 1].first)
      fail(at(at(path, all[k].second), "ranks"), "rank " + std::to_string(all[k].first) + " already has a value");
  if (all.size() != node.size()) {
    std::vector<int64_t> covered, missing;
    for (const auto &[r, i] : all)
      covered.push_back(r);
    std::set_difference(node.begin(), node.end(), covered.begin(), covered.end(), std::back_inserter(missing));
    fail(path, "no value for ranks " + RankList::fromRanks(std::move(missing)).str());
  }
}

TimingStats Reader::getStats(const OJson &j, const std::string &path) const {
  expectObject(j, path);
  uint64_t count = getUnsigned(require(j, path, "count"), at(path, "count"));
  uint64_t mn = getUnsigned(require(j, path, "min_ns"), at(path, "min_ns"));
  uint64_t mx = getUnsigned(require(j, path, "max_ns"), at(path, "max_ns"));
  double sum = getNumber(require(j, path, "sum_ns"), at(path, "sum_ns"));
  double sumSq = getNumber(require(j, path, "sumsq_ns2"), at(path, "sumsq_ns2"));
  // mean_ns and var_ns2 are derived from the sums; present for readers only.
  for (const char *derived : {"mean_ns", "var_ns2"})
    if (const OJson *d = optional(j, derived))
      getNumber(*d, at(path, derived));
  std::array<uint64_t, TimingStats::kBins> bins{};
  const std::string hp = at(path, "hist");
  const OJson &hist = require(j, path, "hist");
  auto setBin = [&](int64_t bin, uint64_t n, const std::string &where) {
    if (bins[size_t(bin)])
      fail(where, "histogram bin " + std::to_string(bin) + " appears twice");
    bins[size_t(bin)] = n;
  };
  if (hist.is_string()) { // the written form: "bin:count bin:count ..."
    const std::string &text = hist.get_ref<const std::string &>();
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find(' ', pos);
      if (end == std::string::npos)
        end = text.size();
      std::string item = text.substr(pos, end - pos);
      size_t colon = item.find(':');
      uint64_t bin = 0, n = 0;
      auto digits = [](const std::string &d, uint64_t &v) {
        if (d.empty() || d.size() > 19 || d.find_first_not_of("0123456789") != std::string::npos)
          return false;
        v = std::stoull(d);
        return true;
      };
      if (colon == std::string::npos || !digits(item.substr(0, colon), bin) || !digits(item.substr(colon + 1), n) ||
          bin >= uint64_t(TimingStats::kBins))
        fail(hp, "expected \"bin:count\" items with bins 0.." + std::to_string(TimingStats::kBins - 1) + ", found \"" +
                     echoValue(item) + "\"");
      setBin(int64_t(bin), n, hp);
      pos = end + 1;
    }
  } else { // also accepted: [[bin, count], ...]
    expectArray(hist, hp);
    for (size_t i = 0; i < hist.size(); ++i) {
      const std::string ip = at(hp, i);
      const OJson &pair = hist[i];
      if (!pair.is_array() || pair.size() != 2)
        fail(ip, "expected a [bin, count] pair, found " + describe(pair));
      int64_t bin = getInt(pair[0], at(ip, 0), 0, TimingStats::kBins - 1);
      setBin(bin, getUnsigned(pair[1], at(ip, 1)), at(ip, 0));
    }
  }
  TimingStats stats;
  if (!stats.assign(count, mn, mx, sum, sumSq, bins))
    fail(path, "inconsistent timing statistics (count, min, max, sums and histogram disagree)");
  return stats;
}

std::vector<RankTiming> Reader::getRankTiming(const OJson &j, const std::string &path,
                                              const RankList &nodeRanks) const {
  expectArray(j, path);
  std::vector<RankTiming> out;
  RankList seen;
  int64_t total = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string gp = at(path, i);
    if (!j[i].is_string())
      fail(gp, "expected a string \"RANKS COUNT DMEAN DMIN DMAX GMEAN GMIN GMAX\", found " + describe(j[i]));
    std::string error;
    std::optional<RankTiming> g = parseRankTiming(j[i].get_ref<const std::string &>(), error);
    if (!g)
      fail(gp, error);
    if (!g->ranks.subtract(nodeRanks).empty())
      fail(gp, "ranks outside the event's ranks");
    total += g->ranks.size();
    seen = seen.unite(g->ranks);
    if (seen.size() != total)
      fail(gp, "a rank in two groups");
    out.push_back(std::move(*g));
  }
  return out;
}

ObjectEntry Reader::getObject(const OJson &j, const std::string &path) const {
  expectObject(j, path);
  ObjectEntry e;
  e.id = getInt(require(j, path, "id"), at(path, "id"));
  e.kind = getString(require(j, path, "kind"), at(path, "kind"));
  if (const OJson *n = optional(j, "name"))
    e.name = getString(*n, at(path, "name"));
  if (const OJson *f = optional(j, "fields")) {
    const std::string fp = at(path, "fields");
    expectObject(*f, fp);
    for (auto it = f->begin(); it != f->end(); ++it) {
      const std::string kp = at(fp, it.key());
      expectArray(it.value(), kp);
      std::vector<Expr> values;
      for (size_t i = 0; i < it.value().size(); ++i)
        values.push_back(getExpr(it.value()[i], at(kp, i), 0));
      e.fields[it.key()] = std::move(values);
    }
  }
  if (const OJson *s = optional(j, "strings")) {
    const std::string sp = at(path, "strings");
    expectObject(*s, sp);
    for (auto it = s->begin(); it != s->end(); ++it)
      e.strings[it.key()] = getString(it.value(), at(sp, it.key()));
  }
  if (const OJson *s = optional(j, "site"))
    e.site = getId(*s, at(path, "site"), false);
  if (const OJson *s = optional(j, "serial"))
    e.serial = getInt(*s, at(path, "serial"), 0);
  if (const OJson *r = optional(j, "ranks"))
    e.ranks = getRanks(*r, at(path, "ranks"));
  return e;
}

void Reader::checkReference(const Param &p, const std::string &path, uint32_t loopDepth) const {
  const std::set<int64_t> *table = nullptr;
  const char *tableName = nullptr;
  if (isFileParam(p.name)) {
    table = &fileIds_;
    tableName = "files";
  } else if (p.name == "datatype" || p.name == "etype" || p.name == "filetype" || p.name == "oldtype") {
    table = &datatypeIds_;
    tableName = "datatypes";
  } else {
    return;
  }
  // Only constant references are checked: a rank-dependent id is a formula
  // whose range is not worth proving here.
  for (const ElasticEntry &e : p.value.entries()) {
    const Expr *x = std::get_if<Expr>(&e.value);
    if (!x)
      fail(path, "expected an id of the " + std::string(tableName) + " table, found a string");
    auto id = x->constantValue();
    if (id && !table->count(*id))
      fail(path, std::to_string(*id) + " is not an id of the " + tableName + " table");
    if (id && table == &fileIds_)
      if (auto d = fileLoopDepth_.find(*id); d != fileLoopDepth_.end() && d->second > loopDepth)
        fail(path, "file " + std::to_string(*id) + " has a name field in loop index i" + std::to_string(d->second - 1) +
                       " but only " + std::to_string(loopDepth) + " loop(s) enclose this call");
  }
}

Node Reader::getNode(const OJson &j, const std::string &path, const RankList *enclosing, uint32_t loopDepth) const {
  expectObject(j, path);
  Node node;
  node.ranks = getRanks(require(j, path, "ranks"), at(path, "ranks"));
  if (enclosing && !(node.ranks == *enclosing) && node.ranks.size() <= kMaxCheckedRanks &&
      enclosing->size() <= kMaxCheckedRanks) {
    RankList outside = node.ranks.subtract(*enclosing);
    if (!outside.empty())
      fail(at(path, "ranks"),
           "ranks " + outside.str() + " are not ranks of the enclosing loop (" + enclosing->str() + ")");
  }
  const OJson *op = optional(j, "event");
  const OJson *loopId = optional(j, "loop");
  if (op && loopId)
    fail(path, "a node has either \"event\" or \"loop\", not both");
  if (op) {
    Event ev;
    ev.op = getString(*op, at(path, "event"));
    if (ev.op.empty())
      fail(at(path, "event"), "empty operation name");
    const std::string lp = at(path, "layer");
    std::string layer = getString(require(j, path, "layer"), lp);
    auto l = layerFromName(layer);
    if (!l) {
      std::string known;
      for (Layer k : {Layer::MPIIO, Layer::POSIX, Layer::STDIO, Layer::SYNC})
        known += (known.empty() ? "" : ", ") + std::string(layerName(k));
      fail(lp, "unknown layer \"" + echoValue(layer) + "\" (expected one of " + known + ")");
    }
    ev.layer = *l;
    if (const OJson *s = optional(j, "site"))
      ev.site = getId(*s, at(path, "site"), true);
    if (const OJson *in = optional(j, "inner"))
      ev.inner = getBool(*in, at(path, "inner"));
    if (const OJson *params = optional(j, "params")) {
      const std::string pp = at(path, "params");
      expectObject(*params, pp);
      for (auto it = params->begin(); it != params->end(); ++it) {
        const std::string kp = at(pp, it.key());
        Param p{it.key(), getElastic(it.value(), kp, node.ranks, loopDepth)};
        checkReference(p, kp, loopDepth);
        ev.params.push_back(std::move(p));
      }
    }
    if (const OJson *c = optional(j, "compute"))
      ev.compute = getStats(*c, at(path, "compute"));
    if (const OJson *d = optional(j, "duration"))
      ev.duration = getStats(*d, at(path, "duration"));
    if (const OJson *rt = optional(j, "rank_timing"))
      ev.rankTiming = getRankTiming(*rt, at(path, "rank_timing"), node.ranks);
    node.item = std::move(ev);
    return node;
  }
  if (!loopId && !j.contains("iterations"))
    fail(path, "a node needs \"event\" (an event) or \"loop\" (a loop)");
  Loop loop;
  if (loopId)
    loop.id = getId(*loopId, at(path, "loop"), true);
  const std::string ip = at(path, "iterations");
  loop.iterations = getElastic(require(j, path, "iterations"), ip, node.ranks, loopDepth);
  for (const ElasticEntry &e : loop.iterations.entries()) {
    const Expr *x = std::get_if<Expr>(&e.value);
    if (!x)
      fail(ip, "iterations must be an integer or a formula, found a string");
    if (auto c = x->constantValue(); c && *c < 0)
      fail(ip, "negative iteration count " + std::to_string(*c));
  }
  loop.body = getBody(require(j, path, "body"), at(path, "body"), &node.ranks, loopDepth + 1);
  node.item = std::move(loop);
  return node;
}

std::vector<Node> Reader::getBody(const OJson &j, const std::string &path, const RankList *enclosing,
                                  uint32_t loopDepth) const {
  expectArray(j, path);
  std::vector<Node> body;
  body.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i)
    body.push_back(getNode(j[i], at(path, i), enclosing, loopDepth));
  return body;
}

FileEntry Reader::readFile(const OJson &fj, const std::string &p) {
  expectObject(fj, p);
  FileEntry f;
  f.id = getInt(require(fj, p, "id"), at(p, "id"));
  if (!fileIds_.insert(f.id).second)
    fail(at(p, "id"), "duplicate file id " + std::to_string(f.id));
  // "format" is a rendering of "name" for people; "name" is authoritative.
  const std::string np = at(p, "name");
  const OJson &name = require(fj, p, "name");
  expectArray(name, np);
  for (size_t k = 0; k < name.size(); ++k) {
    const std::string kp = at(np, k);
    const OJson &part = name[k];
    expectObject(part, kp);
    FileNamePart fp;
    const OJson *text = optional(part, "text");
    const OJson *field = optional(part, "field");
    if (bool(text) == bool(field))
      fail(kp, "a name part has exactly one of \"text\" and \"field\"");
    if (text) {
      fp.text = getString(*text, at(kp, "text"));
    } else {
      // Loop indices are those of the calls that use the file (checked there).
      fp.field = getExpr(*field, at(kp, "field"), kMaxFileLoopDepth);
      fileLoopDepth_[f.id] = std::max(fileLoopDepth_[f.id], fp.field->loopDepthUsed());
      if (const OJson *w = optional(part, "width"))
        fp.width = uint32_t(getInt(*w, at(kp, "width"), 0, 64));
    }
    f.name.push_back(std::move(fp));
  }
  return f;
}

Trace Reader::read(const std::string &text, std::string *owned) {
  if (jsonDepth(text) > kMaxJsonDepth)
    fail("", "JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  OJson root;
  try {
    // Long packed formulas stay in `text` (cut_ views them), out of the
    // parser's way; the rest is parsed.
    const std::optional<std::string> skeleton = cutLongStrings(text, cut_);
    root = parseRoot(skeleton ? *skeleton : text);
  } catch (const nlohmann::json::exception &ex) {
    // Drop nlohmann's "[json.exception.parse_error.101] " tag.
    std::string msg = ex.what();
    if (auto pos = msg.find("] "); msg.starts_with("[json.exception") && pos != std::string::npos)
      msg = msg.substr(pos + 2);
    fail("", "malformed JSON: " + msg);
  }
  if (owned && cut_.empty())
    std::string().swap(*owned);
  expectObject(root, "");

  Trace t;
  TraceHeader &h = t.header;
  std::string format = getString(require(root, "", "format"), "/format");
  if (format != kFormatName)
    fail("/format", "not a sio trace (format \"" + echoValue(format) + "\", expected \"" + kFormatName + "\")");
  std::string version = getString(require(root, "", "version"), "/version");
  {
    // MAJOR.MINOR, digits only.
    auto dot = version.find('.');
    auto digits = [](std::string_view s) {
      return !s.empty() && s.size() <= 9 &&
             std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (dot == std::string::npos || !digits(std::string_view(version).substr(0, dot)) ||
        !digits(std::string_view(version).substr(dot + 1)))
      fail("/version", "malformed version \"" + echoValue(version) + "\" (expected \"MAJOR.MINOR\")");
    h.version.major = uint32_t(std::stoul(version.substr(0, dot)));
    h.version.minor = uint32_t(std::stoul(version.substr(dot + 1)));
    if (h.version.major != kFormatVersion.major)
      fail("/version", "unsupported version " + echoValue(version) + " (this reader supports " +
                           std::to_string(kFormatVersion.major) + ".x)");
  }
  nranks_ = getInt(require(root, "", "nranks"), "/nranks", 1, kMaxRanks);
  h.nranks = nranks_;
  if (const OJson *v = optional(root, "generator"))
    h.generator = getString(*v, "/generator");
  if (const OJson *v = optional(root, "program"))
    h.program = getString(*v, "/program");
  if (const OJson *v = optional(root, "command_line"))
    h.commandLine = getStrings(*v, "/command_line");
  if (const OJson *v = optional(root, "complete"))
    h.complete = getBool(*v, "/complete");
  if (const OJson *v = optional(root, "dropped_events"))
    h.droppedEvents = getUnsigned(*v, "/dropped_events");
  if (const OJson *v = optional(root, "notes"))
    h.notes = getStrings(*v, "/notes");
  if (const OJson *v = optional(root, "inexact"))
    h.inexact = getStrings(*v, "/inexact");
  if (const OJson *v = optional(root, "metadata")) {
    expectObject(*v, "/metadata");
    for (auto it = v->begin(); it != v->end(); ++it)
      h.metadata[it.key()] = getString(it.value(), at("/metadata", it.key()));
  }

  auto table = [&](const char *key) -> const OJson * {
    const OJson *v = optional(root, key);
    if (v)
      expectArray(*v, at("", key));
    return v;
  };

  if (const OJson *sites = table("sites")) {
    std::set<uint64_t> seen;
    for (size_t i = 0; i < sites->size(); ++i) {
      const std::string p = at("/sites", i);
      const OJson &sj = (*sites)[i];
      expectObject(sj, p);
      SiteInfo s;
      s.id = getId(require(sj, p, "id"), at(p, "id"), false);
      if (!seen.insert(s.id).second)
        fail(at(p, "id"), "duplicate site id " + formatId(s.id));
      if (const OJson *v = optional(sj, "file"))
        s.file = getString(*v, at(p, "file"));
      if (const OJson *v = optional(sj, "line"))
        s.line = uint32_t(getInt(*v, at(p, "line"), 0, UINT32_MAX));
      if (const OJson *v = optional(sj, "column"))
        s.column = uint32_t(getInt(*v, at(p, "column"), 0, UINT32_MAX));
      if (const OJson *v = optional(sj, "function"))
        s.function = getString(*v, at(p, "function"));
      if (const OJson *v = optional(sj, "callee"))
        s.callee = getString(*v, at(p, "callee"));
      if (const OJson *v = optional(sj, "loop"))
        s.loop = getId(*v, at(p, "loop"), true);
      t.sites.push_back(std::move(s));
    }
  }
  if (const OJson *loops = table("loops")) {
    std::set<uint64_t> seen;
    for (size_t i = 0; i < loops->size(); ++i) {
      const std::string p = at("/loops", i);
      const OJson &lj = (*loops)[i];
      expectObject(lj, p);
      LoopInfo l;
      l.id = getId(require(lj, p, "id"), at(p, "id"), false);
      if (!seen.insert(l.id).second)
        fail(at(p, "id"), "duplicate loop id " + formatId(l.id));
      if (const OJson *v = optional(lj, "file"))
        l.file = getString(*v, at(p, "file"));
      if (const OJson *v = optional(lj, "line"))
        l.line = uint32_t(getInt(*v, at(p, "line"), 0, UINT32_MAX));
      if (const OJson *v = optional(lj, "column"))
        l.column = uint32_t(getInt(*v, at(p, "column"), 0, UINT32_MAX));
      if (const OJson *v = optional(lj, "function"))
        l.function = getString(*v, at(p, "function"));
      if (const OJson *v = optional(lj, "parent"))
        l.parent = getId(*v, at(p, "parent"), true);
      t.loops.push_back(std::move(l));
    }
  }
  if (const OJson *files = table("files")) {
    if (streamedFiles_) {
      // Read entry by entry while parsing (parseRoot); the array is empty.
      if (filesError_)
        std::rethrow_exception(filesError_);
      t.files = std::move(files_);
    }
    for (size_t i = 0; i < files->size(); ++i)
      t.files.push_back(readFile((*files)[i], at("/files", i)));
  }
  for (auto [key, dest, ids] : {std::tuple{"datatypes", &t.datatypes, &datatypeIds_},
                                std::tuple{"comms", &t.comms, static_cast<std::set<int64_t> *>(nullptr)},
                                std::tuple{"infos", &t.infos, static_cast<std::set<int64_t> *>(nullptr)}}) {
    const OJson *arr = table(key);
    if (!arr)
      continue;
    std::set<int64_t> seen;
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string p = at(at("", key), i);
      ObjectEntry e = getObject((*arr)[i], p);
      if (!seen.insert(e.id).second)
        fail(at(p, "id"), "duplicate id " + std::to_string(e.id));
      dest->push_back(std::move(e));
    }
    if (ids)
      *ids = std::move(seen);
  }

  t.body = getBody(require(root, "", "body"), "/body", nullptr, 0);
  if (auto problem = checkHandleLifetimes(t))
    fail(problem->path, problem->message);
  return t;
}

} // namespace

namespace {

Trace readTraceText(const std::string &text, std::string *owned, const std::string &sourceName) {
  try {
    return Reader(sourceName).read(text, owned);
  } catch (const TraceError &) {
    throw;
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const std::exception &ex) {
    // A check above missed something; still report it as bad input.
    throw TraceError(sourceName, "", std::string("invalid trace: ") + ex.what());
  }
}

} // namespace

Trace readTraceString(const std::string &text, const std::string &sourceName) {
  return readTraceText(text, nullptr, sourceName);
}

Trace readTraceString(std::string &&text, const std::string &sourceName) {
  return readTraceText(text, &text, sourceName);
}

Trace readTrace(std::istream &in, const std::string &sourceName) {
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad())
    throw TraceError(sourceName, "", "read error");
  return readTraceString(buffer.str(), sourceName);
}

Trace readTraceFile(const std::string &path) {
  // A directory opens for reading on Linux and then reads as empty input:
  // say what it is rather than "malformed JSON".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw TraceError(path, "", "is a directory, not a trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TraceError(path, "", std::string("cannot open: ") + std::strerror(errno));
  return readTrace(in, path);
}

} // namespace sio::trace
