// Per file: offsets of reads and writes against their order and time, one colour per rank.
#include "Writer.h"

#include "Svg.h"
#include <algorithm>

namespace sio::report::detail {

using namespace sio::trace;

void Writer::accessPatterns() {
  o_ << "<h2 id=\"access\">Access patterns</h2>\n";
  const int64_t n = t_.header.nranks;
  if (plotRanks_.size() < size_t(n))
    o_ << "<p class=\"note\">" << n << " ranks: a sample of " << plotRanks_.size()
       << " evenly spaced ranks is drawn (ranks " << plotRanks_.front() << " to " << plotRanks_.back() << ").</p>\n";
  else
    o_ << "<p>Each read and write: its offset against its order among the rank's accesses to the file; one "
          "colour per rank (all "
       << n << " ranks); shaded bands are executions of the outermost loops.</p>\n";
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
      o_ << (first ? "" : ", ") << "<a href=\"#" << siteAnchor(s) << "\" class=\"mono\">" << esc(siteLocation(t_, s))
         << "</a>";
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
                         "\" data-order=\"" + std::to_string(p.order) + "\" data-offset=\"" + std::to_string(p.offset) +
                         "\"";
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
                          "access order on the rank (reads and writes to this file)",
                          "offset",
                          true,
                          false,
                          byOrder.size() > 1000 ? 1.5 : 2.5};
    o_ << "<div class=\"figs\">" << svg::scatter(spec, byOrder, bands);
    if (allTimed && anyTimed_) {
      svg::ScatterSpec tspec{"offset against time: " + svg::shorten(fileLabel(t_, file), 60),
                             std::string("time on the rank") + (anyReconstructed_ ? " (reconstructed)" : ""),
                             "offset",
                             true,
                             true,
                             spec.radius};
      o_ << svg::scatter(tspec, byTime, {});
    }
    o_ << "</div>\n";
  }
}

void Writer::legend() {
  o_ << "<p class=\"legend\">";
  for (size_t k = 0; k < plotRanks_.size(); ++k)
    o_ << "<span><i style=\"background:" << svg::colour(int(k)) << "\"></i>rank " << plotRanks_[k] << "</span>";
  o_ << "</p>\n";
}

} // namespace sio::report::detail
