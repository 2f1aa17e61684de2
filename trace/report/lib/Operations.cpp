// Calls and bytes by operation, by layer (inner calls apart) and by file:
// exact summaries, no expansion.
#include "Writer.h"

#include "Svg.h"

#include <set>
#include <sstream>

namespace sio::report::detail {

using namespace sio::trace;

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

TraceSummary summarizeOnly(const Trace &t, const std::function<bool(const Event &)> &keep) {
  Trace filtered;
  filtered.header = t.header;
  filtered.datatypes = t.datatypes;
  filtered.files = t.files;
  filtered.body = filterBody(t.body, keep);
  return summarize(filtered);
}

void Writer::operations() {
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
    o_ << "<tr data-file=\"" << id << "\" data-calls=\"" << s.calls << "\" data-bytes=\"" << s.bytes << "\"><td>f" << id
       << "</td><td class=\"mono\">" << esc(fileLabel(t_, id)) << "</td><td class=\"n\">" << s.calls
       << "</td><td class=\"n\">" << s.bytes << "</td></tr>";
  }
  o_ << "</table>\n";
  if (files.size() > opt_.maxTableRows)
    o_ << "<p class=\"note\">" << files.size() - opt_.maxTableRows << " more files not shown.</p>\n";
}

void Writer::collectLayers(const std::vector<Node> &body, std::set<LayerKey> &keys) {
  for (const Node &n : body) {
    if (n.isEvent())
      keys.insert({n.event().layer, n.event().inner});
    else
      collectLayers(n.loop().body, keys);
  }
}

} // namespace sio::report::detail
