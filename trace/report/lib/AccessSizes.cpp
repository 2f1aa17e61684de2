// Access sizes, as Darshan shows them: read and write size histograms apart
// and the most common access sizes, from the calls expanded rank by rank.
#include "Writer.h"

#include "Svg.h"

#include <algorithm>

namespace sio::report::detail {

using namespace sio::trace;

namespace {

/// Sizes by descending count, ties by ascending size (Darshan lists four).
std::vector<std::pair<int64_t, uint64_t>> mostCommon(const std::map<int64_t, uint64_t> &sizes, size_t n) {
  std::vector<std::pair<int64_t, uint64_t>> v(sizes.begin(), sizes.end());
  std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
  if (v.size() > n)
    v.resize(n);
  return v;
}

} // namespace

std::string Writer::commonSizesText(const SizeCounts &sizes, size_t n) {
  std::string out;
  for (const auto &[size, count] : mostCommon(sizes.sizes, n))
    out += (out.empty() ? "" : ", ") + std::to_string(size) + " B &times; " + std::to_string(count);
  if (sizes.otherCalls)
    out += " (" + std::to_string(sizes.otherCalls) + " calls of sizes past the first " +
           std::to_string(SizeCounts::kMaxDistinct) + " distinct ones not counted)";
  return out.empty() ? "&mdash;" : out;
}

void Writer::accessSizes() {
  o_ << "<h2 id=\"sizes\">Access sizes</h2>\n<p>Bytes per read and per write call (inner calls left out: "
        "their bytes belong to the call they ran in), from the calls of "
     << (histRanks_.size() < size_t(std::max<int64_t>(0, t_.header.nranks))
             ? std::to_string(histRanks_.size()) + " sampled ranks (not all " + std::to_string(t_.header.nranks) + ")"
             : "every rank")
     << ". Histograms use log2 bins; the table lists the four most common exact sizes, as Darshan does.</p>\n";
  if (!readSizes_.calls && !writeSizes_.calls) {
    o_ << "<p>No reads or writes.</p>\n";
    return;
  }
  o_ << "<div class=\"figs\">";
  for (const auto &[what, sc] : {std::pair<std::string, const SizeCounts *>{"read", &readSizes_},
                                 std::pair<std::string, const SizeCounts *>{"write", &writeSizes_}}) {
    const auto &bins = sc->bins;
    const uint64_t calls = sc->calls;
    size_t first, last;
    if (!binRange(bins, first, last))
      continue;
    std::vector<std::string> labels;
    for (size_t b = first; b <= last; ++b)
      labels.push_back(b == 0 ? "0" : svg::bytesText(double(TimingStats::binLow(int(b)))));
    o_ << "<div id=\"" << what << "-sizes\">"
       << svg::histogram(what + " sizes: " + svg::countText(calls) + " calls", labels,
                         std::vector<uint64_t>(bins.begin() + long(first), bins.begin() + long(last) + 1),
                         "bytes per " + what + " (bin lower bound)")
       << "</div>";
  }
  o_ << "</div>\n";
  std::map<int64_t, uint64_t> all = readSizes_.sizes;
  for (const auto &[size, count] : writeSizes_.sizes)
    all[size] += count;
  o_ << "<table id=\"common-sizes\"><tr><th>most common access sizes</th><th>bytes</th><th>calls</th></tr>";
  for (const auto &[size, count] : mostCommon(all, 4))
    o_ << "<tr data-size=\"" << size << "\" data-count=\"" << count << "\"><td>" << svg::bytesText(double(size))
       << "</td><td class=\"n\">" << size << "</td><td class=\"n\">" << count << "</td></tr>";
  o_ << "</table>\n";
  if (readSizes_.otherCalls + writeSizes_.otherCalls)
    o_ << "<p class=\"note\">" << readSizes_.otherCalls + writeSizes_.otherCalls << " calls have sizes past the first "
       << SizeCounts::kMaxDistinct << " distinct ones (per direction): in the histograms, not in this table.</p>\n";
}

} // namespace sio::report::detail
