// Per file, what Darshan's file table shows first: bytes read and written,
// read, write and other calls, and the most common access sizes.
#include "Writer.h"

#include "Svg.h"

#include <algorithm>

namespace sio::report::detail {

using namespace sio::trace;

void Writer::filesSection() {
  o_ << "<h2 id=\"files\">Files</h2>\n<p>Bytes and calls per file, summed over ranks and loop iterations "
        "(exact, as <code>sio-trace stats</code>; inner calls are not counted). Other calls are the file's "
        "opens, closes, seeks, syncs, views and the like. The common access sizes come from the calls expanded "
        "rank by rank"
     << (histRanks_.size() < size_t(std::max<int64_t>(0, t_.header.nranks))
             ? " (" + std::to_string(histRanks_.size()) + " sampled ranks)"
             : "")
     << ".</p>\n";
  if (s_.byFile.empty()) {
    o_ << "<p>No calls name a file.</p>\n";
    return;
  }
  // Exact per-direction totals: summaries of copies holding the reads (or
  // the writes) and the calls that open files, which the handles of the
  // reads and writes need; the opens' calls are then taken off.
  auto opens = [](const Event &e) { return !e.inner && e.param("file") && direction(e.op) == Direction::None; };
  const TraceSummary opened = summarizeOnly(t_, opens);
  const TraceSummary reads =
      summarizeOnly(t_, [&](const Event &e) { return opens(e) || (!e.inner && direction(e.op) == Direction::Read); });
  const TraceSummary writes =
      summarizeOnly(t_, [&](const Event &e) { return opens(e) || (!e.inner && direction(e.op) == Direction::Write); });
  auto get = [&](const TraceSummary &s, int64_t f) {
    auto it = s.byFile.find(f), o = opened.byFile.find(f);
    OpSummary out = it == s.byFile.end() ? OpSummary{} : it->second;
    if (o != opened.byFile.end())
      out.calls -= std::min(out.calls, o->second.calls);
    return out;
  };
  std::vector<std::pair<int64_t, OpSummary>> files(s_.byFile.begin(), s_.byFile.end());
  std::stable_sort(files.begin(), files.end(),
                   [](const auto &a, const auto &b) { return a.second.bytes > b.second.bytes; });
  std::vector<svg::Bar> bars;
  o_ << "<table id=\"file-io\"><tr><th>file</th><th>name</th><th>bytes read</th><th>bytes written</th>"
        "<th>reads</th><th>writes</th><th>other calls</th><th>most common access sizes</th></tr>";
  for (size_t i = 0; i < files.size() && i < opt_.maxTableRows; ++i) {
    const auto &[id, s] = files[i];
    const OpSummary r = get(reads, id), w = get(writes, id);
    const uint64_t other = s.calls - std::min(s.calls, r.calls + w.calls);
    auto sizes = fileSizes_.find(id);
    o_ << "<tr data-fid=\"" << id << "\" data-read=\"" << r.bytes << "\" data-written=\"" << w.bytes
       << "\" data-reads=\"" << r.calls << "\" data-writes=\"" << w.calls << "\" data-other=\"" << other << "\"><td>f"
       << id << "</td><td class=\"mono\">" << esc(fileLabel(t_, id)) << "</td><td class=\"n\">" << r.bytes
       << "</td><td class=\"n\">" << w.bytes << "</td><td class=\"n\">" << r.calls << "</td><td class=\"n\">" << w.calls
       << "</td><td class=\"n\">" << other << "</td><td class=\"common\">"
       << (sizes == fileSizes_.end() ? "&mdash;" : commonSizesText(sizes->second, 4)) << "</td></tr>";
    const std::string label = fileLabel(t_, id);
    if (r.bytes)
      bars.push_back({label + " (read)", double(r.bytes), svg::bytesText(double(r.bytes)),
                      "#file-" + std::to_string(id), "data-read-of=\"" + std::to_string(id) + "\""});
    if (w.bytes)
      bars.push_back({label + " (written)", double(w.bytes), svg::bytesText(double(w.bytes)),
                      "#file-" + std::to_string(id), "data-written-of=\"" + std::to_string(id) + "\""});
  }
  o_ << "</table>\n";
  if (files.size() > opt_.maxTableRows)
    o_ << "<p class=\"note\">" << files.size() - opt_.maxTableRows << " more files not shown.</p>\n";
  if (!bars.empty())
    o_ << svg::barChart("bytes read and written per file", bars);
}

} // namespace sio::report::detail
