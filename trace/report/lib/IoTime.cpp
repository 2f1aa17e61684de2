// I/O time against metadata time, and bandwidth with the way it is computed:
// Darshan's first numbers, from the calls expanded rank by rank.
#include "Writer.h"

#include "Svg.h"

#include <algorithm>
#include <cstdio>

namespace sio::report::detail {

using namespace sio::trace;

namespace {

constexpr double kHourNs = 3600e9;
constexpr double kMiB = 1024.0 * 1024.0;

std::string rate(double bytes, double ns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB/s", bytes / kMiB / (ns / 1e9));
  return buf;
}

double longestMean(const std::vector<Node> &body) {
  double m = 0;
  for (const Node &n : body)
    m = std::max(m, n.isLoop() ? longestMean(n.loop().body) : n.event().duration.mean());
  return m;
}

} // namespace

std::string Writer::timingCaveat() const {
  std::string out;
  if (extrapolated_)
    out = "This trace was extrapolated by sio-extrap to " + std::to_string(t_.header.nranks) +
          " ranks: its timings are predicted, not measured. Each call's mean duration is fitted against the rank "
          "count of the measured inputs; the count and shape of its histogram are those of the largest measured "
          "input, not calls at " +
          std::to_string(t_.header.nranks) + " ranks.";
  const double longest = longestMean(t_.body);
  if (longest > kHourNs)
    out += std::string(out.empty() ? "" : " ") + "One call's mean duration is " + svg::timeText(longest) +
           " (over an hour): implausible for one call" +
           (extrapolated_ ? "; a fit extrapolated far beyond its inputs (sio-extrap --verbose prints each fit)." : ".");
  return out;
}

void Writer::ioTime() {
  o_ << "<h2 id=\"time\">I/O time and bandwidth</h2>\n";
  const std::string caveat = timingCaveat();
  if (!caveat.empty())
    o_ << "<p class=\"note\">" << esc(caveat) << "</p>\n";
  const bool sampled = histRanks_.size() < size_t(std::max<int64_t>(0, t_.header.nranks));
  if (!anyTimed_) {
    o_ << "<p>The trace records no durations: no I/O time or bandwidth.</p>\n";
    return;
  }
  const RankRow &t = totals_;
  const double data = t.dataNs(), meta = t.classNs[size_t(IoClass::Metadata)];
  const double ranks = double(std::max<uint64_t>(1, rankSummary_.ranks));
  o_ << "<p>Time inside the calls, summed over "
     << (sampled ? std::to_string(rankSummary_.ranks) + " sampled ranks (of " + std::to_string(t_.header.nranks) + ")"
                 : "all ranks")
     << " and loop iterations: each call counts the mean duration of its event's statistics (for a call recorded "
        "alone, its own duration). <b>Data</b> is reads, writes and the waits completing nonblocking ones; "
        "<b>metadata</b> is every other file call (open, close, stat, seek, sync, set_view, truncate, ...); "
        "synchronization (MPI barriers and collectives) is apart, and so are inner calls, whose time is already "
        "inside the call they ran in.</p>\n";
  o_ << "<table id=\"io-time\"><tr><th>class</th><th>calls</th><th>of which without timing</th><th>time (summed "
        "over ranks)</th><th>mean per rank</th><th>share of I/O time</th></tr>";
  std::vector<svg::Bar> bars;
  auto row = [&](const std::string &name, const std::string &key, uint64_t calls, uint64_t untimed, double ns,
                 bool inIo) {
    char share[16] = "";
    if (inIo && data + meta > 0)
      std::snprintf(share, sizeof share, "%.1f%%", 100.0 * ns / (data + meta));
    char nsText[32];
    std::snprintf(nsText, sizeof nsText, "%.0f", ns);
    o_ << "<tr data-class=\"" << key << "\" data-ns=\"" << nsText << "\" data-calls=\"" << calls << "\"><td>"
       << esc(name) << "</td><td class=\"n\">" << calls << "</td><td class=\"n\">" << untimed << "</td><td class=\"n\">"
       << svg::timeText(ns) << "</td><td class=\"n\">" << svg::timeText(ns / ranks) << "</td><td class=\"n\">" << share
       << "</td></tr>";
    if (ns > 0 && key != "io") // the sum is the table's last row, not a bar beside its parts
      bars.push_back({name, ns, svg::timeText(ns), "", ""});
  };
  uint64_t dataCalls = 0, dataUntimed = 0;
  for (IoClass c : kIoClasses) {
    if (isData(c)) {
      dataCalls += t.classCalls[size_t(c)];
      dataUntimed += t.classUntimed[size_t(c)];
    }
    if (c != IoClass::Wait || t.classCalls[size_t(c)])
      row(std::string(ioClassName(c)) + (c == IoClass::Inner ? " (inside other calls, not added)" : ""),
          std::string(ioClassName(c)).substr(0, c == IoClass::Wait ? 4 : std::string::npos), t.classCalls[size_t(c)],
          t.classUntimed[size_t(c)], t.classNs[size_t(c)], c != IoClass::Sync && c != IoClass::Inner);
  }
  const uint64_t ioUntimed = dataUntimed + t.classUntimed[size_t(IoClass::Metadata)];
  row("I/O = data + metadata", "io", dataCalls + t.classCalls[size_t(IoClass::Metadata)], ioUntimed, data + meta, true);
  o_ << "</table>\n" << svg::barChart("time in calls by class (summed over ranks)", bars);

  // Bandwidth.
  const RankRow *slowest = &rankSummary_.slowestIo;
  o_ << "<table id=\"bandwidth\"><tr><th>bandwidth</th><th>value</th><th>computed as</th></tr>";
  // A rate is given only when every call of its time was timed: a time
  // missing some calls would make it too high.
  auto bw = [&](const std::string &key, const std::string &name, double bytes, double ns, uint64_t untimed,
                const std::string &how) {
    if (bytes <= 0)
      return;
    if (untimed || ns <= 0) {
      o_ << "<tr data-bw=\"" << key << "\"><th>" << esc(name)
         << "</th><td class=\"n\">&mdash;</td><td>not computed: " << untimed
         << " of its calls record no duration</td></tr>";
      return;
    }
    char bps[32];
    std::snprintf(bps, sizeof bps, "%.0f", bytes / (ns / 1e9));
    o_ << "<tr data-bw=\"" << key << "\" data-bytes-per-s=\"" << bps << "\"><th>" << esc(name)
       << "</th><td class=\"n\">" << rate(bytes, ns) << "</td><td>" << esc(how) << "</td></tr>";
  };
  const double rd = t.classNs[size_t(IoClass::Read)], wr = t.classNs[size_t(IoClass::Write)];
  bw("read", "read, per rank", double(t.bytesRead), rd, t.classUntimed[size_t(IoClass::Read)],
     std::to_string(t.bytesRead) + " bytes read / " + svg::timeText(rd) + " in read calls, both summed over ranks");
  bw("write", "write, per rank", double(t.bytesWritten), wr, t.classUntimed[size_t(IoClass::Write)],
     std::to_string(t.bytesWritten) + " bytes written / " + svg::timeText(wr) +
         " in write calls, both summed over ranks");
  bw("data", "reads and writes, per rank", double(t.bytes()), data, dataUntimed,
     std::to_string(t.bytes()) + " bytes / " + svg::timeText(data) + " of data time, both summed over ranks");
  bw("aggregate", "aggregate (by the slowest rank)", double(t.bytes()), slowest->ioNs(), ioUntimed,
     std::to_string(t.bytes()) + " bytes of all ranks / " + svg::timeText(slowest->ioNs()) +
         " of I/O time (data + metadata) of rank " + std::to_string(slowest->rank) +
         ", the longest, as Darshan's agg_perf_by_slowest: the ranks are taken to do their I/O at the same time" +
         (rankTiming_ == RankTiming::Merged ? "; that rank's time is an estimate (timing merged over ranks)" : "") +
         (sampled ? "; over the sampled ranks only" : ""));
  o_ << "</table>\n<p>1 MiB = 1,048,576 bytes; times in the trace are nanoseconds. A per-rank rate is what one "
        "rank sees while inside its calls; the aggregate is what the whole job moved per second of I/O.</p>\n";
}

} // namespace sio::report::detail
