// The HTML report (docs/report.md). Aggregates come from the trace library's
// summary (so they equal `sio-trace stats`), per-call pictures from rank
// expansion (Expand.h) bounded by ReportOptions, signatures from
// signature-gen. Each section is a file of its own (Writer.h lists them);
// they are written in order into one stream.
#include "Writer.h"

#include "Svg.h"
#include "sio/report/Expand.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <ostream>

namespace sio::report {

using namespace sio::trace;

namespace detail {

namespace {

constexpr const char *kStyle =
    R"(body{font:14px/1.4 sans-serif;margin:0 auto;max-width:1100px;padding:0 16px;color:#222}
h1{font-size:22px;border-bottom:2px solid #4a78b5}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}
h3{font-size:15px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f3f8}code,.mono{font-family:monospace}
svg.fig{display:block;margin:8px 0;font:11px sans-serif;background:#fff}svg .ft{font-weight:bold;font-size:12px}
svg .ax{stroke:#555}svg .al{fill:#444}svg .bl{fill:#556;font-size:10px}svg .fit{stroke:#d62728;stroke-width:1.5}
svg a{fill:#1f5fa8;text-decoration:underline}.note{color:#845;font-size:13px}.figs{display:flex;flex-wrap:wrap;gap:12px}
ul.tree{list-style:none;padding-left:18px;font-family:monospace}ul.tree li{margin:1px 0}.legend span{display:inline-block;margin-right:8px;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:3px})";

} // namespace

void Writer::run() {
  const std::string program = t_.header.program.empty() ? "(unknown program)" : t_.header.program;
  o_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
     << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "img-src data:\">"
     << "<title>sio report: " << esc(program) << "</title><style>" << kStyle << "</style></head><body>\n";
  o_ << "<h1>sio I/O report: <span class=\"mono\">" << esc(program) << "</span></h1>\n";
  o_ << "<p>Sections: <a href=\"#overview\">overview</a> &middot; <a href=\"#time\">I/O time and "
        "bandwidth</a> &middot; <a href=\"#files\">files</a> &middot; <a href=\"#ranks\">ranks</a> &middot; "
        "<a href=\"#operations\">operations and layers</a> &middot; <a href=\"#sizes\">access sizes</a> "
        "&middot; <a href=\"#access\">access patterns</a> &middot; <a href=\"#histograms\">timing</a> &middot; <a "
        "href=\"#loops\">loop structure</a> &middot; <a href=\"#signatures\">signatures</a>"
     << (inputs_.size() > 1 ? " &middot; <a href=\"#fits\">elastic values</a>" : "") << "</p>\n";
  extrapolated_ = t_.header.generator.starts_with("sio-extrap");
  const Event *last = nullptr;
  findOuterCalls(t_.body, last);
  rankTiming_ = rankTiming(t_);
  expand();
  extrapolationNote();
  header();
  ioTime();
  filesSection();
  perRank();
  operations();
  accessSizes();
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

void Writer::expand() {
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
    RankRow row;
    row.rank = r;
    bool complete = expandRank(t_, r, perRank, [&](const Call &c) {
      end = std::max(end, c.startNs + c.durationNs);
      anyTimed_ |= c.timed;
      anyReconstructed_ |= c.reconstructed;
      tally(c, row);
      if (plot && c.file && c.offset && c.bytes && !c.event->inner) {
        uint64_t &ord = order[*c.file];
        points_[*c.file].push_back(
            {r, ord++, *c.offset, c.startNs, c.timed, c.event->site, c.outerLoop, c.outerInstance});
        (void)series;
      }
    });
    expandTruncated_ |= !complete;
    addRank(row);
    span_ = std::max(span_, end);
  }
}

void Writer::addRank(const RankRow &row) {
  RankSummary &s = rankSummary_;
  if (s.ranks++ == 0)
    s.slow = s.fast = s.slowestIo = row;
  s.sum += rankMetric(row);
  if (rankMetric(row) > rankMetric(s.slow))
    s.slow = row;
  if (rankMetric(row) < rankMetric(s.fast))
    s.fast = row;
  if (row.ioNs() > s.slowestIo.ioNs())
    s.slowestIo = row;
  if (rankRows_.size() < kMaxRankRows)
    rankRows_.push_back(row);
}

void Writer::tally(const Call &c, RankRow &row) {
  const IoClass k = ioClass(*c.event);
  const size_t ki = size_t(k);
  row.classCalls[ki]++;
  totals_.classCalls[ki]++;
  if (auto ns = rankCallNs(t_, c)) {
    row.classNs[ki] += *ns;
    totals_.classNs[ki] += *ns;
  } else {
    row.classUntimed[ki]++;
    totals_.classUntimed[ki]++;
  }
  if (k == IoClass::Inner)
    return; // inside an outer call: its bytes and time are the outer call's
  row.calls++;
  totals_.calls++;
  if (!c.bytes)
    return;
  const int64_t b = std::max<int64_t>(0, *c.bytes);
  if (direction(c.event->op) == Direction::Read) {
    row.bytesRead += b;
    totals_.bytesRead += b;
    readSizes_.add(b);
  } else {
    row.bytesWritten += b;
    totals_.bytesWritten += b;
    writeSizes_.add(b);
  }
  if (c.file)
    fileSizes_[*c.file].add(b);
}

} // namespace detail

void writeReport(std::ostream &out, const std::vector<ReportInput> &inputs, const ReportOptions &options) {
  if (inputs.empty())
    throw std::invalid_argument("report: no trace given");
  detail::Writer(out, inputs, options).run();
}

} // namespace sio::report
