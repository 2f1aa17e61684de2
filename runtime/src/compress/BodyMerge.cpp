#include "BodyMerge.h"

#include "Structure.h"

#include <unordered_map>

namespace sio::rt::detail {

using namespace sio::trace;

namespace {

void mergeInto(ElasticValue &a, ElasticValue b) {
  auto &entries = a.entries();
  for (ElasticEntry &e : b.entries()) {
    auto same = std::find_if(entries.begin(), entries.end(), [&](const ElasticEntry &x) { return x.value == e.value; });
    if (same != entries.end())
      same->ranks = same->ranks.unite(e.ranks);
    else
      entries.push_back(std::move(e));
  }
}

/// Nodes that merge into one: equal events, or loops with the same id (their
/// bodies are merged recursively, so a loop whose body differs on some ranks
/// still becomes one loop with per-rank nodes inside).
bool matchable(const Node &a, const Node &b) {
  if (a.isEvent() != b.isEvent())
    return false;
  if (a.isEvent())
    return sameStructure(a.event(), b.event());
  return a.loop().id == b.loop().id;
}

uint64_t alignKey(const Node &n) {
  return n.isEvent() ? detail::structureHash(n.event()) : detail::hashCombine(0x1009ULL, n.loop().id);
}

Node mergeNodes(Node a, Node b) {
  if (a.isEvent()) {
    // Per-rank timing: a side without groups (all its ranks in one, a
    // finalized trace's compacted form) gets one from its statistics.
    Event &ea = a.event();
    Event &eb = b.event();
    if (!ea.rankTiming.empty() || !eb.rankTiming.empty()) {
      for (auto [e, ranks] : {std::pair{&ea, &a.ranks}, std::pair{&eb, &b.ranks}})
        if (e->rankTiming.empty() && (e->duration.count() || e->compute.count()))
          e->rankTiming.push_back(rankTimingOf(*ranks, e->compute, e->duration));
      mergeRankTiming(ea.rankTiming, std::move(eb.rankTiming));
    }
  }
  a.ranks = a.ranks.unite(b.ranks);
  if (a.isEvent()) {
    Event &ea = a.event();
    Event &eb = b.event();
    for (size_t k = 0; k < ea.params.size(); ++k)
      mergeInto(ea.params[k].value, std::move(eb.params[k].value));
    ea.compute.merge(eb.compute);
    ea.duration.merge(eb.duration);
  } else {
    mergeInto(a.loop().iterations, std::move(b.loop().iterations));
    a.loop().body = mergeBodies(std::move(a.loop().body), std::move(b.loop().body));
  }
  return a;
}

/// Gaps larger than this (product of lengths) are not aligned by LCS: their
/// nodes are kept side by side, which is still correct (disjoint ranks).
constexpr size_t kMaxAlignCells = size_t(1) << 22;

} // namespace

std::vector<Node> mergeBodies(std::vector<Node> a, std::vector<Node> b) {
  std::vector<Node> out;
  out.reserve(std::max(a.size(), b.size()));
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && matchable(a[prefix], b[prefix]))
    ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         matchable(a[a.size() - 1 - suffix], b[b.size() - 1 - suffix]))
    ++suffix;
  for (size_t k = 0; k < prefix; ++k)
    out.push_back(mergeNodes(std::move(a[k]), std::move(b[k])));

  const size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
  if (n > 0 && m > 0 && n * m <= kMaxAlignCells) {
    // LCS over the divergent middle; lcs[i][j] for suffixes a[i..], b[j..].
    std::vector<uint64_t> keyA(n), keyB(m);
    for (size_t i = 0; i < n; ++i)
      keyA[i] = alignKey(a[prefix + i]);
    for (size_t j = 0; j < m; ++j)
      keyB[j] = alignKey(b[prefix + j]);
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t & { return lcs[i * (m + 1) + j]; };
    auto match = [&](size_t i, size_t j) { return keyA[i] == keyB[j] && matchable(a[prefix + i], b[prefix + j]); };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = match(i, j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n && j < m) {
      if (match(i, j) && at(i, j) == at(i + 1, j + 1) + 1) {
        out.push_back(mergeNodes(std::move(a[prefix + i]), std::move(b[prefix + j])));
        ++i, ++j;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        out.push_back(std::move(a[prefix + i++]));
      } else {
        out.push_back(std::move(b[prefix + j++]));
      }
    }
    for (; i < n; ++i)
      out.push_back(std::move(a[prefix + i]));
    for (; j < m; ++j)
      out.push_back(std::move(b[prefix + j]));
  } else {
    for (size_t i = 0; i < n; ++i)
      out.push_back(std::move(a[prefix + i]));
    for (size_t j = 0; j < m; ++j)
      out.push_back(std::move(b[prefix + j]));
  }
  for (size_t k = suffix; k-- > 0;)
    out.push_back(mergeNodes(std::move(a[a.size() - 1 - k]), std::move(b[b.size() - 1 - k])));
  return out;
}

} // namespace sio::rt::detail
