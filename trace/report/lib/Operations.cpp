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
  o_ << "<h2 id=\"operations\">Operations and layers</h2>\n";
  o_ << "<p>Calls and bytes summed over ranks and loop iterations (as <code>sio-trace stats</code>). Calls "
        "made inside another traced call (<b>inner</b>: the POSIX calls an MPI-IO library makes to carry out "
        "a read or write) count as calls, but the bytes they move are the outer call's bytes again: they are "
        "shown apart (the <i>inner bytes</i> column and the last chart) and not added to the application's "
        "bytes or to its files.</p>\n";
  // Inner calls of each operation and layer: an exact summary of a copy
  // holding only them, so that the charts draw the application's share.
  const TraceSummary inner = summarizeOnly(t_, [](const Event &e) { return e.inner; });
  auto innerOf = [&](const std::string &op) {
    auto it = inner.byOp.find(op);
    return it == inner.byOp.end() ? OpSummary{} : it->second;
  };
  std::vector<svg::Bar> calls, bytes, innerBars;
  for (const auto &[op, s] : s_.byOp) {
    const OpSummary in = innerOf(op);
    std::string data = "data-op=\"" + esc(op) + "\"";
    calls.push_back({op, double(s.calls), svg::countText(s.calls), "", data});
    if (s.bytes - in.bytes)
      bytes.push_back({op, double(s.bytes - in.bytes), svg::bytesText(double(s.bytes - in.bytes)), "", data});
    if (in.bytes)
      innerBars.push_back({op + " (inner)", double(in.bytes), svg::bytesText(double(in.bytes)), "",
                           "data-inner-op=\"" + esc(op) + "\""});
  }
  o_ << "<div class=\"figs\">" << svg::barChart("calls by operation", calls);
  if (!bytes.empty())
    o_ << svg::barChart("bytes by operation (inner calls apart)", bytes);
  o_ << "</div>\n";
  o_ << "<table id=\"ops-table\"><tr><th>operation</th><th>calls</th><th>bytes</th><th>of which inner calls</th>"
        "<th>inner bytes (not in the totals)</th></tr>";
  for (const auto &[op, s] : s_.byOp) {
    const OpSummary in = innerOf(op);
    o_ << "<tr data-op=\"" << esc(op) << "\" data-calls=\"" << s.calls << "\" data-bytes=\"" << s.bytes
       << "\" data-inner-bytes=\"" << in.bytes << "\"><td class=\"mono\">" << esc(op) << "</td><td class=\"n\">"
       << s.calls << "</td><td class=\"n\">" << s.bytes << "</td><td class=\"n\">" << in.calls
       << "</td><td class=\"n\">" << in.bytes << "</td></tr>";
  }
  o_ << "</table>\n";

  // By layer, inner calls apart: exact summaries of filtered copies.
  std::set<LayerKey> keys;
  collectLayers(t_.body, keys);
  std::vector<svg::Bar> lcalls, lbytes;
  o_ << "<h3>By layer</h3>";
  std::ostringstream table;
  table << "<table id=\"layers-table\"><tr><th>layer</th><th>calls</th><th>bytes</th></tr>";
  for (const LayerKey &k : keys) {
    TraceSummary fs = summarizeOnly(t_, [&](const Event &e) { return e.layer == k.layer && e.inner == k.inner; });
    int64_t b = 0;
    for (const auto &[op, s] : fs.byOp)
      b += s.bytes;
    std::string name = layerTitle(k.layer) + (k.inner ? " (inner)" : "");
    lcalls.push_back({name, double(fs.totalCalls), svg::countText(fs.totalCalls), "", ""});
    if (b && !k.inner)
      lbytes.push_back({name, double(b), svg::bytesText(double(b)), "", ""});
    table << "<tr data-layer=\"" << esc(name) << "\" data-calls=\"" << fs.totalCalls << "\" data-bytes=\"" << b
          << "\"><td>" << esc(name) << "</td><td class=\"n\">" << fs.totalCalls << "</td><td class=\"n\">" << b
          << (k.inner ? " (not in the totals)" : "") << "</td></tr>";
  }
  table << "</table>\n";
  o_ << "<div class=\"figs\">" << svg::barChart("calls by layer", lcalls);
  if (!lbytes.empty())
    o_ << svg::barChart("bytes by layer (application calls)", lbytes);
  if (!innerBars.empty())
    o_ << "<div id=\"inner-bytes\">"
       << svg::barChart("bytes moved by inner calls (the outer calls' bytes again; not in the totals)", innerBars)
       << "</div>";
  o_ << "</div>\n" << table.str();

  o_ << "<h3>Calls and bytes by file</h3>";
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
