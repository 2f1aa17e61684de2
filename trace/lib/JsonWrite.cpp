// The JSON form of a trace (docs/trace-format.md): the writer. Long tables
// are streamed as they are made (StreamWriter), so a trace is never held
// whole as text.
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

namespace {

/// Tables at least this long are streamed by StreamWriter rather than made
/// a string of the JSON value (~24 KiB of text at 17 bits a value).
constexpr size_t kLongTable = 8192;

bool hasLongTable(const Expr &e) {
  for (const auto &[monomial, c] : e.terms())
    for (const auto &[atom, exp] : monomial)
      if ((atom.table && atom.table->size() >= kLongTable) || (atom.lhs && hasLongTable(*atom.lhs)) ||
          (atom.rhs && hasLongTable(*atom.rhs)))
        return true;
  return false;
}

/// Formulas with long packed tables (megabytes for a rank's random offsets)
/// stand in the JSON value as a short marker string that StreamWriter
/// recognizes and writes from the Expr in pieces: the text is never held,
/// neither in the value nor in its dump. The marker is text, not the
/// string's address: nlohmann's ordered_map copies its entries when it grows
/// (a pair with a const key has no noexcept move), so the value written may
/// be a copy of the one made (an event whose first parameter was a long table
/// lost it that way). It starts with a NUL and names its writer, so no text
/// of a trace is taken for one.
class LongStrings {
public:
  LongStrings() {
    char id[32];
    std::snprintf(id, sizeof id, "%p:", static_cast<const void *>(this));
    prefix_ = std::string("\0sio-stand-in:", 14) + id;
  }
  LongStrings(const LongStrings &) = delete;
  LongStrings &operator=(const LongStrings &) = delete;

