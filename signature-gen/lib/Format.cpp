// The two notations of Byna et al. SC08 §IV and the JSON form (docs/signatures.md).
#include "sio/signature/Signature.h"
#include "sio/trace/Printable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace sio::signature {

using nlohmann::json;

namespace {

std::string upper(std::string s) {
  for (char &c : s)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string capitalized(std::string s) {
  if (!s.empty())
    s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
  for (size_t i = 1; i < s.size(); ++i)
    if (s[i - 1] == '/')
      s[i] = char(std::toupper(static_cast<unsigned char>(s[i])));
  return s;
}

/// `524544` or `{518272, (-4096)}`.
std::string progressionText(const Progression &p) {
  if (p.isConstant())
    return std::to_string(p.first);
  return "{" + std::to_string(p.first) + ", (" + std::to_string(p.step) + ")}";
}

std::string sizeText(const SizePattern &s) {
  if (!s.regular && !s.values.empty() && s.values.size() <= 16) {
    std::string out = "{";
    for (size_t i = 0; i < s.values.size(); ++i)
      out += (i ? ", " : "") + std::to_string(s.values[i]);
    return out + "}";
  }
  if (!s.regular)
    return "{" + std::to_string(s.min) + ".." + std::to_string(s.max) + "}";
  return progressionText(s.progression);
}

/// Most frequent states shown in the text form; JSON has the whole chain.
constexpr size_t kMarkovStatesShown = 6;

std::string markovText(const MarkovChain &m) {
  // The busiest strides, each with its likeliest successors: "from: to p, to p".
  std::map<int64_t, uint64_t> totals;
  for (const auto &t : m.transitions)
    totals[t.from] += t.count;
  std::vector<std::pair<uint64_t, int64_t>> busiest;
  for (const auto &[from, n] : totals)
    busiest.emplace_back(n, from);
  std::sort(busiest.begin(), busiest.end(),
            [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (busiest.size() > kMarkovStatesShown)
    busiest.resize(kMarkovStatesShown);
  std::sort(busiest.begin(), busiest.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
  std::ostringstream out;
  out << "markov{";
  for (size_t k = 0; k < busiest.size(); ++k) {
    const int64_t from = busiest[k].second;
    out << (k ? "; " : "") << from << ":";
    int shown = 0;
    for (const auto &t : m.transitions) {
      if (t.from != from || shown >= 3)
        continue; // transitions are sorted likeliest first; three are enough to read
      char p[32];
      std::snprintf(p, sizeof p, "%.2f", double(t.count) / double(totals[from]));
      out << (shown++ ? ", " : " ") << t.to << " " << p;
    }
  }
  if (totals.size() > busiest.size())
    out << "; +" << totals.size() - busiest.size() << " more";
  out << "}";
  return out.str();
}

std::string periodText(double ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "@%.0fns", ns);
  return buf;
}

std::string componentText(const Component &c, const TraceSignature &sig, const std::optional<trace::Expr> &initial,
                          bool lone) {
  std::string out = "[";
  if (c.start) {
    const trace::Expr base = initial ? *initial : trace::Expr(sig.initialPosition);
    const std::string first = (base + trace::Expr(c.start->first)).str();
    out += c.start->isConstant() ? first : "{" + first + ", (" + std::to_string(c.start->step) + ")}";
    out += ", ";
  }
  // A nest lists its strides and counts outermost first: (outer, ..., inner).
  auto tuple = [&](auto value, const std::string &inner) {
    std::string t = "(";
    for (const NestLevel &l : c.nest)
      t += std::to_string(value(l)) + ", ";
    return t + inner + ")";
  };
  switch (c.strideKind) {
  case StrideKind::Fixed:
    out += c.nest.empty() ? std::to_string(c.stride)
                          : tuple([](const NestLevel &l) { return l.stride; }, std::to_string(c.stride));
    break;
  case StrideKind::Contiguous:
    out += "contiguous";
    break;
  case StrideKind::Markov:
    out += c.markov ? markovText(*c.markov) : "markov";
    break;
  case StrideKind::Random:
    out += "random";
    break;
  }
  out += ", " + sizeText(c.size) + ", ";
  // A lone access has no repetition: the paper writes [0, size, 0].
  if (!c.nest.empty())
    out += tuple([](const NestLevel &l) { return l.count; }, progressionText(c.count));
  else
    out += lone ? "0" : progressionText(c.count);
  if (c.periodNs)
    out += ", " + periodText(*c.periodNs);
  return out + "]";
}

json progressionJson(const Progression &p) { return json{{"first", p.first}, {"step", p.step}}; }

Progression progressionFrom(const json &j, const std::string &path) {
  if (j.is_number_integer())
    return {j.get<int64_t>(), 0};
  if (!j.is_object() || !j.contains("first") || !j["first"].is_number_integer())
    throw SignatureError(path + ": expected an integer or {\"first\", \"step\"}");
  Progression p{j["first"].get<int64_t>(), 0};
  if (j.contains("step")) {
    if (!j["step"].is_number_integer())
      throw SignatureError(path + "/step: expected an integer");
    p.step = j["step"].get<int64_t>();
  }
  return p;
}

const char *spatialKey(Spatial s) {
  switch (s) {
  case Spatial::None:
    return "none";
  case Spatial::Contiguous:
    return "contiguous";
  case Spatial::FixedStrided:
    return "fixed-strided";
  case Spatial::NegativeStrided:
    return "negative-strided";
  case Spatial::KdStrided:
    return "kd-strided";
  case Spatial::VariableStrided:
    return "variable-strided";
  case Spatial::Random:
    return "random";
  }
  return "?";
}

const char *temporalKey(Temporal t) {
  switch (t) {
  case Temporal::None:
    return "none";
  case Temporal::Periodic:
    return "periodic";
  case Temporal::Irregular:
    return "irregular";
  }
  return "?";
}

json rankListJson(const trace::RankList &ranks) {
  json out = json::array();
  for (const trace::RankBlock &b : ranks.blocks()) {
    json block{{"start", b.start}};
    if (b.dims.size() == 1) {
      block["stride"] = b.dims[0].stride;
      block["count"] = b.dims[0].count;
    } else if (!b.dims.empty()) {
      json dims = json::array();
      for (const trace::RankDim &d : b.dims)
        dims.push_back({{"stride", d.stride}, {"count", d.count}});
      block["dims"] = dims;
    }
    out.push_back(block);
  }
  return out;
}

trace::RankList rankListFrom(const json &j, const std::string &path) {
  if (!j.is_array())
    throw SignatureError(path + ": expected an array of rank blocks");
  std::vector<trace::RankBlock> blocks;
  for (size_t i = 0; i < j.size(); ++i) {
    const json &b = j[i];
    const std::string at = path + "/" + std::to_string(i);
    if (!b.is_object() || !b.contains("start") || !b["start"].is_number_integer())
      throw SignatureError(at + ": expected a rank block with an integer start");
    trace::RankBlock block;
    block.start = b["start"].get<int64_t>();
    if (b.contains("count"))
      block.dims.push_back({b.value("stride", int64_t(1)), b["count"].get<int64_t>()});
    else if (b.contains("dims"))
      for (const json &d : b["dims"])
        block.dims.push_back({d.at("stride").get<int64_t>(), d.at("count").get<int64_t>()});
    blocks.push_back(block);
  }
  try {
    return trace::RankList::fromBlocks(std::move(blocks));
  } catch (const std::exception &e) {
    throw SignatureError(path + ": " + e.what());
  }
}

const json &field(const json &j, const char *name, const std::string &path) {
  if (!j.is_object() || !j.contains(name))
    throw SignatureError(path + ": missing field '" + name + "'");
  return j[name];
}

template <typename T> T fieldAs(const json &j, const char *name, const std::string &path) {
  const json &f = field(j, name, path);
  try {
    return f.get<T>();
  } catch (const json::exception &) {
    throw SignatureError(path + "/" + name + ": wrong type");
  }
}

} // namespace

std::string operationName(Operation op) {
  switch (op) {
  case Operation::Read:
    return "read";
  case Operation::Write:
    return "write";
  case Operation::ReadWrite:
    return "read/write";
  }
  return "?";
}

std::string spatialName(Spatial spatial, int dimension) {
  switch (spatial) {
  case Spatial::None:
    return "no spatial pattern";
  case Spatial::Contiguous:
    return "contiguous";
  case Spatial::FixedStrided:
    return "non-contiguous, fixed strided";
  case Spatial::NegativeStrided:
    return "non-contiguous, negative strided";
  case Spatial::KdStrided:
    return "non-contiguous, " + std::to_string(dimension) + "d strided";
  case Spatial::VariableStrided:
    return "non-contiguous, variable strided";
  case Spatial::Random:
    return "non-contiguous, random";
  }
  return "?";
}

std::string sizeClassName(SizeClass size) {
  switch (size) {
  case SizeClass::Small:
    return "small";
  case SizeClass::Medium:
    return "medium";
  case SizeClass::Large:
    return "large";
  }
  return "?";
}

std::string traceSignatureText(const TraceSignature &sig, const std::optional<trace::Expr> &initial) {
  const bool lone = sig.components.size() == 1 && sig.components[0].count == Progression{1, 0} &&
                    sig.cycles == 1 && sig.repetitions == 1;
  std::string out = "{" + upper(operationName(sig.op)) + ", ";
  out += initial ? initial->str() : std::to_string(sig.initialPosition);
  out += ", " + std::to_string(sig.dimension()) + ", (";
  for (size_t i = 0; i < sig.components.size(); ++i)
    out += (i ? ", " : "") + componentText(sig.components[i], sig, initial, lone);
  if (sig.cycles > 1)
    out += ", " + std::to_string(sig.cycles);
  out += "), " + std::to_string(sig.repetitions) + "}";
  return out;
}

std::string patternSignatureText(const PatternSignature &sig) {
  std::string out = "{" + capitalized(operationName(sig.op)) + ", <" + spatialName(sig.spatial, sig.dimension) + ">, <";
  out += sig.repetitive ? "repetitive" : "single occurrence";
  out += ">, <" + std::string(sig.fixedSize ? "fixed size, " : "variable size, ") + sizeClassName(sig.sizeClass) + ">, <";
  switch (sig.temporal) {
  case Temporal::None:
    out += "no temporal pattern";
    break;
  case Temporal::Periodic:
    out += "periodic, " + periodText(*sig.periodNs).substr(1);
    break;
  case Temporal::Irregular:
    out += "random"; // the paper's word for irregular intervals
    break;
  }
  return out + ">}";
}

std::string reportText(const SignatureReport &report) {
  std::ostringstream out;
  out << "# sio-signature: program " << (report.program.empty() ? "?" : sio::trace::escapeControl(report.program))
      << ", " << report.nranks << (report.nranks == 1 ? " rank" : " ranks") << ", page size " << report.pageSize
      << "\n";
  for (const std::string &n : report.notes)
    out << "# note: " << sio::trace::escapeControl(n) << "\n";
  for (const SignatureGroup &g : report.groups) {
    const StreamSignature &s = g.signature;
    std::string file = s.file < 0 ? "?" : "f" + std::to_string(s.file);
    if (s.file >= 0 && size_t(s.file) < report.fileNames.size())
      file += " \"" + sio::trace::escapeControl(report.fileNames[size_t(s.file)]) + "\"";
    if (s.fileInstances > 1)
      file += " (" + std::to_string(s.fileInstances) + " files alike, each)";
    if (s.phases > 1)
      file += ", phase " + std::to_string(s.phase + 1) + " of " + std::to_string(s.phases);
    out << "\n# file " << file << ", ranks " << g.ranks.str() << ", " << operationName(s.trace.op) << ", "
        << s.accesses << (s.accesses == 1 ? " access, " : " accesses, ") << s.bytes << " bytes"
        << (g.ranks.size() > 1 ? " per rank" : "") << "\n";
    if (!g.initialPosition) {
      out << "# initial positions:";
      for (const auto &[rank, pos] : g.initialPositions)
        out << " " << rank << ": " << pos << ";";
      out << "\n";
    }
    std::string text = traceSignatureText(s.trace, g.initialPosition);
    if (!g.initialPosition) {
      // No formula fits: name the per-rank list instead of one rank's value.
      const std::string first = "{" + upper(operationName(s.trace.op)) + ", ";
      const std::string number = std::to_string(s.trace.initialPosition);
      text = first + "<per rank>" + text.substr(first.size() + number.size());
    }
    out << text << "\n" << patternSignatureText(s.pattern) << "\n";
  }
  return out.str();
}

json streamToJson(const StreamSignature &sig) {
  json components = json::array();
  for (const Component &c : sig.trace.components) {
    json jc;
    if (c.start)
      jc["start"] = progressionJson(*c.start);
    switch (c.strideKind) {
    case StrideKind::Fixed:
      jc["stride"] = {{"kind", "fixed"}, {"bytes", c.stride}};
      break;
    case StrideKind::Random:
      jc["stride"] = {{"kind", "random"}};
      break;
    case StrideKind::Contiguous:
      jc["stride"] = {{"kind", "contiguous"}};
      break;
    case StrideKind::Markov: {
      json t = json::array();
      if (c.markov)
        for (const auto &tr : c.markov->transitions)
          t.push_back({{"from", tr.from}, {"to", tr.to}, {"count", tr.count}});
      jc["stride"] = {{"kind", "markov"},
                      {"transitions", t},
                      {"distinct_strides", c.markov ? c.markov->distinctStrides : 0},
                      {"predictability", c.markov ? c.markov->predictability : 0.0},
                      {"entropy_bits", c.markov ? c.markov->entropyBits : 0.0}};
      break;
    }
    }
    jc["size"] = c.size.regular ? progressionJson(c.size.progression) : json{{"min", c.size.min}, {"max", c.size.max}};
    if (!c.size.regular && !c.size.values.empty())
      jc["size"]["values"] = c.size.values;
    if (!c.nest.empty()) {
      json levels = json::array();
      for (const NestLevel &l : c.nest)
        levels.push_back({{"stride", l.stride}, {"count", l.count}});
      jc["nest"] = levels;
    }
    jc["count"] = progressionJson(c.count);
    if (c.periodNs)
      jc["period_ns"] = *c.periodNs;
    components.push_back(jc);
  }
  const PatternSignature &p = sig.pattern;
  json temporal{{"class", temporalKey(p.temporal)}, {"samples", p.timingSamples}};
  if (p.periodNs)
    temporal["period_ns"] = *p.periodNs;
  return json{
      {"file", sig.file},
      {"file_instances", sig.fileInstances},
      {"phase", sig.phase},
      {"phases", sig.phases},
      {"operation", operationName(sig.trace.op)},
      {"accesses", sig.accesses},
      {"bytes", sig.bytes},
      {"unknown_positions", sig.unknownPositions},
      {"logical_offsets", sig.logicalOffsets},
      {"through_view", sig.throughView},
      {"truncated", sig.truncated},
      {"stable_after", sig.stableAfter ? json(*sig.stableAfter) : json(nullptr)},
      {"trace_signature",
       {{"text", traceSignatureText(sig.trace)},
        {"initial_position", sig.trace.initialPosition},
        {"dimension", sig.trace.dimension()},
        {"components", components},
        {"cycles", sig.trace.cycles},
        {"repetitions", sig.trace.repetitions}}},
      {"pattern_signature",
       {{"text", patternSignatureText(p)},
        {"operation", operationName(p.op)},
        {"spatial", spatialKey(p.spatial)},
        {"dimension", p.dimension},
        {"repetition", p.repetitive ? "repetitive" : "single"},
        {"size", {{"variability", p.fixedSize ? "fixed" : "variable"}, {"class", sizeClassName(p.sizeClass)}}},
        {"temporal", temporal}}}};
}

json toJson(const SignatureReport &report) {
  json files = json::array();
  for (size_t i = 0; i < report.fileNames.size(); ++i)
    files.push_back({{"id", i}, {"name", report.fileNames[i]}});
  json groups = json::array();
  for (const SignatureGroup &g : report.groups) {
    json j = streamToJson(g.signature);
    j["ranks"] = rankListJson(g.ranks);
    j["ranks_text"] = g.ranks.str();
    json initial;
    initial["formula"] = g.initialPosition ? json(g.initialPosition->str()) : json(nullptr);
    json byRank = json::array();
    for (const auto &[rank, pos] : g.initialPositions)
      byRank.push_back({rank, pos});
    initial["by_rank"] = byRank;
    j["initial_position"] = initial;
    j["trace_signature"]["text"] = traceSignatureText(g.signature.trace, g.initialPosition);
    groups.push_back(j);
  }
  return json{{"format", "sio-signature"}, {"version", kSignatureFormatVersion},
              {"program", report.program},   {"nranks", report.nranks},
              {"page_size", report.pageSize}, {"files", files},
              {"notes", report.notes},       {"signatures", groups}};
}

namespace {

Operation operationFrom(const std::string &name, const std::string &path) {
  for (Operation op : {Operation::Read, Operation::Write, Operation::ReadWrite})
    if (operationName(op) == name)
      return op;
  throw SignatureError(path + ": unknown operation '" + name + "'");
}

StreamSignature streamFromJson(const json &j, const std::string &path) {
  StreamSignature s;
  s.file = fieldAs<int64_t>(j, "file", path);
  auto optional = [&](const char *name, uint64_t fallback) {
    return j.contains(name) ? fieldAs<uint64_t>(j, name, path) : fallback;
  };
  s.fileInstances = optional("file_instances", 1);
  s.phase = optional("phase", 0);
  s.phases = optional("phases", 1);
  if (s.fileInstances == 0 || s.phases == 0 || s.phase >= s.phases)
    throw SignatureError(path + ": file_instances and phases must be positive and phase below phases");
  s.accesses = fieldAs<uint64_t>(j, "accesses", path);
  s.bytes = fieldAs<int64_t>(j, "bytes", path);
  s.unknownPositions = j.value("unknown_positions", uint64_t(0));
  s.logicalOffsets = j.value("logical_offsets", false);
  s.throughView = j.value("through_view", false);
  s.truncated = j.value("truncated", false);
  if (j.contains("stable_after") && j["stable_after"].is_number_unsigned())
    s.stableAfter = j["stable_after"].get<uint64_t>();
  const Operation op = operationFrom(fieldAs<std::string>(j, "operation", path), path + "/operation");
  const std::string tp = path + "/trace_signature";
  const json &t = field(j, "trace_signature", path);
  s.trace.op = op;
  s.trace.initialPosition = fieldAs<int64_t>(t, "initial_position", tp);
  s.trace.cycles = fieldAs<int64_t>(t, "cycles", tp);
  s.trace.repetitions = fieldAs<int64_t>(t, "repetitions", tp);
  const json &comps = field(t, "components", tp);
  if (!comps.is_array())
    throw SignatureError(tp + "/components: expected an array");
  for (size_t i = 0; i < comps.size(); ++i) {
    const json &jc = comps[i];
    const std::string cp = tp + "/components/" + std::to_string(i);
    Component c;
    if (jc.contains("start"))
      c.start = progressionFrom(jc["start"], cp + "/start");
    const json &stride = field(jc, "stride", cp);
    const std::string kind = fieldAs<std::string>(stride, "kind", cp + "/stride");
    if (kind == "fixed") {
      c.strideKind = StrideKind::Fixed;
      c.stride = fieldAs<int64_t>(stride, "bytes", cp + "/stride");
    } else if (kind == "random") {
      c.strideKind = StrideKind::Random;
    } else if (kind == "contiguous") {
      c.strideKind = StrideKind::Contiguous;
    } else if (kind == "markov") {
      c.strideKind = StrideKind::Markov;
      MarkovChain m;
      for (const json &tr : field(stride, "transitions", cp + "/stride"))
        m.transitions.push_back({fieldAs<int64_t>(tr, "from", cp + "/stride/transitions"),
                                 fieldAs<int64_t>(tr, "to", cp + "/stride/transitions"),
                                 fieldAs<uint64_t>(tr, "count", cp + "/stride/transitions")});
      m.distinctStrides = stride.value("distinct_strides", uint64_t(0));
      m.predictability = stride.value("predictability", 0.0);
      m.entropyBits = stride.value("entropy_bits", 0.0);
      c.markov = m;
    } else {
      throw SignatureError(cp + "/stride/kind: unknown stride kind '" + kind + "'");
    }
    const json &size = field(jc, "size", cp);
    if (size.is_object() && size.contains("min")) {
      c.size.regular = false;
      c.size.min = fieldAs<int64_t>(size, "min", cp + "/size");
      c.size.max = fieldAs<int64_t>(size, "max", cp + "/size");
      if (size.contains("values"))
        c.size.values = fieldAs<std::vector<int64_t>>(size, "values", cp + "/size");
    } else {
      c.size.progression = progressionFrom(size, cp + "/size");
    }
    c.count = progressionFrom(field(jc, "count", cp), cp + "/count");
    if (jc.contains("nest")) {
      if (!jc["nest"].is_array() || jc["nest"].size() > 64)
        throw SignatureError(cp + "/nest: expected an array of at most 64 levels");
      for (const json &l : jc["nest"]) {
        NestLevel level{fieldAs<int64_t>(l, "stride", cp + "/nest"), fieldAs<int64_t>(l, "count", cp + "/nest")};
        if (level.count < 1)
          throw SignatureError(cp + "/nest: a level's count must be positive");
        c.nest.push_back(level);
      }
    }
    if (jc.contains("period_ns"))
      c.periodNs = jc["period_ns"].get<double>();
    s.trace.components.push_back(c);
  }
  const std::string pp = path + "/pattern_signature";
  const json &p = field(j, "pattern_signature", path);
  s.pattern.op = op;
  const std::string spatial = fieldAs<std::string>(p, "spatial", pp);
  bool known = false;
  for (Spatial sp : {Spatial::None, Spatial::Contiguous, Spatial::FixedStrided, Spatial::NegativeStrided,
                     Spatial::KdStrided, Spatial::VariableStrided, Spatial::Random})
    if (spatial == spatialKey(sp)) {
      s.pattern.spatial = sp;
      known = true;
    }
  if (!known)
    throw SignatureError(pp + "/spatial: unknown class '" + spatial + "'");
  s.pattern.dimension = fieldAs<int>(p, "dimension", pp);
  s.pattern.repetitive = fieldAs<std::string>(p, "repetition", pp) == "repetitive";
  const json &size = field(p, "size", pp);
  s.pattern.fixedSize = fieldAs<std::string>(size, "variability", pp + "/size") == "fixed";
  const std::string cls = fieldAs<std::string>(size, "class", pp + "/size");
  known = false;
  for (SizeClass sc : {SizeClass::Small, SizeClass::Medium, SizeClass::Large})
    if (cls == sizeClassName(sc)) {
      s.pattern.sizeClass = sc;
      known = true;
    }
  if (!known)
    throw SignatureError(pp + "/size/class: unknown class '" + cls + "'");
  const json &temporal = field(p, "temporal", pp);
  const std::string tc = fieldAs<std::string>(temporal, "class", pp + "/temporal");
  known = false;
  for (Temporal tt : {Temporal::None, Temporal::Periodic, Temporal::Irregular})
    if (tc == temporalKey(tt)) {
      s.pattern.temporal = tt;
      known = true;
    }
  if (!known)
    throw SignatureError(pp + "/temporal/class: unknown class '" + tc + "'");
  s.pattern.timingSamples = temporal.value("samples", uint64_t(0));
  if (temporal.contains("period_ns"))
    s.pattern.periodNs = temporal["period_ns"].get<double>();
  return s;
}

} // namespace

SignatureReport reportFromJson(const json &j) {
  if (!j.is_object() || j.value("format", "") != "sio-signature")
    throw SignatureError("/format: not a sio-signature document");
  const std::string version = fieldAs<std::string>(j, "version", "");
  if (version.substr(0, version.find('.')) != "1")
    throw SignatureError("/version: unsupported version " + version + " (this reader supports 1.x)");
  SignatureReport r;
  r.program = j.value("program", "");
  r.nranks = fieldAs<int64_t>(j, "nranks", "");
  r.pageSize = j.value("page_size", int64_t(4096));
  if (j.contains("files"))
    for (const json &f : j["files"]) {
      const int64_t id = fieldAs<int64_t>(f, "id", "/files");
      if (id < 0 || id > 1'000'000)
        throw SignatureError("/files: file id out of range");
      if (r.fileNames.size() <= size_t(id))
        r.fileNames.resize(size_t(id) + 1);
      r.fileNames[size_t(id)] = f.value("name", "");
    }
  if (j.contains("notes"))
    r.notes = j["notes"].get<std::vector<std::string>>();
  const json &sigs = field(j, "signatures", "");
  if (!sigs.is_array())
    throw SignatureError("/signatures: expected an array");
  for (size_t i = 0; i < sigs.size(); ++i) {
    const std::string path = "/signatures/" + std::to_string(i);
    SignatureGroup g;
    g.signature = streamFromJson(sigs[i], path);
    g.ranks = rankListFrom(field(sigs[i], "ranks", path), path + "/ranks");
    const json &initial = field(sigs[i], "initial_position", path);
    if (initial.contains("formula") && initial["formula"].is_string()) {
      try {
        g.initialPosition = trace::Expr::parse(initial["formula"].get<std::string>());
      } catch (const std::exception &e) {
        throw SignatureError(path + "/initial_position/formula: " + e.what());
      }
    }
    if (initial.contains("by_rank"))
      for (const json &p : initial["by_rank"])
        g.initialPositions.emplace_back(p.at(0).get<int64_t>(), p.at(1).get<int64_t>());
    r.groups.push_back(std::move(g));
  }
  return r;
}

} // namespace sio::signature
