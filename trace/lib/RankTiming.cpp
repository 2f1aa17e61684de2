#include "sio/trace/RankTiming.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <tuple>
#include <unordered_map>

namespace sio::trace {

namespace {

TimingSummary summaryOf(const TimingStats &s) { return {s.sum(), s.min(), s.max()}; }

void add(TimingSummary &a, const TimingSummary &b) {
  a.sum += b.sum;
  a.min = std::min(a.min, b.min);
  a.max = std::max(a.max, b.max);
}

/// Groups that join: the same calls per rank, and the mean time a call
/// takes with its gap in the same log2 bin. One bin for the sum rather than
/// one per quantity: the smaller of the two (often a gap of a few us) is the
/// noisier and would split equal ranks for a difference no timeline shows.
uint64_t keyOf(const RankTiming &g) {
  const double mean = std::max(g.durationMean() + g.computeMean(), 0.0);
  return g.count * 64 + uint64_t(TimingStats::binOf(uint64_t(std::llround(mean))));
}

} // namespace

RankTiming rankTimingOf(const RankList &ranks, const TimingStats &compute, const TimingStats &duration) {
  RankTiming g;
  g.ranks = ranks;
  const uint64_t n = std::max<uint64_t>(1, uint64_t(ranks.size()));
  g.count = std::max(duration.count(), compute.count()) / n;
  g.compute = summaryOf(compute);
  g.duration = summaryOf(duration);
  return g;
}

void mergeRankTiming(std::vector<RankTiming> &a, std::vector<RankTiming> b) {
  std::unordered_map<uint64_t, size_t> byKey;
  for (size_t i = 0; i < a.size(); ++i)
    byKey.emplace(keyOf(a[i]), i);
  for (RankTiming &g : b) {
    auto [it, added] = byKey.emplace(keyOf(g), a.size());
    if (added) {
      a.push_back(std::move(g));
      continue;
    }
    RankTiming &into = a[it->second];
    into.ranks = into.ranks.unite(g.ranks);
    add(into.compute, g.compute);
    add(into.duration, g.duration);
  }
}

namespace {

void putRun(std::string &out, int64_t first, int64_t last, int64_t stride) {
  out += (out.empty() ? "" : ",") + std::to_string(first);
  if (last != first)
    out += "-" + std::to_string(last) + (stride != 1 ? ":" + std::to_string(stride) : "");
}

std::string ranksText(const RankList &ranks) {
  std::string out;
  for (const RankBlock &b : ranks.blocks()) {
    if (b.dims.size() <= 1) {
      const int64_t stride = b.dims.empty() ? 1 : b.dims[0].stride;
      putRun(out, b.start, b.last(), stride);
      continue;
    }
    // A mesh: its ranks as arithmetic runs.
    std::vector<int64_t> all = RankList::fromBlocks({b}).ranks();
    for (size_t i = 0; i < all.size();) {
      size_t j = i + 1;
      const int64_t stride = j < all.size() ? all[j] - all[i] : 1;
      while (j < all.size() && all[j] - all[j - 1] == stride)
        ++j;
      putRun(out, all[i], all[j - 1], stride);
      i = j;
    }
  }
  return out;
}

bool parseInt(std::string_view s, int64_t &v) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  v = 0;
  for (char c : s)
    v = v * 10 + (c - '0');
  return true;
}

} // namespace

std::string rankTimingText(const RankTiming &g) {
  const double n = double(g.samples());
  auto mean = [&](const TimingSummary &s) { return std::to_string(n ? std::llround(s.sum / n) : 0); };
  return ranksText(g.ranks) + " " + std::to_string(g.count) + " " + mean(g.duration) + " " +
         std::to_string(g.duration.min) + " " + std::to_string(g.duration.max) + " " + mean(g.compute) + " " +
         std::to_string(g.compute.min) + " " + std::to_string(g.compute.max);
}

std::optional<RankTiming> parseRankTiming(std::string_view text, std::string &error) {
  std::vector<std::string_view> words;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = std::min(text.find(' ', pos), text.size());
    words.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  if (words.size() != 8) {
    error = "expected \"RANKS COUNT DMEAN DMIN DMAX GMEAN GMIN GMAX\" (8 words), found " + std::to_string(words.size());
    return std::nullopt;
  }
  RankTiming g;
  int64_t total = 0;
  std::string_view ranks = words[0];
  for (size_t pos = 0; pos <= ranks.size();) {
    size_t end = std::min(ranks.find(',', pos), ranks.size());
    std::string_view item = ranks.substr(pos, end - pos);
    pos = end + 1;
    int64_t first = 0, last = 0, stride = 1;
    size_t dash = item.find('-'), colon = item.find(':');
    bool ok =
        dash == std::string_view::npos
            ? parseInt(item, first) && (last = first, true)
            : parseInt(item.substr(0, dash), first) &&
                  parseInt(item.substr(dash + 1, colon == std::string_view::npos ? colon : colon - dash - 1), last) &&
                  (colon == std::string_view::npos || parseInt(item.substr(colon + 1), stride));
    if (ok && last > int64_t(INT32_MAX)) {
      error = "rank " + std::to_string(last) + " out of range";
      return std::nullopt;
    }
    if (!ok || stride < 1 || last < first || (last - first) % stride) {
      error = "bad rank item \"" + std::string(item) + "\" (expected a, a-b or a-b:stride, b - a a multiple of stride)";
      return std::nullopt;
    }
    const int64_t count = (last - first) / stride + 1;
    total += count;
    g.ranks = g.ranks.unite(RankList::range(first, count, stride));
    if (g.ranks.size() != total) {
      error = "rank items overlap";
      return std::nullopt;
    }
  }
  int64_t v[7];
  for (int k = 0; k < 7; ++k)
    if (!parseInt(words[size_t(k) + 1], v[k])) {
      error = "expected a non-negative integer, found \"" + std::string(words[size_t(k) + 1]) + "\"";
      return std::nullopt;
    }
  g.count = uint64_t(v[0]);
  for (auto [s, at] : {std::pair{&g.duration, 1}, std::pair{&g.compute, 4}}) {
    s->min = uint64_t(v[at + 1]);
    s->max = uint64_t(v[at + 2]);
    if (g.count && (s->min > s->max || v[at] < v[at + 1] || v[at] > v[at + 2])) {
      error = "expected min <= mean <= max";
      return std::nullopt;
    }
    s->sum = double(v[at]) * double(g.samples());
  }
  return g;
}

const RankTiming *findRankTiming(const std::vector<RankTiming> &groups, int64_t rank) {
  for (const RankTiming &g : groups)
    if (g.ranks.contains(rank))
      return &g;
  return nullptr;
}

} // namespace sio::trace