  /// The stand-in for `e`, which must outlive the entry being written.
  std::string add(const Expr &e) {
    exprs_.push_back(&e);
    return prefix_ + std::to_string(exprs_.size() - 1);
  }
  bool isStandIn(const std::string &s) const { return s.size() > prefix_.size() && s.starts_with(prefix_); }
  /// The formula the stand-in `s` is for, once; null when `s` is not one
  /// of this entry's or was written already.
  const Expr *take(const std::string &s) {
    size_t k = 0;
    for (size_t i = prefix_.size(); i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9' || k > exprs_.size())
        return nullptr;
      k = k * 10 + size_t(s[i] - '0');
    }
    if (k >= exprs_.size() || !exprs_[k])
      return nullptr;
    ++taken_;
    return std::exchange(exprs_[k], nullptr);
  }
  bool empty() const { return exprs_.empty(); }
  bool allTaken() const { return taken_ == exprs_.size(); }
  void clear() {
    exprs_.clear();
    taken_ = 0;
  }

private:
  std::string prefix_;
  std::vector<const Expr *> exprs_; ///< by stand-in number; null once written
  size_t taken_ = 0;
};

OJson exprJson(const Expr &e, LongStrings *longStrings = nullptr) {
  if (auto c = e.constantValue())
    return *c;
  if (longStrings && hasLongTable(e))
    return longStrings->add(e);
  return e.packedStr();
}

OJson valueJson(const Value &v, LongStrings *longStrings) {
  if (const auto *s = std::get_if<std::string>(&v)) {
    OJson o = OJson::object();
    o["string"] = *s;
    return o;
  }
  return exprJson(std::get<Expr>(v), longStrings);
}

OJson ranksJson(const RankList &ranks) {
  OJson out = OJson::array();
  for (const RankBlock &b : ranks.blocks()) {
    OJson o = OJson::object();
    o["start"] = b.start;
    if (b.dims.size() == 1) {
      o["stride"] = b.dims[0].stride;
      o["count"] = b.dims[0].count;
    } else if (!b.dims.empty()) {
      OJson dims = OJson::array();
      for (const RankDim &d : b.dims)
        dims.push_back(OJson{{"stride", d.stride}, {"count", d.count}});
      o["dims"] = std::move(dims);
    }
    out.push_back(std::move(o));
  }
  return out;
}

/// A value that holds for every rank of its node is written bare; anything
/// else as the list of (ranks, value) entries.
OJson elasticJson(const ElasticValue &ev, const RankList &nodeRanks, LongStrings *longStrings) {
  if (ev.entries().size() == 1 && ev.entries()[0].ranks == nodeRanks)
    return valueJson(ev.entries()[0].value, longStrings);
  OJson out = OJson::array();
  for (const ElasticEntry &e : ev.entries()) {
    OJson o = OJson::object();
    o["ranks"] = ranksJson(e.ranks);
    o["value"] = valueJson(e.value, longStrings);
    out.push_back(std::move(o));
  }
  return out;
}

OJson statsJson(const TimingStats &s) {
  OJson o = OJson::object();
  o["count"] = s.count();
  o["min_ns"] = s.min();
  o["max_ns"] = s.max();
  // Derived, for people (the reader recomputes them): whole nanoseconds, so
  // that noise in the last digits does not make traces of equal runs differ
  // in size.
  o["mean_ns"] = std::llround(s.mean());
  o["var_ns2"] = std::llround(s.variance());
  o["sum_ns"] = s.sum();
  o["sumsq_ns2"] = s.sumOfSquares();
  // One line "bin:count ..." rather than an array: pretty-printed arrays take
  // a line per element, and the trace's size must not grow with the spread
  // of its timings.
  std::string hist;
  for (int b = 0; b < TimingStats::kBins; ++b)
    if (uint64_t n = s.histogram()[size_t(b)])
      hist += (hist.empty() ? "" : " ") + std::to_string(b) + ":" + std::to_string(n);
  o["hist"] = std::move(hist);
  return o;
}

// One line per group ("RANKS COUNT DMEAN DMIN DMAX GMEAN GMIN GMAX"): a
// trace of many groups stays short, as the histograms' one-line form.
OJson rankTimingJson(const std::vector<RankTiming> &groups) {
  OJson out = OJson::array();
  for (const RankTiming &g : groups)
    out.push_back(rankTimingText(g));
  return out;
}

OJson objectJson(const ObjectEntry &e, LongStrings *longStrings) {
  OJson o = OJson::object();
  o["id"] = e.id;
  o["kind"] = e.kind;
  if (!e.name.empty())
    o["name"] = e.name;
  if (!e.fields.empty()) {
    OJson f = OJson::object();
    for (const auto &[name, values] : e.fields) {
      OJson arr = OJson::array();
      for (const Expr &v : values)
        arr.push_back(exprJson(v, longStrings));
      f[name] = std::move(arr);
    }
    o["fields"] = std::move(f);
  }
  if (!e.strings.empty()) {
    OJson s = OJson::object();
    for (const auto &[k, v] : e.strings)
      s[k] = v;
    o["strings"] = std::move(s);
  }
  if (e.site)
    o["site"] = formatId(e.site);
  if (e.serial >= 0)
    o["serial"] = e.serial;
  if (!e.ranks.empty())
    o["ranks"] = ranksJson(e.ranks);
  return o;
}

OJson bodyJson(const std::vector<Node> &body, LongStrings *longStrings);

OJson nodeJson(const Node &node, LongStrings *longStrings) {
  OJson o = OJson::object();
  if (node.isEvent()) {
    const Event &ev = node.event();
    o["event"] = ev.op;
    o["layer"] = std::string(layerName(ev.layer));
    if (ev.site)
      o["site"] = formatId(ev.site);
    o["inner"] = ev.inner;
    o["ranks"] = ranksJson(node.ranks);
    OJson params = OJson::object();
    for (const Param &p : ev.params)
      params[p.name] = elasticJson(p.value, node.ranks, longStrings);
    o["params"] = std::move(params);
    if (ev.compute.count())
      o["compute"] = statsJson(ev.compute);
    if (ev.duration.count())
      o["duration"] = statsJson(ev.duration);
    if (!ev.rankTiming.empty())
      o["rank_timing"] = rankTimingJson(ev.rankTiming);
  } else {
    const Loop &loop = node.loop();
    if (loop.id)
      o["loop"] = formatId(loop.id);
    else
      o["loop"] = 0;
    o["ranks"] = ranksJson(node.ranks);
    o["iterations"] = elasticJson(loop.iterations, node.ranks, longStrings);
    o["body"] = bodyJson(loop.body, longStrings);
  }
  return o;
}

OJson bodyJson(const std::vector<Node> &body, LongStrings *longStrings) {
  OJson out = OJson::array();
  for (const Node &n : body)
    out.push_back(nodeJson(n, longStrings));
  return out;
}

OJson traceJson(const Trace &t) {
  const TraceHeader &h = t.header;
  OJson o = OJson::object();
  o["format"] = kFormatName;
  o["version"] = std::to_string(kFormatVersion.major) + "." + std::to_string(kFormatVersion.minor);
  o["generator"] = h.generator;
  o["program"] = h.program;
  o["command_line"] = h.commandLine;
  o["nranks"] = h.nranks;
  o["complete"] = h.complete;
  o["dropped_events"] = h.droppedEvents;
  o["notes"] = h.notes;
  if (!h.inexact.empty()) // only then: exact traces keep the 1.0 form byte for byte
    o["inexact"] = h.inexact;
  OJson meta = OJson::object();
  for (const auto &[k, v] : h.metadata)
    meta[k] = v;
  o["metadata"] = std::move(meta);

  // A site and a loop both name a place in the source.
  auto place = [](const auto &p) {
    OJson j = OJson::object();
    j["id"] = formatId(p.id);
    j["file"] = p.file;
    j["line"] = p.line;
    j["column"] = p.column;
    j["function"] = p.function;
    return j;
  };
  OJson sites = OJson::array();
  for (const SiteInfo &s : t.sites) {
    OJson j = place(s);
    j["callee"] = s.callee;
    if (s.loop)
      j["loop"] = formatId(s.loop);
    sites.push_back(std::move(j));
  }
  o["sites"] = std::move(sites);

  OJson loops = OJson::array();
  for (const LoopInfo &l : t.loops) {
    OJson j = place(l);
    if (l.parent)
      j["parent"] = formatId(l.parent);
    loops.push_back(std::move(j));
  }
  o["loops"] = std::move(loops);

  // The tables that grow with the run and the body are streamed by
  // writeTraceTo, entry by entry (streamedArray): empty here.
  o["files"] = OJson::array();
  for (const char *key : {"datatypes", "comms", "infos", "body"})
    o[key] = OJson::array();
  return o;
}

OJson fileJson(const FileEntry &f, LongStrings *longStrings) {
  OJson j = OJson::object();
  j["id"] = f.id;
  j["format"] = f.formatStr();
  OJson parts = OJson::array();
  for (const FileNamePart &p : f.name) {
    OJson pj = OJson::object();
    if (p.field) {
      pj["field"] = exprJson(*p.field, longStrings);
      if (p.width)
        pj["width"] = p.width;
    } else {
      pj["text"] = p.text;
    }
    parts.push_back(std::move(pj));
  }
  j["name"] = std::move(parts);
  return j;
}

/// The number of entries of a top-level array traceJson leaves empty, and
/// the JSON of entry i; 0 entries for the other keys.
struct StreamedArray {
  size_t size = 0;
  std::function<OJson(size_t)> entry;
};

StreamedArray streamedArray(const Trace &t, const std::string &key, LongStrings *longStrings) {
  auto objects = [longStrings](const std::vector<ObjectEntry> &table) {
    return StreamedArray{table.size(), [&table, longStrings](size_t i) { return objectJson(table[i], longStrings); }};
  };
  if (key == "files")
    return {t.files.size(), [&t, longStrings](size_t i) { return fileJson(t.files[i], longStrings); }};
  if (key == "datatypes")
    return objects(t.datatypes);
  if (key == "comms")
    return objects(t.comms);
  if (key == "infos")
    return objects(t.infos);
  if (key == "body")
    return {t.body.size(), [&t, longStrings](size_t i) { return nodeJson(t.body[i], longStrings); }};
  return {};
}

/// Exactly OJson::dump's text of the whole document (pretty: indent 2), made
/// one top-level value or table entry at a time: a trace whose tables hold
/// 100,000 files never exists whole as JSON, in a DOM or in a string.
class StreamWriter {
public:
  StreamWriter(const TraceSink &sink, bool pretty) : sink_(sink), pretty_(pretty) {}

