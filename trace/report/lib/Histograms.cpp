// Request sizes (expansion) and timing histograms (the trace's merged statistics).
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
    o_ << svg::histogram(
        "computation gaps before calls (all sites): n=" + svg::countText(gaps.count()) + ", mean " +
            svg::timeText(gaps.mean()),
        timeBinLabels(first, last),
        std::vector<uint64_t>(gaps.histogram().begin() + long(first), gaps.histogram().begin() + long(last) + 1),
        "gap (bin lower bound)");
  o_ << "<div class=\"figs\">";
  size_t shown = 0;
  for (const auto &[site, st] : bySite) {
    if (!st.count() || !binRange(st.histogram(), first, last))
      continue;
    if (shown++ >= opt_.maxTableRows)
      break;
    o_ << "<div>"
       << "<a href=\"#" << siteAnchor(site) << "\" class=\"mono\">" << esc(siteLocation(t_, site)) << "</a>"
       << svg::histogram(
              "duration of " + siteOp[site] + ": n=" + svg::countText(st.count()) + ", mean " +
                  svg::timeText(st.mean()),
              timeBinLabels(first, last),
              std::vector<uint64_t>(st.histogram().begin() + long(first), st.histogram().begin() + long(last) + 1),
              "duration (bin lower bound)")
       << "</div>";
  }
  o_ << "</div>\n";
}

void Writer::collectTiming(const std::vector<Node> &body, std::map<uint64_t, TimingStats> &bySite, TimingStats &gaps,
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

} // namespace sio::report::detail
