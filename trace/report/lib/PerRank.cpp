// The per-rank table: bytes and calls of each rank (from expanding the
// trace rank by rank), the slowest and fastest rank and the imbalance.
#include "Writer.h"

#include "Svg.h"

#include <algorithm>
#include <cstdio>

namespace sio::report::detail {

using namespace sio::trace;

double RankRow::dataNs() const {
  double ns = 0;
  for (IoClass c : kIoClasses)
    if (isData(c))
      ns += classNs[size_t(c)];
  return ns;
}

double RankRow::ioNs() const { return dataNs() + classNs[size_t(IoClass::Metadata)]; }

namespace {

/// A trace the runtime wrote at format 1.1 or later records per-rank
/// timing: at finalize every rank's statistics are its own, and the merge
/// keeps them apart (`rank_timing`) wherever the ranks' time in an event
/// differs by 5% of a rank's traced time or more (docs/trace-format.md), so
/// the merged statistics of an event without groups are every rank's to
/// within that. An extrapolated trace has none (sio-extrap says so).
bool recordsRankTiming(const Trace &t) {
  const FormatVersion &v = t.header.version;
  return (v.major > 1 || (v.major == 1 && v.minor >= 1)) && t.header.generator.rfind("sio-runtime", 0) == 0 &&
         !t.header.metadata.count("per_rank_timing");
}

void timedEvents(const std::vector<Node> &body, bool &any, bool &merged, bool &untimed) {
  for (const Node &n : body) {
    if (n.isLoop()) {
      timedEvents(n.loop().body, any, merged, untimed);
      continue;
    }
    const IoClass c = ioClass(n.event());
    if (c == IoClass::Inner || c == IoClass::Sync)
      continue;
    if (!n.event().duration.count()) {
      untimed = true;
      continue;
    }
    any = true;
    merged = merged || n.ranks.size() != 1;
  }
}

} // namespace

// The one place the rank table learns how far its times are a rank's own.
// Without per-rank timing (older traces, extrapolated ones) an event's
// statistics are merged over the ranks that share it, so a rank's time is
// the sum of its calls' means over those ranks: it tells ranks that make
// different calls apart, not a straggler among ranks making the same ones.
RankTiming rankTiming(const Trace &t) {
  bool any = false, merged = false, untimed = false;
  timedEvents(t.body, any, merged, untimed);
  if (recordsRankTiming(t))
    merged = false;
  return !any ? RankTiming::None : untimed ? RankTiming::Partial : merged ? RankTiming::Merged : RankTiming::PerRank;
}

// The call's duration as Expand.cpp gives it for its rank: the rank's own
// group of `rank_timing` where the trace kept one (Call::perRank), else the
// event's statistics. The rank table, its ordering, the imbalance and the
// aggregate bandwidth follow from it.
std::optional<double> rankCallNs(const Trace &t, const Call &c) {
  (void)t;
  if (!c.timed)
    return std::nullopt;
  return c.durationNs;
}

void Writer::perRank() {
  o_ << "<h2 id=\"ranks\">Ranks</h2>\n";
  if (!rankSummary_.ranks) {
    o_ << "<p>No ranks.</p>\n";
    return;
  }
  const RankTiming timing = rankTiming_;
  const bool byTime = ranksByTime();
  const bool sampled = histRanks_.size() < size_t(std::max<int64_t>(0, t_.header.nranks));
  o_ << "<p>Each rank's calls, bytes and time in I/O calls, from expanding the trace rank by rank"
     << (sampled
             ? " (" + std::to_string(rankSummary_.ranks) + " sampled ranks of " + std::to_string(t_.header.nranks) + ")"
             : " (every rank)")
     << "; inner calls are left out. Time is the sum of the durations of the rank's read, write and wait calls "
        "(data) and of its other file calls (metadata).</p>\n";
  o_ << "<p id=\"rank-order\">"
     << (byTime ? "Ranks are ordered by I/O time (data and metadata): every timed call's statistics belong to one "
                  "rank, so each rank's time is its own."
         : timing == RankTiming::Merged
             ? "Ranks are ordered by bytes moved, not by time: the trace merges each call's timing over the ranks "
               "that make it, so a rank's time is an estimate (the mean of those ranks) and cannot show a slow rank "
               "among ranks making the same calls."
         : timing == RankTiming::Partial
             ? "Ranks are ordered by bytes moved, not by time: some of the file calls record no duration, so no "
               "rank's time is complete (the time columns count the timed calls only)."
             : "Ranks are ordered by bytes moved: the trace records no durations.")
     << (timingCaveat().empty() ? "" : " " + esc(timingCaveat())) << "</p>\n";
  auto metric = [&](const RankRow &r) { return rankMetric(r); };
  auto metricText = [&](double v) {
    return byTime ? svg::timeText(v) : svg::bytesText(v) + " (" + std::to_string(int64_t(v)) + " B)";
  };
  const RankRow *slow = &rankSummary_.slow, *fast = &rankSummary_.fast;
  const double mean = rankSummary_.sum / double(rankSummary_.ranks);
  char imbalance[32] = "&mdash;";
  if (mean > 0)
    std::snprintf(imbalance, sizeof imbalance, "%.3f", metric(*slow) / mean);
  const char *what = byTime ? "I/O time" : "bytes moved";
  o_ << "<table id=\"rank-summary\">";
  o_ << "<tr data-slowest=\"" << slow->rank << "\"><th>slowest rank (most " << what << ")</th><td>rank " << slow->rank
     << ": " << metricText(metric(*slow)) << "</td></tr>";
  o_ << "<tr data-fastest=\"" << fast->rank << "\"><th>fastest rank (least " << what << ")</th><td>rank " << fast->rank
     << ": " << metricText(metric(*fast)) << "</td></tr>";
  o_ << "<tr><th>mean " << what << " per rank</th><td>" << metricText(mean) << "</td></tr>";
  o_ << "<tr data-imbalance=\"" << imbalance << "\"><th>imbalance (max / mean)</th><td>" << imbalance
     << "</td></tr></table>\n";

  // The table: the ranks by the order above, heaviest first.
  std::vector<const RankRow *> rows;
  for (const RankRow &r : rankRows_)
    rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const RankRow *a, const RankRow *b) { return metric(*a) > metric(*b); });
  const std::string est = timing == RankTiming::Merged    ? " (estimate)"
                          : timing == RankTiming::Partial ? " (timed calls only)"
                                                          : "";
  o_ << "<table id=\"rank-table\"><tr><th>rank</th><th>calls</th><th>reads</th><th>writes</th><th>other calls</th>"
        "<th>bytes read</th><th>bytes written</th><th>data time"
     << est << "</th><th>metadata time" << est << "</th></tr>";
  for (size_t i = 0; i < rows.size() && i < opt_.maxTableRows; ++i) {
    const RankRow &r = *rows[i];
    const uint64_t reads = r.classCalls[size_t(IoClass::Read)], writes = r.classCalls[size_t(IoClass::Write)];
    o_ << "<tr data-rank=\"" << r.rank << "\" data-bytes-read=\"" << r.bytesRead << "\" data-bytes-written=\""
       << r.bytesWritten << "\" data-rank-calls=\"" << r.calls << "\"><td class=\"n\">" << r.rank
       << "</td><td class=\"n\">" << r.calls << "</td><td class=\"n\">" << reads << "</td><td class=\"n\">" << writes
       << "</td><td class=\"n\">" << r.calls - std::min(r.calls, reads + writes) << "</td><td class=\"n\">"
       << r.bytesRead << "</td><td class=\"n\">" << r.bytesWritten << "</td><td class=\"n\">"
       << (timing == RankTiming::None ? "&mdash;" : svg::timeText(r.dataNs())) << "</td><td class=\"n\">"
       << (timing == RankTiming::None ? "&mdash;" : svg::timeText(r.classNs[size_t(IoClass::Metadata)]))
       << "</td></tr>";
  }
  o_ << "</table>\n";
  if (rows.size() > opt_.maxTableRows)
    o_ << "<p class=\"note\">" << rows.size() - opt_.maxTableRows << " more ranks not listed (the lightest).</p>\n";
  if (rankSummary_.ranks > rankRows_.size())
    o_ << "<p class=\"note\">The table and chart draw from the first " << rankRows_.size() << " of "
       << rankSummary_.ranks << " ranks; the slowest, fastest, mean and imbalance above count all.</p>\n";

  std::vector<svg::Bar> bars;
  for (size_t i = 0; i < rankRows_.size() && i < size_t(std::max<int64_t>(1, opt_.maxRanks)); ++i) {
    const RankRow &r = rankRows_[i];
    bars.push_back({"rank " + std::to_string(r.rank), double(r.bytes()), svg::bytesText(double(r.bytes())), "",
                    "data-rank-bytes=\"" + std::to_string(r.bytes()) + "\""});
  }
  o_ << svg::barChart(std::string("bytes moved per rank") +
                          (rankRows_.size() > bars.size() ? " (first " + std::to_string(bars.size()) + " ranks)" : ""),
                      bars);
}

} // namespace sio::report::detail