  void write(const Trace &t) {
    OJson root = traceJson(t);
    put("{");
    bool first = true;
    for (auto it = root.begin(); it != root.end(); ++it) {
      put(first ? (pretty_ ? "\n  " : "") : (pretty_ ? ",\n  " : ","));
      first = false;
      putValue(OJson(it.key()), 0);
      put(pretty_ ? ": " : ":");
      StreamedArray arr = streamedArray(t, it.key(), &longStrings_);
      if (arr.size == 0) {
        putValue(it.value(), 2);
        continue;
      }
      put("[");
      for (size_t i = 0; i < arr.size; ++i) {
        put(i == 0 ? (pretty_ ? "\n    " : "") : (pretty_ ? ",\n    " : ","));
        const OJson entry = arr.entry(i);
        if (longStrings_.empty()) {
          putValue(entry, 4);
          continue;
        }
        putTree(entry, 4);
        if (!longStrings_.allTaken())
          throw std::logic_error("sio: a long formula of the trace was lost on its way to the JSON writer");
        longStrings_.clear();
      }
      put(pretty_ ? "\n  ]" : "]");
    }
    put(pretty_ ? "\n}\n" : "}\n");
    flush();
  }

private:
  /// A value's text as it appears nested `indent` columns deep. Its text is
  /// the one copy made: lines go to put() as views of it (a packed table,
  /// megabytes on one line, is not copied again).
  void putValue(const OJson &j, int indent) {
    // Strings that are not UTF-8 (file names are bytes on POSIX) are written
    // with U+FFFD rather than making the whole trace unwritable.
    const std::string text = j.dump(pretty_ ? 2 : -1, ' ', false, OJson::error_handler_t::replace);
    if (!pretty_ || indent == 0) {
      put(text);
      return;
    }
    // Newlines only separate lines (inside strings they are escaped).
    const std::string_view all(text), pad = std::string_view(kSpaces).substr(0, size_t(indent));
    size_t from = 0;
    for (size_t nl; (nl = all.find('\n', from)) != std::string_view::npos; from = nl + 1) {
      put(all.substr(from, nl + 1 - from));
      put(pad);
    }
    put(all.substr(from));
  }
  /// putValue's text, made node by node, so that the stand-ins for long
  /// formulas (LongStrings) are written from their Exprs as they go out.
  void putTree(const OJson &j, int indent) {
    const bool container = (j.is_object() || j.is_array()) && !j.empty();
    if (!container) {
      const std::string *s = j.is_string() ? j.get_ptr<const std::string *>() : nullptr;
      if (!s || !longStrings_.isStandIn(*s)) {
        put(j.dump(pretty_ ? 2 : -1, ' ', false, OJson::error_handler_t::replace));
        return;
      }
      const Expr *e = longStrings_.take(*s);
      if (!e)
        throw std::logic_error("sio: a long formula of the trace was written twice");
      put("\"");
      // Formulas are ASCII without quotes or backslashes: nothing to escape.
      e->writePacked([this](std::string_view piece) { put(piece); });
      put("\"");
      return;
    }
    put(j.is_object() ? "{" : "[");
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      put(first ? "" : ",");
      first = false;
      if (pretty_) {
        put("\n");
        putSpaces(indent + 2);
      }
      if (j.is_object()) {
        put(OJson(it.key()).dump(-1, ' ', false, OJson::error_handler_t::replace));
        put(pretty_ ? ": " : ":");
      }
      putTree(it.value(), indent + 2);
    }
    if (pretty_) {
      put("\n");
      putSpaces(indent);
    }
    put(j.is_object() ? "}" : "]");
  }
  void putSpaces(int n) {
    for (; n > 0; n -= int(sizeof kSpaceRun - 1))
      put(std::string_view(kSpaceRun, std::min(size_t(n), sizeof kSpaceRun - 1)));
  }
  void put(std::string_view text) {
    if (buffer_.size() + text.size() > kChunk && text.size() >= kChunk / 2) {
      // A long piece goes out as it is, after what is buffered.
      flush();
      sink_(text);
      return;
    }
    buffer_ += text;
    if (buffer_.size() >= kChunk)
      flush();
  }
  void flush() {
    if (!buffer_.empty())
      sink_(buffer_);
    buffer_.clear();
  }

  static constexpr size_t kChunk = 1 << 16;
  static constexpr const char *kSpaces = "        ";
  static constexpr char kSpaceRun[] = "                                ";
  const TraceSink &sink_;
  bool pretty_;
  std::string buffer_;
  LongStrings longStrings_; ///< the stand-ins of the entry being written
};

} // namespace

void writeTraceTo(const TraceSink &sink, const Trace &trace, bool pretty) { StreamWriter(sink, pretty).write(trace); }

std::string writeTraceString(const Trace &trace) {
  std::string text;
  writeTraceTo([&](std::string_view piece) { text += piece; }, trace);
  return text;
}

void writeTrace(std::ostream &out, const Trace &trace) {
  writeTraceTo([&](std::string_view piece) { out.write(piece.data(), std::streamsize(piece.size())); }, trace);
}

void writeTraceFile(const std::string &path, const Trace &trace) {
  // Streamed: the text is written as it is made, never held whole.
  writeFileAtomically(path, [&](const TextSink &sink) { writeTraceTo(sink, trace); });
}

} // namespace sio::trace
