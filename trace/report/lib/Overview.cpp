// The overview section: the header of the trace and, with several inputs, the list of them.
#include "Writer.h"

#include "Svg.h"

namespace sio::report::detail {

using namespace sio::trace;

void Writer::header() {
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
  row("time span", span + (extrapolated_ ? " &mdash; <b>extrapolated</b>, not measured" : ""));
  row("timing",
      !anyTimed_      ? "none recorded"
      : extrapolated_ ? "<b>extrapolated</b> by sio-extrap (fitted against the rank count of the measured inputs)"
      : rankTiming_ == RankTiming::PerRank ? "measured, each rank's own"
      : rankTiming_ == RankTiming::Partial ? "measured for some calls only (others record no duration)"
                                           : "measured, statistics merged over the ranks making a call",
      "timing");
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

void Writer::extrapolationNote() {
  if (!extrapolated_)
    return;
  o_ << "<p class=\"note\" id=\"extrapolated\"><b>Extrapolated trace.</b> " << esc(t_.header.generator)
     << " wrote this trace for " << t_.header.nranks
     << " ranks from traces measured at fewer: its calls, bytes and offsets follow exact fits, its timings are "
        "predictions (see <a href=\"#time\">I/O time</a>).</p>\n";
}

} // namespace sio::report::detail
