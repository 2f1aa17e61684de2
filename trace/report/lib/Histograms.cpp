// Timing histograms: per call site and of the computation gaps, from the
// trace's merged statistics (exact histograms, no expansion).
#include "Writer.h"

#include "Svg.h"

namespace sio::report::detail {

using namespace sio::trace;

std::vector<std::string> Writer::timeBinLabels(size_t first, size_t last) {
  std::vector<std::string> out;
  for (size_t b = first; b <= last; ++b)
    out.push_back(b == 0 ? "0" : svg::timeText(double(TimingStats::binLow(int(b)))));
  return out;
}

void Writer::histograms() {
  o_ << "<h2 id=\"histograms\">Timing</h2>\n";
  std::map<std::string, SiteTiming> bySite;
  TimingStats gaps;
  collectTiming(t_.body, bySite, gaps);
  bool any = false;
  for (const auto &[key, st] : bySite)
    any |= st.stats.count() > 0;
  if (!any && !gaps.count()) {
    o_ << "<p>The trace records no timing.</p>\n";
    return;
  }
  o_ << "<p>Timing histograms are the trace's merged log2 histograms (exact counts per bin).</p>\n";
  const std::string caveat = timingCaveat();
  if (!caveat.empty())
    o_ << "<p class=\"note\" id=\"timing-caveat\">" << esc(caveat) << "</p>\n";
  const std::string mark = extrapolated_ ? " (extrapolated)" : "";
  size_t first, last;
  if (gaps.count() && binRange(gaps.histogram(), first, last))
    o_ << svg::histogram(
        "computation gaps before calls (all sites): n=" + svg::countText(gaps.count()) + ", mean " +
            svg::timeText(gaps.mean()) + mark,
        timeBinLabels(first, last),
        std::vector<uint64_t>(gaps.histogram().begin() + long(first), gaps.histogram().begin() + long(last) + 1),
        "gap (bin lower bound)");
  o_ << "<div class=\"figs\">";
  size_t shown = 0;
  for (const auto &[key, st] : bySite) {
    if (!st.stats.count() || !binRange(st.stats.histogram(), first, last))
      continue;
    if (shown++ >= opt_.maxTableRows)
      break;
    o_ << "<div>"
       << "<a href=\"#" << siteAnchor(st.anchorSite) << "\" class=\"mono\">" << esc(st.label) << "</a>"
       << svg::histogram("duration of " + st.op + ": n=" + svg::countText(st.stats.count()) + ", mean " +
                             svg::timeText(st.stats.mean()) + mark,
                         timeBinLabels(first, last),
                         std::vector<uint64_t>(st.stats.histogram().begin() + long(first),
                                               st.stats.histogram().begin() + long(last) + 1),
                         "duration (bin lower bound)")
       << "</div>";
  }
  o_ << "</div>\n";
}

void Writer::collectTiming(const std::vector<Node> &body, std::map<std::string, SiteTiming> &bySite,
                           TimingStats &gaps) {
  for (const Node &n : body) {
    if (n.isLoop()) {
      collectTiming(n.loop().body, bySite, gaps);
      continue;
    }
    const Event &e = n.event();
    // Inner calls without a site of their own are told apart by their outer call.
    const std::string label = siteText(e);
    SiteTiming &st = bySite[label + '\n' + e.op];
    if (st.label.empty()) {
      st.label = label;
      st.op = e.op;
      auto outer = outerOf_.find(&e);
      st.anchorSite = e.site || outer == outerOf_.end() ? e.site : outer->second->site;
    }
    st.stats.merge(e.duration);
    gaps.merge(e.compute);
  }
}

} // namespace sio::report::detail
