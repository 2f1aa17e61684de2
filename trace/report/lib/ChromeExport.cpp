// Chrome trace event format ("JSON Object Format" of the Trace Event Format
// document): one process (the program), one thread per rank, one complete
// ("X") event per call with its parameters as args. Written as a stream so a
// million calls need no document in memory.
#include "sio/report/Export.h"

#include "sio/report/Expand.h"

#include <cstdio>
#include <ostream>

namespace sio::report {

using namespace sio::trace;

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else if (c < 0x80) {
      out += char(c);
    } else {
      // Keep valid UTF-8 sequences, replace anything else.
      size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      bool ok = len && i + len <= s.size();
      for (size_t k = 1; ok && k < len; ++k)
        ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
      if (ok) {
        out.append(s.substr(i, len));
        i += len - 1;
      } else {
        out += "\\ufffd";
      }
    }
  }
  return out + "\"";
}

namespace {

std::string micros(double ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1000.0);
  return buf;
}

std::string location(const Trace &t, uint64_t site) {
  if (const SiteInfo *s = t.site(site))
    return s->file + ":" + std::to_string(s->line) + ":" + std::to_string(s->column);
  return site ? formatId(site) : "";
}

} // namespace

ExportStats writeChromeTrace(std::ostream &out, const Trace &trace, const ExportOptions &options) {
  ExportStats stats;
  const int64_t nranks = trace.header.nranks;
  const std::vector<int64_t> ranks =
      sampleRanks(nranks, options.maxRanks > 0 ? options.maxRanks : nranks);
  stats.ranks = int64_t(ranks.size());
  stats.sampled = stats.ranks < nranks;
  const std::string program = trace.header.program.empty() ? "(unknown)" : trace.header.program;

  out << "{\"traceEvents\":[\n";
  out << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":"
      << jsonString(program + " (" + std::to_string(nranks) + " ranks)") << "}}";
  bool anyReconstructed = false, anyUntimed = false, anyPerRank = false, anyMerged = false, anyNested = false;
  for (int64_t r : ranks) {
    out << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" << r
        << ",\"args\":{\"name\":\"rank " << r << "\"}}";
    out << ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":" << r
        << ",\"args\":{\"sort_index\":" << r << "}}";
    bool complete = expandRank(trace, r, options.maxCallsPerRank, [&](const Call &c) {
      const Event &ev = *c.event;
      ++stats.calls;
      if (isIoOperation(c))
        ++stats.ioOperations;
      anyReconstructed |= c.reconstructed;
      anyUntimed |= !c.timed;
      anyPerRank |= c.perRank;
      anyMerged |= c.timed && !c.perRank;
      anyNested |= c.parentSeq.has_value();
      out << ",\n{\"name\":" << jsonString(ev.op) << ",\"cat\":\"" << layerName(ev.layer)
          << (ev.inner ? ",inner" : "") << "\",\"ph\":\"X\",\"pid\":0,\"tid\":" << r
          << ",\"ts\":" << micros(c.startNs) << ",\"dur\":" << micros(c.durationNs) << ",\"args\":{";
      out << "\"seq\":" << c.seq;
      for (const Param &p : ev.params)
        out << "," << jsonString(p.name) << ":" << jsonString(paramText(trace, c, p));
      if (c.file)
        if (const FileEntry *f = trace.file(*c.file))
          if (auto name = f->nameFor(r, nranks, c.indices))
            out << ",\"path\":" << jsonString(*name);
      if (c.offset)
        out << ",\"position\":" << *c.offset;
      if (c.bytes)
        out << ",\"bytes\":" << *c.bytes;
      if (ev.site)
        out << ",\"site\":" << jsonString(location(trace, ev.site));
      if (ev.inner)
        out << ",\"inner\":true";
      if (c.parentSeq)
        out << ",\"parent_seq\":" << *c.parentSeq;
      out << ",\"timing\":\"" << (!c.timed ? "nominal" : c.reconstructed ? "reconstructed" : "recorded") << "\"";
      if (c.timed)
        out << ",\"timing_source\":\"" << (c.perRank ? "this rank" : "all ranks merged") << "\"";
      out << "}}";
    });
    stats.truncated |= !complete;
  }
  out << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
  out << "\"generator\":\"sio-trace export\",\"program\":" << jsonString(program) << ",\"nranks\":" << nranks
      << ",\"ranks_exported\":" << stats.ranks << ",\"rank_selection\":\""
      << (stats.sampled ? "evenly spaced sample (--max-ranks)" : "all") << "\",\"calls_exported\":" << stats.calls
      << ",\"truncated\":" << (stats.truncated ? "true" : "false")
      << ",\"source_complete\":" << (trace.header.complete ? "true" : "false")
      << ",\"timestamps\":\"reconstructed\",\"per_rank_timing\":" << (anyPerRank ? "true" : "false");
  const std::string timing = timelineTimingNote(
      trace, {anyPerRank, anyMerged, anyReconstructed, anyNested, anyUntimed}, "args.timing_source", "args.timing",
      "args.inner", "args.parent_seq");
  out << ",\"timing\":" << jsonString(timing) << "}}\n";
  if (!out)
    throw std::runtime_error("cannot write the Chrome trace");
  return stats;
}

} // namespace sio::report
