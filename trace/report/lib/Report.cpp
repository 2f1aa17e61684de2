// The HTML report (docs/report.md). Aggregates come from the trace library's
// summary (so they equal `sio-trace stats`), per-call pictures from rank
// expansion (Expand.h) bounded by ReportOptions, signatures from
// signature-gen. Sections are written in order into one stream.
#include "sio/report/Report.h"

#include "Svg.h"
#include "sio/report/Expand.h"
#include "sio/signature/Signature.h"
#include "sio/trace/Fit.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace sio::report {

using namespace sio::trace;
namespace sg = sio::signature;

std::string escapeHtml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
    case '&':
      out += "&amp;";
      continue;
    case '<':
      out += "&lt;";
      continue;
    case '>':
      out += "&gt;";
      continue;
    case '"':
      out += "&quot;";
      continue;
    case '\'':
      out += "&#39;";
      continue;
    default:
      break;
    }
    if (c < 0x80) {
      // XML 1.0 allows only tab, newline and carriage return below 0x20.
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
        out += "\xef\xbf\xbd";
      else
        out += char(c);
      continue;
    }
    size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool ok = len && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && len == 3) {
      // No surrogates, no overlong forms, no U+FFFE/U+FFFF (not XML characters).
      unsigned cp = (c & 0x0fu) << 12 | (static_cast<unsigned char>(s[i + 1]) & 0x3fu) << 6 |
                    (static_cast<unsigned char>(s[i + 2]) & 0x3fu);
      ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) && cp != 0xfffe && cp != 0xffff;
    } else if (ok && len == 4) {
      unsigned cp = (c & 0x07u) << 18 | (static_cast<unsigned char>(s[i + 1]) & 0x3fu) << 12;
      ok = cp >= 0x10000 && cp <= 0x10ffff;
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len - 1;
    } else {
      out += "\xef\xbf\xbd";
    }
  }
  return out;
}

