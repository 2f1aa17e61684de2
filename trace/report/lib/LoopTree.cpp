// The loop structure: the compressed body as a tree, the anchors the plots link to.
#include "Writer.h"

#include "Svg.h"

namespace sio::report::detail {

using namespace sio::trace;

void Writer::loops() {
  o_ << "<h2 id=\"loops\">Loop structure</h2>\n<p>The compressed trace: loops with their iteration counts "
        "(formulas of rank, nranks and outer loop indices <code>i0</code>, <code>i1</code>, ...) and the calls "
        "in them with their source locations.</p>\n";
  const std::string caveat = timingCaveat();
  if (!caveat.empty())
    o_ << "<p class=\"note\">" << esc(caveat) << "</p>\n";
  nodesShown_ = 0;
  tree(t_.body, 0, nullptr);
  if (nodesShown_ > kMaxTreeNodes)
    o_ << "<p class=\"note\">The structure is cut after " << kMaxTreeNodes << " nodes.</p>\n";
}

void Writer::tree(const std::vector<Node> &body, uint32_t depth, const RankList *parent) {
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
         << (e.inner ? " (inner)" : "") << " <span class=\"note\">" << esc(siteText(e)) << "</span>";
      // In an extrapolated trace the statistics' count is a measured input's,
      // not the calls at this rank count, and the mean is a fit.
      if (e.duration.count() && extrapolated_)
        o_ << " &middot; <span class=\"extrap\">extrapolated mean " << svg::timeText(e.duration.mean()) << " (fitted; "
           << svg::countText(e.duration.count()) << " samples of a measured input)</span>";
      else if (e.duration.count())
        o_ << " &middot; " << svg::countText(e.duration.count()) << " calls, mean " << svg::timeText(e.duration.mean());
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

} // namespace sio::report::detail