namespace {

std::string esc(std::string_view s) { return escapeHtml(s); }

double toD(const Rational &r) { return double(r.num()) / double(r.den()); }

std::string siteAnchor(uint64_t id) { return "site-" + formatId(id); }
std::string loopAnchor(uint64_t id) { return "loop-" + formatId(id); }

std::string siteLocation(const Trace &t, uint64_t id) {
  if (const SiteInfo *s = t.site(id))
    return s->file + ":" + std::to_string(s->line) + ":" + std::to_string(s->column);
  return id ? "site " + formatId(id) : "unknown site";
}

std::string loopLocation(const Trace &t, uint64_t id) {
  if (const LoopInfo *l = t.loopInfo(id))
    return l->file + ":" + std::to_string(l->line) + ":" + std::to_string(l->column);
  return id ? "loop " + formatId(id) : "loop found by the runtime";
}

std::string fileLabel(const Trace &t, int64_t id) {
  if (const FileEntry *f = t.file(id))
    return f->formatStr();
  return "f" + std::to_string(id);
}

std::string layerTitle(Layer l) {
  switch (l) {
  case Layer::MPIIO:
    return "MPI-IO";
  case Layer::POSIX:
    return "POSIX";
  case Layer::STDIO:
    return "stdio";
  case Layer::SYNC:
    return "MPI (sync)";
  }
  return "?";
}

constexpr const char *kStyle = R"(body{font:14px/1.4 sans-serif;margin:0 auto;max-width:1100px;padding:0 16px;color:#222}
h1{font-size:22px;border-bottom:2px solid #4a78b5}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}
h3{font-size:15px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f3f8}code,.mono{font-family:monospace}
svg.fig{display:block;margin:8px 0;font:11px sans-serif;background:#fff}svg .ft{font-weight:bold;font-size:12px}
svg .ax{stroke:#555}svg .al{fill:#444}svg .bl{fill:#556;font-size:10px}svg .fit{stroke:#d62728;stroke-width:1.5}
svg a{fill:#1f5fa8;text-decoration:underline}.note{color:#845;font-size:13px}.figs{display:flex;flex-wrap:wrap;gap:12px}
ul.tree{list-style:none;padding-left:18px;font-family:monospace}ul.tree li{margin:1px 0}.legend span{display:inline-block;margin-right:8px;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:3px})";

/// A copy of the trace holding only the events that `keep` accepts (loops
/// stay, possibly empty), for exact per-layer summaries.
std::vector<Node> filterBody(const std::vector<Node> &body, const std::function<bool(const Event &)> &keep) {
  std::vector<Node> out;
  for (const Node &n : body) {
    if (n.isEvent()) {
      if (keep(n.event()))
        out.push_back(n);
      continue;
    }
    Node copy{n.ranks, Loop{n.loop().id, n.loop().iterations, filterBody(n.loop().body, keep)}};
    out.push_back(std::move(copy));
  }
  return out;
}

struct LayerKey {
  Layer layer;
  bool inner;
  auto operator<=>(const LayerKey &) const = default;
};

class Writer {
public:
  Writer(std::ostream &out, const std::vector<ReportInput> &inputs, const ReportOptions &options)
      : o_(out), inputs_(inputs), opt_(options), t_(inputs.back().trace), s_(summarize(t_)) {}

  void run() {
    const std::string program = t_.header.program.empty() ? "(unknown program)" : t_.header.program;
    o_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">"
       << "<title>sio report: " << esc(program) << "</title><style>" << kStyle << "</style></head><body>\n";
    o_ << "<h1>sio I/O report: <span class=\"mono\">" << esc(program) << "</span></h1>\n";
    o_ << "<p>Sections: <a href=\"#overview\">overview</a> &middot; <a href=\"#operations\">operations and "
          "files</a> &middot; <a href=\"#access\">access patterns</a> &middot; <a href=\"#histograms\">sizes and "
          "timing</a> &middot; <a href=\"#loops\">loop structure</a> &middot; <a href=\"#signatures\">signatures</a>"
       << (inputs_.size() > 1 ? " &middot; <a href=\"#fits\">elastic values</a>" : "") << "</p>\n";
    expand();
    header();
    operations();
    accessPatterns();
    histograms();
    loops();
    signatures();
    if (inputs_.size() > 1)
      fits();
    o_ << "<p class=\"note\">Written by sio-trace report. Offsets are as recorded: MPI-IO offsets count etypes "
          "of the file view; positions of calls without an offset are tracked through opens, seeks and "
          "transfers.</p>\n</body></html>\n";
    if (!o_)
      throw std::runtime_error("cannot write the report");
  }

private:
  // --- expansion shared by the sections ------------------------------------

  struct PlotPoint {
    int64_t rank;
    uint64_t order; ///< index among the rank's accesses to the file
    int64_t offset;
    double timeNs;
    bool timed;
    uint64_t site;
    const Node *outer;
    uint64_t instance;
  };

  void expand() {
    const int64_t n = t_.header.nranks;
    // Histograms: every rank when the whole trace fits the budget, else a sample.
    // Every rank costs an expansion even with no calls: a trace claiming
    // 2^31 ranks is sampled however few calls it holds.
    const bool everyRank = s_.totalCalls <= opt_.expandBudget && uint64_t(n) <= opt_.expandBudget;
    histRanks_ = everyRank ? sampleRanks(n, n) : sampleRanks(n, opt_.maxRanks);
    plotRanks_ = sampleRanks(n, opt_.maxRanks);
    std::set<int64_t> plotted(plotRanks_.begin(), plotRanks_.end());
    const uint64_t perRank = std::max<uint64_t>(1, opt_.expandBudget / std::max<size_t>(1, histRanks_.size()));
    for (size_t k = 0; k < histRanks_.size(); ++k) {
      const int64_t r = histRanks_[k];
      const bool plot = plotted.count(r) != 0;
      const int series = int(std::lower_bound(plotRanks_.begin(), plotRanks_.end(), r) - plotRanks_.begin());
      std::map<int64_t, uint64_t> order;
      double end = 0;
      bool complete = expandRank(t_, r, perRank, [&](const Call &c) {
        end = std::max(end, c.startNs + c.durationNs);
        anyTimed_ |= c.timed;
        anyReconstructed_ |= c.reconstructed;
        if (c.bytes && !c.event->inner) {
          int bin = TimingStats::binOf(uint64_t(std::max<int64_t>(0, *c.bytes)));
          sizeHist_[bin]++;
        }
        if (plot && c.file && c.offset && c.bytes && !c.event->inner) {
          uint64_t &ord = order[*c.file];
          points_[*c.file].push_back(
              {r, ord++, *c.offset, c.startNs, c.timed, c.event->site, c.outerLoop, c.outerInstance});
          (void)series;
        }
      });
      expandTruncated_ |= !complete;
      span_ = std::max(span_, end);
    }
  }

  // --- sections --------------------------------------------------------------

  void header() {
    const TraceHeader &h = t_.header;
    o_ << "<h2 id=\"overview\">Overview</h2>\n<table id=\"overview-table\">";
    auto row = [&](const std::string &k, const std::string &v, const std::string &id = "") {
      o_ << "<tr" << (id.empty() ? "" : " id=\"" + id + "\"") << "><th>" << k << "</th><td>" << v << "</td></tr>";
    };
    row("program", "<span class=\"mono\">" + esc(h.program.empty() ? "(unknown)" : h.program) + "</span>");
    if (!h.commandLine.empty()) {
      std::string cmd;
      for (const std::string &a : h.commandLine)
        cmd += (cmd.empty() ? "" : " ") + a;
      row("command line", "<span class=\"mono\">" + esc(svg::shorten(cmd, 400)) + "</span>");
    }
    row("generator", esc(h.generator));
    row("ranks", std::to_string(s_.activeRanks) + " active of " + std::to_string(s_.nranks));
    row("complete", h.complete ? "yes" : "<b>NO</b> (" + std::to_string(h.droppedEvents) + " events dropped)");
    row("exact", s_.exact ? "yes" : "no (some values could not be evaluated; totals are estimates)");
    row("calls", std::to_string(s_.totalCalls) + " (inner: " + std::to_string(s_.innerCalls) + ")", "total-calls");
    row("bytes read", std::to_string(s_.bytesRead) + " (" + svg::bytesText(double(s_.bytesRead)) + ")", "bytes-read");
    row("bytes written", std::to_string(s_.bytesWritten) + " (" + svg::bytesText(double(s_.bytesWritten)) + ")",
        "bytes-written");
    row("compressed", std::to_string(s_.staticEvents) + " events, " + std::to_string(s_.staticLoops) + " loops");
    std::string span = anyTimed_ ? svg::timeText(span_) + " (longest rank" +
                                       (anyReconstructed_ ? ", reconstructed from timing histograms" : "") + ")"
                                 : "no timing recorded";
    if (histRanks_.size() < size_t(std::max<int64_t>(0, h.nranks)))
      span += "; over " + std::to_string(histRanks_.size()) + " sampled ranks";
    row("time span", span);
    for (const std::string &n : h.notes)
      row("note", esc(n));
    for (const auto &[k, v] : h.metadata)
      row(esc(k), esc(svg::shorten(v, 400)));
    o_ << "</table>\n";
    if (inputs_.size() > 1) {
      o_ << "<h3>Inputs</h3><p>The sections below describe the last input; the <a href=\"#fits\">elastic "
            "values</a> section compares all.</p><table id=\"inputs\"><tr><th>trace</th><th>generator</th>"
            "<th>ranks</th><th>calls</th><th>bytes read</th><th>bytes written</th></tr>";
      for (const ReportInput &in : inputs_) {
        TraceSummary s = &in == &inputs_.back() ? s_ : summarize(in.trace);
        o_ << "<tr><td class=\"mono\">" << esc(in.path) << "</td><td>" << esc(in.trace.header.generator)
           << "</td><td class=\"n\">" << in.trace.header.nranks << "</td><td class=\"n\">" << s.totalCalls
           << "</td><td class=\"n\">" << s.bytesRead << "</td><td class=\"n\">" << s.bytesWritten << "</td></tr>";
      }
      o_ << "</table>\n";
    }
  }

  void operations() {
    o_ << "<h2 id=\"operations\">Operations and files</h2>\n";
    o_ << "<p>Calls and bytes summed over ranks and loop iterations (as <code>sio-trace stats</code>). Calls "
          "made inside another traced call (inner) count as calls but not as bytes of a file.</p>\n";
    std::vector<svg::Bar> calls, bytes;
    for (const auto &[op, s] : s_.byOp) {
      std::string data = "data-op=\"" + esc(op) + "\"";
      calls.push_back({op, double(s.calls), svg::countText(s.calls), "", data});
      if (s.bytes)
        bytes.push_back({op, double(s.bytes), svg::bytesText(double(s.bytes)), "", data});
    }
    o_ << "<div class=\"figs\">" << svg::barChart("calls by operation", calls);
    if (!bytes.empty())
      o_ << svg::barChart("bytes by operation", bytes);
    o_ << "</div>\n";
    o_ << "<table id=\"ops-table\"><tr><th>operation</th><th>calls</th><th>bytes</th></tr>";
    for (const auto &[op, s] : s_.byOp)
      o_ << "<tr data-op=\"" << esc(op) << "\" data-calls=\"" << s.calls << "\" data-bytes=\"" << s.bytes
         << "\"><td class=\"mono\">" << esc(op) << "</td><td class=\"n\">" << s.calls << "</td><td class=\"n\">"
         << s.bytes << "</td></tr>";
    o_ << "</table>\n";

    // By layer, inner calls apart: exact summaries of filtered copies.
    std::set<LayerKey> keys;
    collectLayers(t_.body, keys);
    std::vector<svg::Bar> lcalls, lbytes;
    o_ << "<h3>By layer</h3>";
    std::ostringstream table;
    table << "<table id=\"layers-table\"><tr><th>layer</th><th>calls</th><th>bytes</th></tr>";
    for (const LayerKey &k : keys) {
      Trace filtered;
      filtered.header = t_.header;
      filtered.datatypes = t_.datatypes;
      filtered.files = t_.files;
      filtered.body = filterBody(t_.body, [&](const Event &e) { return e.layer == k.layer && e.inner == k.inner; });
      TraceSummary fs = summarize(filtered);
      int64_t b = 0;
      for (const auto &[op, s] : fs.byOp)
        b += s.bytes;
      std::string name = layerTitle(k.layer) + (k.inner ? " (inner)" : "");
      lcalls.push_back({name, double(fs.totalCalls), svg::countText(fs.totalCalls), "", ""});
      if (b)
        lbytes.push_back({name, double(b), svg::bytesText(double(b)), "", ""});
      table << "<tr data-layer=\"" << esc(name) << "\" data-calls=\"" << fs.totalCalls << "\" data-bytes=\"" << b
            << "\"><td>" << esc(name) << "</td><td class=\"n\">" << fs.totalCalls << "</td><td class=\"n\">" << b
            << "</td></tr>";
    }
    table << "</table>\n";
    o_ << "<div class=\"figs\">" << svg::barChart("calls by layer", lcalls);
    if (!lbytes.empty())
      o_ << svg::barChart("bytes by layer", lbytes);
    o_ << "</div>\n" << table.str();

    o_ << "<h3>By file</h3>";
    std::vector<std::pair<int64_t, OpSummary>> files(s_.byFile.begin(), s_.byFile.end());
    std::stable_sort(files.begin(), files.end(),
                     [](const auto &a, const auto &b) { return a.second.bytes > b.second.bytes; });
    std::vector<svg::Bar> fcalls, fbytes;
    for (size_t i = 0; i < files.size() && i < opt_.maxTableRows; ++i) {
      const auto &[id, s] = files[i];
      std::string label = fileLabel(t_, id);
      fcalls.push_back({label, double(s.calls), svg::countText(s.calls), "#file-" + std::to_string(id), ""});
      if (s.bytes)
        fbytes.push_back({label, double(s.bytes), svg::bytesText(double(s.bytes)), "#file-" + std::to_string(id), ""});
    }
    if (!fcalls.empty()) {
      o_ << "<div class=\"figs\">" << svg::barChart("calls by file", fcalls);
      if (!fbytes.empty())
        o_ << svg::barChart("bytes by file", fbytes);
      o_ << "</div>\n";
    }
    o_ << "<table id=\"files-table\"><tr><th>file</th><th>name</th><th>calls</th><th>bytes</th></tr>";
    for (size_t i = 0; i < files.size() && i < opt_.maxTableRows; ++i) {
      const auto &[id, s] = files[i];
      o_ << "<tr data-file=\"" << id << "\" data-calls=\"" << s.calls << "\" data-bytes=\"" << s.bytes << "\"><td>f"
         << id << "</td><td class=\"mono\">" << esc(fileLabel(t_, id)) << "</td><td class=\"n\">" << s.calls
         << "</td><td class=\"n\">" << s.bytes << "</td></tr>";
    }
    o_ << "</table>\n";
    if (files.size() > opt_.maxTableRows)
      o_ << "<p class=\"note\">" << files.size() - opt_.maxTableRows << " more files not shown.</p>\n";
  }

  void collectLayers(const std::vector<Node> &body, std::set<LayerKey> &keys) {
    for (const Node &n : body) {
      if (n.isEvent())
        keys.insert({n.event().layer, n.event().inner});
      else
        collectLayers(n.loop().body, keys);
    }
  }

  void accessPatterns() {
    o_ << "<h2 id=\"access\">Access patterns</h2>\n";
    const int64_t n = t_.header.nranks;
    if (plotRanks_.size() < size_t(n))
      o_ << "<p class=\"note\">" << n << " ranks: a sample of " << plotRanks_.size()
         << " evenly spaced ranks is drawn (ranks " << plotRanks_.front() << " to " << plotRanks_.back()
         << ").</p>\n";
    else
      o_ << "<p>Each read and write: its offset against its order among the rank's accesses to the file; one "
            "colour per rank (all " << n << " ranks); shaded bands are executions of the outermost loops.</p>\n";
    if (expandTruncated_)
      o_ << "<p class=\"note\">Some ranks were cut after their first calls (expansion budget).</p>\n";
    if (points_.empty()) {
      o_ << "<p>No reads or writes with a known file and position.</p>\n";
      return;
    }
    legend();
    size_t shown = 0;
    for (const auto &[file, pts] : points_) {
      if (shown++ >= opt_.maxTableRows) {
        o_ << "<p class=\"note\">" << points_.size() - opt_.maxTableRows << " more files not drawn.</p>\n";
        break;
      }
      o_ << "<h3 id=\"file-" << file << "\">f" << file << " <span class=\"mono\">" << esc(fileLabel(t_, file))
         << "</span></h3>\n";
      // Call sites of the file, linked to the loop structure.
      std::set<uint64_t> sites;
      for (const PlotPoint &p : pts)
        sites.insert(p.site);
      o_ << "<p>call sites: ";
      bool first = true;
      for (uint64_t s : sites) {
        o_ << (first ? "" : ", ") << "<a href=\"#" << siteAnchor(s) << "\" class=\"mono\">"
           << esc(siteLocation(t_, s)) << "</a>";
        first = false;
      }
      o_ << "</p>\n";
      const uint64_t every = std::max<uint64_t>(1, (pts.size() + opt_.maxPointsPerPlot - 1) / opt_.maxPointsPerPlot);
      if (every > 1)
        o_ << "<p class=\"note\">" << pts.size() << " accesses: every " << every << "th is drawn.</p>\n";
      std::vector<svg::Point> byOrder, byTime;
      bool allTimed = true;
      for (size_t i = 0; i < pts.size(); i += every) {
        const PlotPoint &p = pts[i];
        int series = int(std::lower_bound(plotRanks_.begin(), plotRanks_.end(), p.rank) - plotRanks_.begin());
        std::string data = "data-rank=\"" + std::to_string(p.rank) + "\" data-file=\"" + std::to_string(file) +
                           "\" data-order=\"" + std::to_string(p.order) +
                           "\" data-offset=\"" + std::to_string(p.offset) + "\"";
        byOrder.push_back({double(p.order), double(p.offset), series, data});
        byTime.push_back({p.timeNs, double(p.offset), series, ""});
        allTimed = allTimed && p.timed;
      }
      // Bands: the x-range of each outermost-loop execution, over the drawn ranks.
      std::map<std::pair<const Node *, uint64_t>, std::pair<double, double>> ranges;
      for (const PlotPoint &p : pts) {
        if (!p.outer)
          continue;
        auto [it, added] = ranges.emplace(std::pair(p.outer, p.instance), std::pair(double(p.order), double(p.order)));
        it->second.first = std::min(it->second.first, double(p.order));
        it->second.second = std::max(it->second.second, double(p.order));
      }
      std::vector<svg::Band> bands;
      for (const auto &[key, range] : ranges) {
        const Loop &loop = key.first->loop();
        std::string label = "loop " + loopLocation(t_, loop.id);
        bands.push_back({range.first, range.second, label, loop.id ? "#" + loopAnchor(loop.id) : ""});
      }
      std::sort(bands.begin(), bands.end(), [](const auto &a, const auto &b) { return a.x0 < b.x0; });
      if (bands.size() > 200)
        bands.resize(200); // keep the figure light; the loop table has them all
      svg::ScatterSpec spec{"offset against call order: " + svg::shorten(fileLabel(t_, file), 60),
                            "access order on the rank (reads and writes to this file)", "offset", true, false,
                            byOrder.size() > 1000 ? 1.5 : 2.5};
      o_ << "<div class=\"figs\">" << svg::scatter(spec, byOrder, bands);
      if (allTimed && anyTimed_) {
        svg::ScatterSpec tspec{"offset against time: " + svg::shorten(fileLabel(t_, file), 60),
                               std::string("time on the rank") + (anyReconstructed_ ? " (reconstructed)" : ""),
                               "offset", true, true, spec.radius};
        o_ << svg::scatter(tspec, byTime, {});
      }
      o_ << "</div>\n";
    }
  }

  void legend() {
    o_ << "<p class=\"legend\">";
    for (size_t k = 0; k < plotRanks_.size(); ++k)
      o_ << "<span><i style=\"background:" << svg::colour(int(k)) << "\"></i>rank " << plotRanks_[k] << "</span>";
    o_ << "</p>\n";
  }

  static std::vector<std::string> timeBinLabels(size_t first, size_t last) {
    std::vector<std::string> out;
    for (size_t b = first; b <= last; ++b)
      out.push_back(b == 0 ? "0" : svg::timeText(double(TimingStats::binLow(int(b)))));
    return out;
  }

  /// Bins [first, last] that hold samples; false if none.
  template <typename Counts> static bool binRange(const Counts &c, size_t &first, size_t &last) {
    first = c.size();
    last = 0;
    for (size_t b = 0; b < c.size(); ++b)
      if (c[b]) {
        first = std::min(first, b);
        last = b;
      }
    return first <= last;
  }

  void histograms() {
    o_ << "<h2 id=\"histograms\">Request sizes and timing</h2>\n";
    // Request sizes (log2 bins).
    std::array<uint64_t, TimingStats::kBins> sizes{};
    for (const auto &[bin, count] : sizeHist_)
      if (bin >= 0 && bin < TimingStats::kBins)
        sizes[size_t(bin)] += count;
    size_t first, last;
    if (binRange(sizes, first, last)) {
      std::vector<std::string> labels;
      std::vector<uint64_t> counts;
      for (size_t b = first; b <= last; ++b) {
        labels.push_back(b == 0 ? "0" : svg::bytesText(double(TimingStats::binLow(int(b)))));
        counts.push_back(sizes[b]);
      }
      std::string title = "request sizes (reads and writes, log2 bins)";
      if (histRanks_.size() < size_t(t_.header.nranks))
        title += ", " + std::to_string(histRanks_.size()) + " sampled ranks";
      o_ << svg::histogram(title, labels, counts, "bytes per call (bin lower bound)");
    } else {
      o_ << "<p>No reads or writes.</p>\n";
    }

    // Timing per call site and of the computation gaps, from the trace's
    // merged statistics (exact histograms, no expansion).
    std::map<uint64_t, TimingStats> bySite;
    TimingStats gaps;
    std::map<uint64_t, std::string> siteOp;
    collectTiming(t_.body, bySite, gaps, siteOp);
    bool any = false;
    for (const auto &[site, st] : bySite)
      any |= st.count() > 0;
    if (!any && !gaps.count()) {
      o_ << "<p>The trace records no timing.</p>\n";
      return;
    }
    o_ << "<p>Timing histograms are the trace's merged log2 histograms (exact counts per bin).</p>\n";
    if (gaps.count() && binRange(gaps.histogram(), first, last))
      o_ << svg::histogram("computation gaps before calls (all sites): n=" + svg::countText(gaps.count()) +
                               ", mean " + svg::timeText(gaps.mean()),
                           timeBinLabels(first, last),
                           std::vector<uint64_t>(gaps.histogram().begin() + long(first),
                                                 gaps.histogram().begin() + long(last) + 1),
                           "gap (bin lower bound)");
    o_ << "<div class=\"figs\">";
    size_t shown = 0;
    for (const auto &[site, st] : bySite) {
      if (!st.count() || !binRange(st.histogram(), first, last))
        continue;
      if (shown++ >= opt_.maxTableRows)
        break;
      o_ << "<div>" << "<a href=\"#" << siteAnchor(site) << "\" class=\"mono\">" << esc(siteLocation(t_, site))
         << "</a>"
         << svg::histogram("duration of " + siteOp[site] + ": n=" + svg::countText(st.count()) + ", mean " +
                               svg::timeText(st.mean()),
                           timeBinLabels(first, last),
                           std::vector<uint64_t>(st.histogram().begin() + long(first),
                                                 st.histogram().begin() + long(last) + 1),
                           "duration (bin lower bound)")
         << "</div>";
    }
    o_ << "</div>\n";
  }

  void collectTiming(const std::vector<Node> &body, std::map<uint64_t, TimingStats> &bySite, TimingStats &gaps,
                     std::map<uint64_t, std::string> &siteOp) {
    for (const Node &n : body) {
      if (n.isLoop()) {
        collectTiming(n.loop().body, bySite, gaps, siteOp);
        continue;
      }
      const Event &e = n.event();
      bySite[e.site].merge(e.duration);
      siteOp.emplace(e.site, e.op);
      gaps.merge(e.compute);
    }
  }

  void loops() {
    o_ << "<h2 id=\"loops\">Loop structure</h2>\n<p>The compressed trace: loops with their iteration counts "
          "(formulas of rank, nranks and outer loop indices <code>i0</code>, <code>i1</code>, ...) and the calls "
          "in them with their source locations.</p>\n";
    nodesShown_ = 0;
    tree(t_.body, 0, nullptr);
    if (nodesShown_ > kMaxTreeNodes)
      o_ << "<p class=\"note\">The structure is cut after " << kMaxTreeNodes << " nodes.</p>\n";
  }

  static constexpr size_t kMaxTreeNodes = 2000;

  void tree(const std::vector<Node> &body, uint32_t depth, const RankList *parent) {
    o_ << "<ul class=\"tree\">";
    for (const Node &n : body) {
      if (++nodesShown_ > kMaxTreeNodes)
        break;
      std::string ranks = parent && n.ranks == *parent ? "" : "[ranks " + n.ranks.str() + "] ";
      if (n.isEvent()) {
        const Event &e = n.event();
        std::string id = e.site && !anchored_.count(e.site) ? " id=\"" + siteAnchor(e.site) + "\"" : "";
        anchored_.insert(e.site);
        o_ << "<li" << id << ">" << esc(svg::shorten(ranks, 200)) << "<b>" << esc(e.op) << "</b>"
           << (e.inner ? " (inner)" : "") << " <span class=\"note\">" << esc(siteLocation(t_, e.site)) << "</span>";
        if (e.duration.count())
          o_ << " &middot; " << svg::countText(e.duration.count()) << " calls, mean "
             << svg::timeText(e.duration.mean());
        o_ << "</li>";
        continue;
      }
      const Loop &l = n.loop();
      std::string iters;
      for (const ElasticEntry &en : l.iterations.entries())
        iters += (iters.empty() ? "" : "; ") +
                 (l.iterations.entries().size() > 1 ? "ranks " + en.ranks.str() + ": " : "") + valueStr(en.value);
      std::string id = l.id && !anchoredLoops_.count(l.id) ? " id=\"" + loopAnchor(l.id) + "\"" : "";
      anchoredLoops_.insert(l.id);
      o_ << "<li" << id << ">" << esc(svg::shorten(ranks, 200)) << "loop <b>" << esc(svg::shorten(iters, 300))
         << "</b> iterations (i" << depth << ") <span class=\"note\">" << esc(loopLocation(t_, l.id)) << "</span>";
      tree(l.body, depth + 1, &n.ranks);
      o_ << "</li>";
    }
    o_ << "</ul>";
  }

  void signatures() {
    o_ << "<h2 id=\"signatures\">I/O signatures</h2>\n<p>Per file and group of ranks with the same access "
          "pattern (<code>sio-signature</code>, docs/signatures.md): the trace signature "
          "<code>{op, initial position, dimension, (components), repetitions}</code> and the pattern signature.</p>\n";
    sg::SignatureReport rep;
    try {
      sg::Options so;
      // Bounded: at most maxRanks ranks analysed one by one on huge traces.
      if (t_.header.nranks > 4096)
        so.rank = 0;
      rep = sg::analyze(t_, so);
    } catch (const std::exception &e) {
      o_ << "<p>No signature: " << esc(e.what()) << "</p>\n";
      return;
    }
    if (t_.header.nranks > 4096)
      o_ << "<p class=\"note\">" << t_.header.nranks << " ranks: rank 0 only.</p>\n";
    for (const std::string &n : rep.notes)
      o_ << "<p class=\"note\">" << esc(n) << "</p>\n";
    o_ << "<table id=\"signatures-table\"><tr><th>file</th><th>ranks</th><th>accesses</th><th>trace "
          "signature</th><th>pattern signature</th></tr>";
    size_t shown = 0;
    for (const sg::SignatureGroup &g : rep.groups) {
      if (shown++ >= opt_.maxTableRows)
        break;
      const sg::StreamSignature &s = g.signature;
      std::string file = s.file >= 0 ? fileLabel(t_, s.file) : "?";
      o_ << "<tr><td class=\"mono\">" << esc(file) << "</td><td>" << esc(svg::shorten(g.ranks.str(), 200))
         << "</td><td class=\"n\">" << s.accesses << "</td><td class=\"mono\">"
         << esc(svg::shorten(sg::traceSignatureText(s.trace, g.initialPosition), 600))
         << (g.initialPosition ? "" : " <span class=\"note\">(initial position of the first rank)</span>")
         << "</td><td class=\"mono\">" << esc(sg::patternSignatureText(s.pattern)) << "</td></tr>";
    }
    o_ << "</table>\n";
    if (rep.groups.size() > opt_.maxTableRows)
      o_ << "<p class=\"note\">" << rep.groups.size() - opt_.maxTableRows << " more groups not shown.</p>\n";
  }

  // --- fits across inputs ------------------------------------------------------

  struct Slot {
    std::string what;     ///< "MPI_File_write_at offset" / "loop iterations"
    std::string location; ///< file:line:col
    std::string anchor;
    std::vector<const ElasticValue *> values; ///< per input
  };

  static void slots(const Trace &t, const std::vector<Node> &body, std::vector<std::pair<std::string, const ElasticValue *>> &out,
                    std::vector<std::string> &shape) {
    for (const Node &n : body) {
      if (n.isEvent()) {
        shape.push_back("e:" + n.event().op);
        for (const Param &p : n.event().params)
          out.emplace_back(n.event().op + " " + p.name + "@" + siteLocation(t, n.event().site) + "#" +
                               siteAnchor(n.event().site),
                           &p.value);
      } else {
        shape.push_back("l");
        out.emplace_back("loop iterations@" + loopLocation(t, n.loop().id) + "#" + loopAnchor(n.loop().id),
                         &n.loop().iterations);
        slots(t, n.loop().body, out, shape);
        shape.push_back("/l");
      }
    }
  }

  /// The coefficient of each monomial free of nranks, for one input (nranks bound).
  static std::map<Monomial, Rational> coefficients(const ElasticValue &v, int64_t nranks) {
    std::map<Monomial, Rational> out;
    const Value *val = v.valueFor(0);
    if (!val && !v.entries().empty())
      val = &v.entries().front().value;
    const Expr *e = val ? std::get_if<Expr>(val) : nullptr;
    if (!e)
      return out;
    Expr bound = e->bindNRanks(nranks);
    for (const auto &[m, c] : bound.terms())
      out[m] = c;
    return out;
  }

  static std::string monomialText(const Monomial &m) {
    if (m.empty())
      return "constant term";
    return "coefficient of " + Expr::ofMonomial(m).str();
  }

  void fits() {
    o_ << "<h2 id=\"fits\">Elastic values across rank counts</h2>\n";
    std::vector<std::vector<std::pair<std::string, const ElasticValue *>>> all;
    std::vector<std::string> shape0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      std::vector<std::pair<std::string, const ElasticValue *>> s;
      std::vector<std::string> shape;
      slots(inputs_[i].trace, inputs_[i].trace.body, s, shape);
      if (i == 0)
        shape0 = shape;
      else if (shape != shape0) {
        o_ << "<p>The inputs differ in structure (" << esc(inputs_[i].path) << " against " << esc(inputs_[0].path)
           << "): no value-by-value comparison.</p>\n";
        return;
      }
      all.push_back(std::move(s));
    }
    o_ << "<p>Every value (parameter or loop count) that changes with the rank count, term by term: the "
          "measured inputs as points, the exact fit against <code>nranks</code> as a curve, and the "
          "extrapolated point (an input written by sio-extrap, else twice the largest measured count) as a red "
          "diamond.</p>\n";
    std::vector<int64_t> measuredN, extrapN;
    std::vector<size_t> measuredIdx, extrapIdx;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      bool extrap = inputs_[i].trace.header.generator.starts_with("sio-extrap");
      (extrap ? extrapN : measuredN).push_back(inputs_[i].trace.header.nranks);
      (extrap ? extrapIdx : measuredIdx).push_back(i);
    }
    if (measuredN.size() < 2) {
      o_ << "<p>Fewer than two measured inputs: nothing to fit.</p>\n";
      return;
    }
    const int64_t maxN = *std::max_element(measuredN.begin(), measuredN.end());
    size_t figures = 0;
    for (size_t k = 0; k < all[0].size(); ++k) {
      const std::string &key = all[0][k].first;
      // Coefficients per monomial per input.
      std::vector<std::map<Monomial, Rational>> co;
      std::set<Monomial> monos;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        co.push_back(coefficients(*all[i][k].second, inputs_[i].trace.header.nranks));
        for (const auto &[m, c] : co.back())
          monos.insert(m);
      }
      for (const Monomial &m : monos) {
        std::vector<Rational> ys;
        std::vector<std::vector<Rational>> unused;
        bool varies = false;
        for (size_t i : measuredIdx) {
          auto it = co[i].find(m);
          ys.push_back(it == co[i].end() ? Rational(0) : it->second);
          varies = varies || !(ys.back() == ys.front());
        }
        if (!varies)
          continue;
        if (figures >= opt_.maxTableRows) {
          ++figures;
          continue;
        }
        ++figures;
        std::optional<Expr> model = fitModel(measuredN, ys);
        size_t at = key.find('@'), hash = key.rfind('#');
        std::string what = key.substr(0, at), loc = key.substr(at + 1, hash - at - 1), anchor = key.substr(hash + 1);
        std::vector<svg::Point> pts, marks;
        std::vector<std::string> markLabels;
        for (size_t j = 0; j < measuredIdx.size(); ++j)
          pts.push_back({double(measuredN[j]), toD(ys[j]), 0,
                         "data-nranks=\"" + std::to_string(measuredN[j]) + "\" data-value=\"" + esc(ys[j].str()) + "\""});
        std::vector<int64_t> targets = extrapN;
        if (targets.empty())
          targets.push_back(2 * maxN);
        int64_t top = std::max(maxN, *std::max_element(targets.begin(), targets.end()));
        for (size_t j = 0; j < targets.size(); ++j) {
          std::optional<Rational> y;
          if (j < extrapIdx.size()) {
            auto it = co[extrapIdx[j]].find(m);
            y = it == co[extrapIdx[j]].end() ? Rational(0) : it->second;
          } else if (model) {
            y = model->evaluateRational({0, targets[j], {}});
          }
          if (y) {
            marks.push_back({double(targets[j]), toD(*y), 0,
                             "data-nranks=\"" + std::to_string(targets[j]) + "\" data-value=\"" + esc(y->str()) + "\""});
            markLabels.push_back(y->str() + " at " + std::to_string(targets[j]));
          }
        }
        svg::Curve curve;
        if (model) {
          const int64_t lo = *std::min_element(measuredN.begin(), measuredN.end());
          for (int s = 0; s <= 120; ++s) {
            double n = double(lo) + (double(top) - double(lo)) * s / 120.0;
            int64_t ni = std::max<int64_t>(1, std::llround(n));
            if (auto y = model->evaluateRational({0, ni, {}}))
              curve.points.emplace_back(double(ni), toD(*y));
          }
        }
        std::string title = what + ": " + monomialText(m);
        o_ << "<h3>" << esc(title) << " <a href=\"#" << esc(anchor) << "\" class=\"mono\">" << esc(loc) << "</a></h3>\n";
        o_ << "<p>fit: <code>" << (model ? esc(model->str()) : "no exact model among a+b*nranks, a+b/nranks, "
                                                              "a+b*nranks+c/nranks, a+b*nranks+c*nranks^2")
           << "</code></p>\n";
        svg::ScatterSpec spec{title, "ranks (nranks)", "value", false, false, 4};
        o_ << svg::scatter(spec, pts, {}, model ? std::vector<svg::Curve>{curve} : std::vector<svg::Curve>{}, marks,
                           markLabels);
      }
    }
    if (figures == 0)
      o_ << "<p>No value changes with the rank count.</p>\n";
    else if (figures > opt_.maxTableRows)
      o_ << "<p class=\"note\">" << figures - opt_.maxTableRows << " more values not drawn.</p>\n";
  }

  static std::optional<Expr> fitModel(const std::vector<int64_t> &ns, const std::vector<Rational> &ys) {
    const Expr N = Expr::nranks(), invN = Expr(1) / Expr::nranks();
    const std::vector<std::vector<Expr>> models = {{N}, {invN}, {N, invN}, {N, N * N}};
    for (const std::vector<Expr> &vars : models) {
      if (vars.size() + 1 > ns.size() && vars.size() > 1)
        continue;
      std::vector<std::vector<Rational>> xs;
      for (int64_t n : ns) {
        std::vector<Rational> row;
        for (const Expr &v : vars)
          row.push_back(*v.evaluateRational({0, n, {}}));
        xs.push_back(row);
      }
      if (auto e = fitAffineExpr(vars, xs, ys))
        return e;
    }
    return std::nullopt;
  }

  std::ostream &o_;
  const std::vector<ReportInput> &inputs_;
  const ReportOptions &opt_;
  const Trace &t_;
  TraceSummary s_;
  std::vector<int64_t> histRanks_, plotRanks_;
  std::map<int, uint64_t> sizeHist_;
  std::map<int64_t, std::vector<PlotPoint>> points_;
  double span_ = 0;
  bool anyTimed_ = false, anyReconstructed_ = false, expandTruncated_ = false;
  size_t nodesShown_ = 0;
  std::set<uint64_t> anchored_, anchoredLoops_;
};

} // namespace

void writeReport(std::ostream &out, const std::vector<ReportInput> &inputs, const ReportOptions &options) {
  if (inputs.empty())
    throw std::invalid_argument("report: no trace given");
  Writer(out, inputs, options).run();
}

} // namespace sio::report
