#include "InterRank.h"

#include "ExprUtil.h"
#include "Structure.h"

#include "sio/trace/Fit.h"
#include "sio/trace/Json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <unordered_map>

namespace sio::rt {

using namespace sio::trace;
using detail::bindRank;
using detail::isText;
using detail::monomialExpr;
using detail::sameStructure;

std::optional<TableKind> tableOfParam(std::string_view name) {
  if (isFileParam(name))
    return TableKind::Files;
  if (name == "datatype" || name == "etype" || name == "filetype" || name == "oldtype" || name == "newtype")
    return TableKind::Datatypes;
  if (name == "comm" || name == "newcomm" || name == "peer_comm")
    return TableKind::Comms;
  if (name == "info")
    return TableKind::Infos;
  return std::nullopt;
}

namespace {

// ---------------------------------------------------------------- tables ----

std::string contentKey(const FileEntry &f) {
  std::string key;
  for (const FileNamePart &p : f.name)
    key += p.field ? "\x01" + p.field->str() + ":" + std::to_string(p.width) + "\x01" : p.text;
  return key;
}

std::string contentKey(const ObjectEntry &o) {
  std::string key = o.kind + '\x01' + o.name + '\x01';
  for (const auto &[name, values] : o.fields) {
    key += name + '=';
    for (const Expr &v : values)
      key += v.str() + ',';
    key += '\x01';
  }
  for (const auto &[k, v] : o.strings)
    key += k + '=' + v + '\x01';
  return key;
}

/// Old id -> new id: a sorted vector (16 bytes an entry, not a tree node's
/// 64: a merge of tables of many distinct files holds one per file). Ids
/// come in ascending order (tables are sorted by id first), so inserting is
/// appending.
class IdMap {
public:
  using value_type = std::pair<int64_t, int64_t>;
  using const_iterator = std::vector<value_type>::const_iterator;

  int64_t &operator[](int64_t key) {
    if (entries_.empty() || entries_.back().first < key) {
      entries_.emplace_back(key, 0);
      return entries_.back().second;
    }
    auto it = lower(key);
    if (it == entries_.end() || it->first != key)
      it = entries_.insert(it, {key, 0});
    return it->second;
  }
  const_iterator find(int64_t key) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const value_type &e, int64_t k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? it : entries_.end();
  }
  size_t count(int64_t key) const { return find(key) != end() ? 1 : 0; }
  int64_t at(int64_t key) const { return find(key)->second; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  auto rbegin() const { return entries_.rbegin(); }

private:
  std::vector<value_type>::iterator lower(int64_t key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type &e, int64_t k) { return e.first < k; });
  }
  std::vector<value_type> entries_;
};

/// Unites two tables by content: equal entries share one id. Ids are
/// renumbered 0.. in order of first appearance (a's entries first).
template <typename Entry>
std::vector<Entry> mergeTable(std::vector<Entry> a, std::vector<Entry> b, IdMap &remapA, IdMap &remapB,
                              std::vector<bool> *fromB = nullptr) {
  auto byId = [](const Entry &x, const Entry &y) { return x.id < y.id; };
  std::sort(a.begin(), a.end(), byId);
  std::sort(b.begin(), b.end(), byId);
  std::vector<Entry> merged;
  merged.reserve(a.size() + b.size());
  // Hash of the content key -> merged index; the keys themselves are not
  // kept (a table of many distinct files would hold them all twice).
  std::unordered_multimap<size_t, int64_t> index;
  index.reserve(a.size() + b.size());
  auto add = [&](Entry e, IdMap &remap) {
    const std::string key = contentKey(e);
    const size_t h = std::hash<std::string>()(key);
    auto [lo, hi] = index.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (contentKey(merged[static_cast<size_t>(it->second)]) == key) {
        remap[e.id] = it->second;
        return;
      }
    const auto id = static_cast<int64_t>(merged.size());
    index.emplace(h, id);
    remap[e.id] = id;
    e.id = id;
    merged.push_back(std::move(e));
    if (fromB)
      fromB->push_back(&remap == &remapB);
  };
  for (Entry &e : a)
    add(std::move(e), remapA);
  std::vector<Entry>().swap(a);
  for (Entry &e : b)
    add(std::move(e), remapB);
  std::vector<Entry>().swap(b);
  return merged;
}

bool isIdentity(const IdMap &m) {
  return std::all_of(m.begin(), m.end(), [](const auto &kv) { return kv.first == kv.second; });
}

/// new id = remap[old id], also for ids that are functions of loop indices:
/// affine remaps stay affine, others become a table indexed by the old value.
Expr remapId(const Expr &value, const IdMap &remap) {
  if (auto c = value.constantValue()) {
    auto it = remap.find(*c);
    return it == remap.end() ? value : Expr(it->second);
  }
  if (remap.empty() || isIdentity(remap))
    return value;
  const auto &[x0, y0] = *remap.begin();
  const auto &[x1, y1] = *remap.rbegin();
  if (x1 != x0) {
    Rational slope = Rational(y1 - y0) / Rational(x1 - x0);
    bool affine = std::all_of(remap.begin(), remap.end(), [&](const auto &kv) {
      return Rational(y0) + slope * Rational(kv.first - x0) == Rational(kv.second);
    });
    if (affine)
      return Expr(y0) + Expr(slope) * (value - Expr(x0));
  }
  if (x0 < 0)
    return value; // ids are never negative in practice
  std::vector<int64_t> table(static_cast<size_t>(x1) + 1);
  for (int64_t k = 0; k <= x1; ++k)
    table[static_cast<size_t>(k)] = remap.count(k) ? remap.at(k) : k;
  return Expr::table(std::move(table), value);
}

struct Remaps {
  IdMap files, datatypes, comms, infos;
  const IdMap *forParam(std::string_view name) const {
    auto kind = tableOfParam(name);
    if (!kind)
      return nullptr;
    switch (*kind) {
    case TableKind::Files:
      return &files;
    case TableKind::Datatypes:
      return &datatypes;
    case TableKind::Comms:
      return &comms;
    case TableKind::Infos:
      return &infos;
    }
    return nullptr;
  }
  bool trivial() const { return isIdentity(files) && isIdentity(datatypes) && isIdentity(comms) && isIdentity(infos); }
};

void remapBody(std::vector<Node> &nodes, const Remaps &remaps) {
  for (Node &node : nodes) {
    if (node.isLoop()) {
      remapBody(node.loop().body, remaps);
      continue;
    }
    for (Param &p : node.event().params)
      if (const IdMap *m = remaps.forParam(p.name))
        for (ElasticEntry &e : p.value.entries())
          if (!isText(e.value))
            e.value = remapId(std::get<Expr>(e.value), *m);
  }
}

// ------------------------------------------------------------------ body ----

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

std::vector<Node> mergeBodies(std::vector<Node> a, std::vector<Node> b);

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
    auto match = [&](size_t i, size_t j) {
      return keyA[i] == keyB[j] && matchable(a[prefix + i], b[prefix + j]);
    };
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

template <typename Info> void uniteById(std::vector<Info> &a, std::vector<Info> b) {
  for (Info &x : b)
    if (std::none_of(a.begin(), a.end(), [&](const Info &y) { return y.id == x.id; }))
      a.push_back(std::move(x));
  std::sort(a.begin(), a.end(), [](const Info &x, const Info &y) { return x.id < y.id; });
}

// ------------------------------------------------------- fits over ranks ----

struct RankPoint {
  int64_t rank;
  Rational value;
};

/// An exact model of value(rank): constant, affine, or ((rank + a) % N) * b.
std::optional<Expr> fitRankModel(const std::vector<RankPoint> &points, int64_t nranks) {
  if (points.empty())
    return std::nullopt;
  try {
    const RankPoint &p0 = points.front();
    if (std::all_of(points.begin(), points.end(), [&](const RankPoint &p) { return p.value == p0.value; }))
      return Expr(p0.value);
    // Affine: the line through the first two ranks must hold everywhere.
    const RankPoint &p1 = points[1];
    Rational slope = (p1.value - p0.value) / Rational(p1.rank - p0.rank);
    Rational offset = p0.value - slope * Rational(p0.rank);
    if (std::all_of(points.begin(), points.end(),
                    [&](const RankPoint &p) { return offset + slope * Rational(p.rank) == p.value; }))
      return Expr(offset) + Expr(slope) * Expr::rank();
    // Rotated progression ((rank + a) % N) * b: its zero fixes a.
    auto zero = std::find_if(points.begin(), points.end(), [](const RankPoint &p) { return p.value.isZero(); });
    if (zero == points.end() || nranks < 2)
      return std::nullopt;
    const int64_t shift = (nranks - zero->rank % nranks) % nranks;
    auto other = std::find_if(points.begin(), points.end(),
                              [&](const RankPoint &p) { return (p.rank + shift) % nranks != 0; });
    if (other == points.end())
      return std::nullopt;
    Rational scale = other->value / Rational((other->rank + shift) % nranks);
    if (!std::all_of(points.begin(), points.end(), [&](const RankPoint &p) {
          return Rational((p.rank + shift) % nranks) * scale == p.value;
        }))
      return std::nullopt;
    return Expr::mod(Expr::rank() + Expr(shift), Expr::nranks()) * Expr(scale);
  } catch (const std::exception &) { // overflow, domain
    return std::nullopt;
  }
}

/// Periodic and grouped values with a constant period k (a 2-d rank grid,
/// groups of k ranks sharing an aggregator): b + a*(rank % k) + c*floor(rank/k),
/// the smallest k that fits exactly. Bounded so a huge run stays cheap. A
/// grid has two groups at least (k <= nranks/2): with k = nranks - 1 the
/// model would only single out the last rank (9 + floor(rank/(N-1)): the last
/// rank's loop runs once more), which is exact at N and nothing at another
/// rank count; splitExceptionRanks keeps such a rank apart instead. Where no
/// split can be stored (an object's field: a darray's short last block),
/// `lastRankPeriod` allows k = nranks - 1, which sio-extrap fits over N.
std::optional<Expr> fitRankGrid(const std::vector<RankPoint> &points, int64_t nranks, bool lastRankPeriod = false) {
  constexpr int64_t kMaxPeriod = 64;
  constexpr size_t kMaxPoints = 1 << 16;
  if (points.size() < 3 || points.size() > kMaxPoints)
    return std::nullopt;
  const int64_t maxPeriod = lastRankPeriod ? nranks - 1 : nranks / 2;
  for (int64_t k = 2; k <= std::min<int64_t>(kMaxPeriod, maxPeriod); ++k) {
    std::vector<std::vector<Rational>> rows;
    std::vector<Rational> values;
    for (const RankPoint &p : points) {
      rows.push_back({Rational(1), Rational(p.rank % k), Rational(p.rank / k)});
      values.push_back(p.value);
    }
    auto s = sio::trace::solveExact(std::move(rows), std::move(values));
    if (!s)
      continue;
    try {
      Expr within = Expr::mod(Expr::rank(), Expr(k));
      Expr group = (Expr::rank() - within) / Expr(k);
      return Expr(s->x[0]) + Expr(s->x[1]) * within + Expr(s->x[2]) * group;
    } catch (const std::exception &) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// One model of rank for values given per rank (each already bound to its
/// rank): every polynomial coefficient fitted on its own; with `grids`, rank
/// grids (fitRankGrid) too.
std::optional<Expr> fitPerRank(const std::vector<std::pair<int64_t, Expr>> &perRank, int64_t nranks,
                               bool grids = true) {
  std::set<Monomial> monomials;
  for (const auto &[r, e] : perRank)
    for (const auto &[m, c] : e.terms())
      monomials.insert(m);
  Expr model;
  for (const Monomial &m : monomials) {
    std::vector<RankPoint> points;
    points.reserve(perRank.size());
    for (const auto &[r, e] : perRank) {
      auto it = e.terms().find(m);
      points.push_back({r, it == e.terms().end() ? Rational(0) : it->second});
    }
    // A table holds one rank's values for its own iterations: another rank
    // whose loop runs longer cannot evaluate it, even times a zero
    // coefficient ((1 - rank)*[..3 values..][i0] at rank 1, 9 iterations).
    bool hasTable = std::any_of(m.begin(), m.end(), [](const auto &a) { return a.first.kind == Atom::Kind::Table; });
    if (hasTable && std::any_of(points.begin(), points.end(), [](const RankPoint &p) { return p.value == Rational(0); }))
      return std::nullopt;
    auto coefficient = fitRankModel(points, nranks);
    if (!coefficient && grids)
      coefficient = fitRankGrid(points, nranks);
    if (!coefficient)
      return std::nullopt;
    model = model + *coefficient * monomialExpr(m);
  }
  return model;
}

/// Where a block distribution with a remainder may split the ranks in two
/// runs, each affine in rank (n/N + (rank < n % N) elements a rank: the
/// first n % N ranks one more, so their offsets step by one element more):
/// the first rank s of the second run, from the steps between neighbours
/// (one step value before the split, another after, and the step across it
/// either). The candidates ascend, so a rank on both lines goes to the
/// second run, where sio-extrap's model of the remainder puts it (the
/// first rank with fewer elements). Each run needs 3 ranks: any 2 ranks are
/// affine, and a split of 2 and 2 would fit every value of 4 ranks.
std::vector<int64_t> runSplitCandidates(const std::vector<std::pair<int64_t, Expr>> &perRank) {
  constexpr size_t kMinRun = 3;
  const size_t n = perRank.size();
  if (n < 2 * kMinRun || perRank.back().first - perRank.front().first + 1 != static_cast<int64_t>(n))
    return {}; // runs of consecutive ranks only
  std::vector<Expr> step;
  step.reserve(n - 1);
  try {
    for (size_t i = 0; i + 1 < n; ++i)
      step.push_back(perRank[i + 1].second - perRank[i].second);
  } catch (const std::exception &) { // overflow
    return {};
  }
  size_t firstChange = 0, lastChange = step.size() - 1;
  while (firstChange < step.size() && step[firstChange] == step.front())
    ++firstChange;
  while (lastChange > 0 && step[lastChange] == step.back())
    --lastChange;
  if (firstChange == step.size())
    return {};         // one line: no split
  std::set<size_t> at; // index in perRank of the second run's first rank
  for (size_t i : {lastChange, lastChange + 1, firstChange, firstChange + 1})
    if (i >= kMinRun && i + kMinRun <= n)
      at.insert(i);
  std::vector<int64_t> ranks;
  for (size_t i : at)
    ranks.push_back(perRank[i].first);
  return ranks;
}

/// One rank that does more (the first, the last, or every k-th rank writes
/// a header through the same helper, so its loop runs once more): the values
/// of the other ranks follow one model and those of the exceptions another,
/// but no single model covers both. Two entries, {rest: model} and
/// {exceptions: model}, keep the value O(1) in the rank count, and the
/// exceptions' rank list ({0}, {N-1}, {0, k, 2k, ...}) is what sio-extrap
/// extrapolates (docs/trace-format.md, "Rank groups"). The exceptions'
/// extra iteration is a table over the loop index; where it is affine but
/// at its last (or first) position it is written without the table
/// (peelTableEnds), so the exceptions' values fit one model of rank, and
/// the models fit one function of the rank count. The first split that fits
/// is taken: first rank, last rank, then every k-th (k = 2..64); each group
/// with the models of one rank (constant, affine, rotated) before rank
/// grids, which fit any three ranks (and, with the period N-1, any outlier
/// at the last rank): a grid model is only taken for a group of 5 ranks or
/// more, and only when no split fits without one. Then two runs of ranks
/// split by a block distribution's remainder (runSplitCandidates), without
/// grids: the offsets of n/N + (rank < n % N) elements a rank.
bool splitExceptionRanks(ElasticValue &value, std::vector<std::pair<int64_t, Expr>> perRank, int64_t nranks) {
  if (perRank.size() < 3)
    return false; // two ranks always split; nothing to gain
  for (auto &[r, e] : perRank)
    e = detail::peelTableEnds(e);
  const int64_t first = perRank.front().first, last = perRank.back().first;
  bool grids = false;
  auto fits = [&](const std::vector<std::pair<int64_t, Expr>> &group) {
    return fitPerRank(group, nranks, grids && group.size() >= 5);
  };
  auto trySplit = [&](const std::function<bool(int64_t)> &isException) {
    std::vector<std::pair<int64_t, Expr>> rest, exceptions;
    for (const auto &p : perRank)
      (isException(p.first) ? exceptions : rest).push_back(p);
    if (rest.empty() || exceptions.empty())
      return false;
    // A few ranks at each end first: a split that cannot fit costs that
    // much, not a fit over every rank (65 splits of a large run).
    auto ends = [](const std::vector<std::pair<int64_t, Expr>> &group) {
      constexpr size_t kEnd = 6;
      if (group.size() <= 2 * kEnd)
        return group;
      std::vector<std::pair<int64_t, Expr>> sample(group.begin(), group.begin() + kEnd);
      sample.insert(sample.end(), group.end() - kEnd, group.end());
      return sample;
    };
    if (rest.size() > 12 && !fits(ends(rest)))
      return false;
    if (exceptions.size() > 12 && !fits(ends(exceptions)))
      return false;
    auto restModel = fits(rest);
    if (!restModel)
      return false;
    auto exceptionModel = fits(exceptions);
    if (!exceptionModel)
      return false;
    auto ranksOf = [](const std::vector<std::pair<int64_t, Expr>> &group) {
      std::vector<int64_t> ranks;
      ranks.reserve(group.size());
      for (const auto &p : group)
        ranks.push_back(p.first);
      return RankList::fromRanks(std::move(ranks));
    };
    ElasticValue split(Value(*restModel), ranksOf(rest));
    split.entries().push_back({ranksOf(exceptions), Value(*exceptionModel)});
    value = std::move(split);
    return true;
  };
  for (bool withGrids : {false, true}) {
    grids = withGrids;
    if (trySplit([&](int64_t r) { return r == first; }) || trySplit([&](int64_t r) { return r == last; }))
      return true;
    constexpr int64_t kMaxPeriod = 64;
    for (int64_t k = 2; k <= std::min(kMaxPeriod, last); ++k)
      if (trySplit([k](int64_t r) { return r % k == 0; }))
        return true;
    if (!withGrids)
      for (int64_t s : runSplitCandidates(perRank))
        if (trySplit([s](int64_t r) { return r >= s; }))
          return true;
  }
  return false;
}

/// Replaces rank-varying entries by one model when every polynomial
/// coefficient fits a rank model, else by two when one group of ranks does
/// more (splitExceptionRanks); otherwise leaves the entries.
void fitAcrossRanks(ElasticValue &value, int64_t nranks) {
  if (value.entries().size() < 2)
    return;
  std::vector<std::pair<int64_t, Expr>> perRank;
  for (const ElasticEntry &e : value.entries()) {
    if (isText(e.value))
      return;
    for (int64_t r : e.ranks.ranks())
      perRank.emplace_back(r, bindRank(std::get<Expr>(e.value), r));
  }
  std::sort(perRank.begin(), perRank.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
  if (auto model = fitPerRank(perRank, nranks)) {
    value = ElasticValue(Value(*model), value.ranks());
    return;
  }
  splitExceptionRanks(value, std::move(perRank), nranks);
}

// ------------------------------------------------------ file name formats ----

/// A piece of a file name: literal text that is all digits or has none, or
/// a field of an entry that already is a format (loop-index fields of a rank).
struct NameToken {
  enum class Kind { Text, Digits, Field } kind;
  std::string text;
  std::optional<Expr> field;
  uint32_t width = 0;
};

void appendText(std::vector<NameToken> &tokens, const std::string &text) {
  for (char c : text) {
    auto kind = std::isdigit(static_cast<unsigned char>(c)) ? NameToken::Kind::Digits : NameToken::Kind::Text;
    if (tokens.empty() || tokens.back().kind != kind)
      tokens.push_back({kind, {}, std::nullopt, 0});
    tokens.back().text += c;
  }
}

std::vector<NameToken> tokenize(const FileEntry &f) {
  std::vector<NameToken> tokens;
  for (const FileNamePart &p : f.name) {
    if (p.field)
      tokens.push_back({NameToken::Kind::Field, {}, p.field, p.width});
    else
      appendText(tokens, p.text);
  }
  return tokens;
}

/// The name with rank fields evaluated and loop-index fields kept symbolic:
/// two entries name the same files on `rank` exactly when these are equal.
std::optional<std::string> rankKey(const FileEntry &f, int64_t rank, int64_t nranks) {
  std::string key;
  for (const FileNamePart &p : f.name) {
    if (!p.field) {
      key += p.text;
      continue;
    }
    Expr field = bindRank(*p.field, rank);
    if (field.loopDepthUsed() > 0) {
      key += "\x01" + field.str() + ":" + std::to_string(p.width) + "\x01";
      continue;
    }
    FileEntry one{0, {FileNamePart{"", field, p.width}}};
    auto digits = one.nameFor(rank, nranks);
    if (!digits)
      return std::nullopt;
    key += *digits;
  }
  return key;
}

/// value = a + b*floor(rank/k) for the group size k the data suggests.
std::optional<Expr> fitRankGroups(const std::vector<RankPoint> &points) {
  auto change = std::find_if(points.begin(), points.end(),
                             [&](const RankPoint &p) { return p.value != points.front().value; });
  if (change == points.end())
    return std::nullopt;
  for (int64_t k : {change->rank, change->rank - points.front().rank}) {
    if (k < 2)
      continue;
    std::vector<RankPoint> grouped;
    for (const RankPoint &p : points)
      grouped.push_back({p.rank / k, p.value});
    // Within a group the value must be constant; across groups affine.
    bool constantInGroups = true;
    for (size_t i = 1; i < grouped.size(); ++i)
      if (grouped[i].rank == grouped[i - 1].rank && grouped[i].value != grouped[i - 1].value)
        constantInGroups = false;
    if (!constantInGroups)
      continue;
    grouped.erase(std::unique(grouped.begin(), grouped.end(),
                              [](const RankPoint &x, const RankPoint &y) { return x.rank == y.rank; }),
                  grouped.end());
    if (grouped.size() < 2)
      continue;
    auto model = fitRankModel(grouped, 0);
    if (!model || !model->dependsOnRank() || std::get<Expr>(Value(*model)).terms().size() > 2)
      continue;
    // Substitute floor(rank/k) = (rank - rank % k) / k for rank in the model.
    Expr group = (Expr::rank() - Expr::mod(Expr::rank(), Expr(k))) / Expr(k);
    return detail::substituteAtoms(*model, [&](const Atom &a) {
      return a.kind == Atom::Kind::Rank ? group : detail::atomExpr(a);
    });
  }
  return std::nullopt;
}

std::optional<Expr> fitRankField(const std::vector<RankPoint> &points, int64_t nranks) {
  auto field = fitRankModel(points, nranks);
  if (!field || !field->dependsOnRank())
    if (auto grouped = fitRankGroups(points))
      field = grouped;
  return field;
}

/// One format for the names ranks use (each a literal name, or a format in
/// loop indices built by formatLoopFileNames), if they differ only in
/// integer fields that are exact functions of rank (checked by regenerating
/// them rank by rank).
std::optional<FileEntry> fileFormat(const std::vector<std::pair<int64_t, const FileEntry *>> &names, int64_t nranks) {
  std::vector<std::vector<NameToken>> tokens;
  for (const auto &[r, entry] : names)
    tokens.push_back(tokenize(*entry));
  const auto &t0 = tokens.front();
  for (const auto &t : tokens) {
    if (t.size() != t0.size())
      return std::nullopt;
    for (size_t k = 0; k < t.size(); ++k)
      if (t[k].kind != t0[k].kind || (t[k].kind == NameToken::Kind::Text && t[k].text != t0[k].text) ||
          (t[k].kind == NameToken::Kind::Field && t[k].width != t0[k].width))
        return std::nullopt;
  }
  FileEntry entry;
  auto literal = [&](const std::string &text) {
    if (entry.name.empty() || entry.name.back().field)
      entry.name.push_back({});
    entry.name.back().text += text;
  };
  for (size_t k = 0; k < t0.size(); ++k) {
    if (t0[k].kind == NameToken::Kind::Field) {
      // Loop-index fields: each polynomial coefficient a function of rank
      // (`<i0>` everywhere, or `<100*rank + i0>` from `<300 + i0>` on rank 3).
      std::set<Monomial> monomials;
      for (const auto &t : tokens)
        for (const auto &[m, c] : t[k].field->terms())
          monomials.insert(m);
      Expr field;
      for (const Monomial &m : monomials) {
        std::vector<RankPoint> points;
        for (size_t i = 0; i < tokens.size(); ++i) {
          auto it = tokens[i][k].field->terms().find(m);
          points.push_back({names[i].first, it == tokens[i][k].field->terms().end() ? Rational(0) : it->second});
        }
        auto c = fitRankField(points, nranks);
        if (!c)
          return std::nullopt;
        field = field + *c * monomialExpr(m);
      }
      entry.name.push_back({"", field, t0[k].width});
      continue;
    }
    bool same = std::all_of(tokens.begin(), tokens.end(), [&](const auto &t) { return t[k].text == t0[k].text; });
    if (same) {
      literal(t0[k].text);
      continue;
    }
    std::vector<RankPoint> points;
    size_t width = t0[k].text.size();
    bool sameWidth = true, leadingZero = false;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string &digits = tokens[i][k].text;
      if (digits.size() > 18)
        return std::nullopt;
      sameWidth = sameWidth && digits.size() == width;
      leadingZero = leadingZero || (digits.size() > 1 && digits[0] == '0');
      points.push_back({names[i].first, Rational(std::stoll(digits))});
    }
    auto field = fitRankField(points, nranks);
    if (!field)
      return std::nullopt;
    FileNamePart part;
    part.field = *field;
    part.width = sameWidth && leadingZero ? static_cast<uint32_t>(width) : 0;
    entry.name.push_back(std::move(part));
  }
  for (const auto &[r, name] : names) {
    auto key = rankKey(entry, r, nranks);
    if (!key || key != rankKey(*name, r, nranks))
      return std::nullopt;
  }
  return entry;
}

/// A files table's content keys -> ids, holding 16 bytes an entry (hash,
/// position) instead of the keys: built when the first file-name format is
/// found, so a table of many distinct names that fit no format pays for
/// none; formats are few, so inserting into the sorted vector is cheap.
class FileContentIndex {
public:
  explicit FileContentIndex(const std::vector<FileEntry> &files) : files_(files) {}

  std::optional<int64_t> find(const std::string &key) {
    build();
    const size_t h = std::hash<std::string>()(key);
    for (auto it = lower(h); it != entries_.end() && it->first == h; ++it)
      if (contentKey(files_[it->second]) == key)
        return files_[it->second].id;
    return std::nullopt;
  }
  /// files_[position] was just appended.
  void add(size_t position) {
    build();
    const size_t h = std::hash<std::string>()(contentKey(files_[position]));
    entries_.insert(lower(h), {h, position});
  }

private:
  using Entry = std::pair<size_t, size_t>;
  void build() {
    if (built_)
      return;
    built_ = true;
    entries_.reserve(files_.size() + 16);
    for (size_t i = 0; i < files_.size(); ++i)
      entries_.emplace_back(std::hash<std::string>()(contentKey(files_[i])), i);
    std::sort(entries_.begin(), entries_.end());
  }
  std::vector<Entry>::iterator lower(size_t h) {
    return std::lower_bound(entries_.begin(), entries_.end(), h, [](const Entry &e, size_t x) { return e.first < x; });
  }
  const std::vector<FileEntry> &files_;
  bool built_ = false;
  std::vector<Entry> entries_;
};

/// Per rank, before the merge: a file parameter that takes a different file
/// in each iteration of the loops around it (its id is a function of the
/// loop indices) becomes one entry whose name has fields in those indices,
/// when the names differ only in integers that are affine in the indices
/// (`dir.3/file.3.<i0>`, `ckpt_<i0:04>/part_<i1>`).
class LoopFileNamer {
public:
  LoopFileNamer(Trace &t, int64_t rank) : t_(t), rank_(rank), index_(t.files) {
    for (size_t i = 0; i < t_.files.size(); ++i)
      position_.emplace(t_.files[i].id, i);
  }

  void visit(std::vector<Node> &nodes, std::vector<const Expr *> &counts) {
    for (Node &node : nodes) {
      if (node.isLoop()) {
        const Expr *n = std::get_if<Expr>(&detail::soleValue(node.loop().iterations));
        if (!n)
          continue;
        counts.push_back(n);
        visit(node.loop().body, counts);
        counts.pop_back();
        continue;
      }
      for (Param &p : node.event().params) {
        if (!isFileParam(p.name) || p.value.entries().size() != 1)
          continue;
        const Expr *id = std::get_if<Expr>(&p.value.entries()[0].value);
        if (!id || id->constantValue() || id->loopDepthUsed() == 0)
          continue;
        if (auto format = formatFor(*id, counts))
          p.value.entries()[0].value = Expr(*format);
      }
    }
  }

private:
  static constexpr size_t kMaxSamples = size_t(1) << 20;

  const FileEntry *file(int64_t id) const {
    auto it = position_.find(id);
    return it == position_.end() ? nullptr : &t_.files[it->second];
  }

  // Memory: a loop over N distinct files (the table grows with them, and
  // SIO_MEMORY_CAP holds through finalize) keeps 16 bytes per file here plus
  // one integer per varying digit group; names are tokenized one at a time.
  std::optional<int64_t> formatFor(const Expr &id, const std::vector<const Expr *> &counts) {
    // Every index tuple of the loops around the call, outermost first
    // (`depth` integers per sample, flattened).
    const size_t depth = counts.size();
    std::vector<int64_t> tuples;
    std::vector<const FileEntry *> files;
    std::vector<int64_t> idx;
    bool ok = true;
    std::function<void(size_t)> walk = [&](size_t d) {
      if (!ok)
        return;
      if (d == depth) {
        auto v = id.evaluate({rank_, t_.header.nranks, idx});
        const FileEntry *f = v ? file(*v) : nullptr;
        if (!f || f->loopDepthUsed() > 0 || files.size() >= kMaxSamples) {
          ok = false;
          return;
        }
        tuples.insert(tuples.end(), idx.begin(), idx.end());
        files.push_back(f);
        return;
      }
      auto n = counts[d]->evaluate({rank_, t_.header.nranks, idx});
      if (!n) {
        ok = false;
        return;
      }
      for (int64_t i = 0; i < *n && ok; ++i) {
        idx.push_back(i);
        walk(d + 1);
        idx.pop_back();
      }
    };
    walk(0);
    if (!ok || files.empty())
      return std::nullopt;
    auto tuple = [&](size_t s) { return std::span<const int64_t>(tuples.data() + s * depth, depth); };
    // The names must differ only in digit groups: same tokens, same text
    // between them. `varies[k]`: token k is not the same in every name.
    const std::vector<NameToken> t0 = tokenize(*files.front());
    std::vector<char> varies(t0.size(), 0);
    for (size_t s = 1; s < files.size(); ++s) {
      std::vector<NameToken> t = tokenize(*files[s]);
      if (t.size() != t0.size())
        return std::nullopt;
      for (size_t k = 0; k < t.size(); ++k) {
        if (t[k].kind != t0[k].kind || (t[k].kind != NameToken::Kind::Digits && t[k].text != t0[k].text))
          return std::nullopt;
        if (t[k].text != t0[k].text)
          varies[k] = 1;
      }
    }
    // The varying digit groups' values, sample by sample.
    std::vector<size_t> varying;
    for (size_t k = 0; k < t0.size(); ++k)
      if (varies[k])
        varying.push_back(k);
    std::vector<int64_t> ys(varying.size() * files.size());
    std::vector<char> sameWidth(varying.size(), 1), leadingZero(varying.size(), 0);
    for (size_t s = 0; s < files.size(); ++s) {
      std::vector<NameToken> t = s == 0 ? t0 : tokenize(*files[s]);
      for (size_t v = 0; v < varying.size(); ++v) {
        const std::string &digits = t[varying[v]].text;
        if (digits.size() > 18)
          return std::nullopt;
        sameWidth[v] = sameWidth[v] && digits.size() == t0[varying[v]].text.size();
        leadingZero[v] = leadingZero[v] || (digits.size() > 1 && digits[0] == '0');
        ys[v * files.size() + s] = std::stoll(digits);
      }
    }
    std::vector<Expr> variables;
    for (size_t d = 0; d < depth; ++d)
      variables.push_back(Expr::loopIndex(static_cast<uint32_t>(d)));
    FileEntry entry;
    auto literal = [&](const std::string &text) {
      if (entry.name.empty() || entry.name.back().field)
        entry.name.push_back({});
      entry.name.back().text += text;
    };
    for (size_t k = 0, v = 0; k < t0.size(); ++k) {
      if (!varies[k]) {
        literal(t0[k].text);
        continue;
      }
      const int64_t *y = ys.data() + v * files.size();
      // Fit on a few samples (the first ones pin every index), check on all.
      std::vector<std::vector<Rational>> xs;
      std::vector<Rational> fitYs;
      for (size_t s = 0; s < files.size(); s += std::max<size_t>(1, files.size() / 64)) {
        xs.emplace_back(tuple(s).begin(), tuple(s).end());
        fitYs.push_back(Rational(y[s]));
      }
      for (size_t s = 0; s < std::min<size_t>(files.size(), 2 * depth + 2); ++s) {
        xs.emplace_back(tuple(s).begin(), tuple(s).end());
        fitYs.push_back(Rational(y[s]));
      }
      auto field = sio::trace::fitAffineExpr(variables, xs, fitYs);
      if (!field)
        return std::nullopt;
      size_t width = t0[k].text.size();
      entry.name.push_back({"", *field, sameWidth[v] && leadingZero[v] ? static_cast<uint32_t>(width) : 0});
      ++v;
    }
    for (size_t s = 0; s < files.size(); ++s) {
      std::string expected;
      for (const FileNamePart &part : files[s]->name)
        expected += part.text;
      if (entry.nameFor(rank_, t_.header.nranks, tuple(s)) != expected)
        return std::nullopt;
    }
    if (auto known = index_.find(contentKey(entry)))
      return *known;
    int64_t next = 0;
    for (const FileEntry &f : t_.files)
      next = std::max(next, f.id + 1);
    entry.id = next;
    position_.emplace(next, t_.files.size());
    t_.files.push_back(std::move(entry));
    index_.add(t_.files.size() - 1);
    return next;
  }

  Trace &t_;
  int64_t rank_;
  std::unordered_map<int64_t, size_t> position_; ///< file id -> index in t_.files
  FileContentIndex index_;
};

struct Finalizer {
  Trace &trace;
  FileContentIndex fileIndex;

  explicit Finalizer(Trace &t) : trace(t), fileIndex(t.files) {}

  void unifyFileNames(ElasticValue &value) {
    if (value.entries().size() < 2)
      return;
    std::vector<std::pair<int64_t, const FileEntry *>> names;
    for (const ElasticEntry &e : value.entries()) {
      const Expr *x = std::get_if<Expr>(&e.value);
      auto id = x ? x->constantValue() : std::nullopt;
      const FileEntry *f = id ? trace.file(*id) : nullptr;
      if (!f)
        return;
      for (int64_t r : e.ranks.ranks())
        names.emplace_back(r, f);
    }
    std::sort(names.begin(), names.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    auto format = fileFormat(names, trace.header.nranks);
    if (!format)
      return;
    std::optional<int64_t> id = fileIndex.find(contentKey(*format));
    if (!id) {
      int64_t next = 0;
      for (const FileEntry &f : trace.files)
        next = std::max(next, f.id + 1);
      format->id = next;
      id = next;
      trace.files.push_back(std::move(*format));
      fileIndex.add(trace.files.size() - 1);
    }
    value = ElasticValue(Value(Expr(*id)), value.ranks());
  }

  void visit(std::vector<Node> &nodes) {
    for (Node &node : nodes) {
      if (node.isLoop()) {
        fitAcrossRanks(node.loop().iterations, trace.header.nranks);
        sortEntries(node.loop().iterations);
        visit(node.loop().body);
        continue;
      }
      for (Param &p : node.event().params) {
        auto table = tableOfParam(p.name);
        if (table == TableKind::Files)
          unifyFileNames(p.value);
        else if (!table)
          fitAcrossRanks(p.value, trace.header.nranks); // table ids stay explicit
        sortEntries(p.value);
      }
    }
  }

  static void sortEntries(ElasticValue &value) {
    std::sort(value.entries().begin(), value.entries().end(), [](const ElasticEntry &x, const ElasticEntry &y) {
      return x.ranks.first().value_or(-1) < y.ranks.first().value_or(-1);
    });
  }

  /// Drops file entries no parameter refers to any more and renumbers the
  /// rest 0.. (only when every reference is a constant id).
  void compactFiles() {
    std::set<int64_t> used;
    bool allConstant = true;
    std::function<void(const std::vector<Node> &)> collect = [&](const std::vector<Node> &nodes) {
      for (const Node &node : nodes) {
        if (node.isLoop()) {
          collect(node.loop().body);
          continue;
        }
        for (const Param &p : node.event().params)
          if (tableOfParam(p.name) == TableKind::Files)
            for (const ElasticEntry &e : p.value.entries()) {
              const Expr *x = std::get_if<Expr>(&e.value);
              auto id = x ? x->constantValue() : std::nullopt;
              if (id)
                used.insert(*id);
              else
                allConstant = false;
            }
      }
    };
    collect(trace.body);
    if (!allConstant)
      return;
    std::vector<FileEntry> kept;
    Remaps remaps;
    std::sort(trace.files.begin(), trace.files.end(), [](const FileEntry &x, const FileEntry &y) { return x.id < y.id; });
    for (FileEntry &f : trace.files)
      if (used.count(f.id)) {
        remaps.files[f.id] = static_cast<int64_t>(kept.size());
        f.id = static_cast<int64_t>(kept.size());
        kept.push_back(std::move(f));
      }
    trace.files = std::move(kept);
    remapBody(trace.body, remaps);
  }
};

// ---------------------------------------------------------- MPI objects ----

/// Fields that name entries of a table: datatypes' old types, comms' parents.
bool isReferenceField(const std::string &name) {
  return name == "oldtype" || name == "types" || name == "parent" || name == "peer";
}

/// Objects made by a rank are the same object on every rank that made them
/// at the same call site as the same serial (their creation event), whatever
/// their arguments; the others (named datatypes, world, infos, entries of
/// traces without ranks) are the same when their contents are.
std::string identityKey(const ObjectEntry &o) {
  if (o.serial < 0 || o.ranks.empty())
    return "content\x01" + contentKey(o);
  std::string key = "made\x01" + o.kind + '\x01' + formatId(o.site) + '\x01' + std::to_string(o.serial) + '\x01' +
                    o.name + '\x01';
  for (const auto &[name, values] : o.fields) {
    key += name + '#' + std::to_string(values.size());
    if (isReferenceField(name))
      for (const Expr &v : values)
        key += ',' + v.str();
    key += '\x01';
  }
  for (const auto &[k, v] : o.strings)
    key += k + '=' + v + '\x01';
  return key;
}

/// One field value of an object made on `a.ranks` and on `b.ranks`: an exact
/// model of rank where one fits (`rank`, `(rank % 2)`, a rank grid), else an
/// explicit table indexed by rank.
Expr uniteFieldValue(const Expr &x, const RankList &xr, const Expr &y, const RankList &yr, int64_t nranks) {
  std::vector<RankPoint> points;
  for (auto [value, ranks] : {std::pair{&x, &xr}, std::pair{&y, &yr}})
    for (int64_t r : ranks->ranks())
      points.push_back({r, Rational(value->evaluate({r, nranks, {}}).value_or(0))});
  std::sort(points.begin(), points.end(), [](const RankPoint &p, const RankPoint &q) { return p.rank < q.rank; });
  if (auto model = fitRankModel(points, nranks))
    return *model;
  if (auto model = fitRankGrid(points, nranks, /*lastRankPeriod=*/true))
    return *model;
  std::vector<int64_t> table(static_cast<size_t>(points.back().rank) + 1, 0);
  for (const RankPoint &p : points)
    table[static_cast<size_t>(p.rank)] = p.value.asInteger().value_or(0);
  return Expr::table(std::move(table), Expr::rank());
}

/// Unites two object tables by identity (identityKey); ids are renumbered 0..
/// in order of first appearance, a's entries first. Reference fields are
/// renumbered on the way (they name entries made before, so lower ids).
std::vector<ObjectEntry> mergeObjects(std::vector<ObjectEntry> a, std::vector<ObjectEntry> b, IdMap &remapA,
                                      IdMap &remapB, int64_t nranks) {
  auto byId = [](const ObjectEntry &x, const ObjectEntry &y) { return x.id < y.id; };
  std::sort(a.begin(), a.end(), byId);
  std::sort(b.begin(), b.end(), byId);
  std::vector<ObjectEntry> merged;
  std::map<std::string, int64_t> index;
  auto add = [&](ObjectEntry e, IdMap &remap) {
    for (auto &[name, values] : e.fields)
      if (isReferenceField(name))
        for (Expr &v : values)
          v = remapId(v, remap);
    auto [it, inserted] = index.try_emplace(identityKey(e), static_cast<int64_t>(merged.size()));
    remap[e.id] = it->second;
    if (inserted) {
      e.id = it->second;
      merged.push_back(std::move(e));
      return;
    }
    ObjectEntry &m = merged[static_cast<size_t>(it->second)];
    if (e.serial >= 0 && !e.ranks.empty() && !m.ranks.empty())
      for (auto &[name, values] : m.fields) {
        const std::vector<Expr> &other = e.fields.at(name);
        for (size_t k = 0; k < values.size(); ++k)
          if (!(values[k] == other[k]))
            values[k] = uniteFieldValue(values[k], m.ranks, other[k], e.ranks, nranks);
      }
    m.ranks = m.ranks.unite(e.ranks);
  };
  for (ObjectEntry &e : a)
    add(std::move(e), remapA);
  for (ObjectEntry &e : b)
    add(std::move(e), remapB);
  return merged;
}

} // namespace

Trace mergeTraces(Trace a, Trace b) {
  Remaps remapA, remapB;
  Trace out;
  out.header = std::move(a.header);
  out.header.nranks = std::max(out.header.nranks, b.header.nranks);
  out.header.complete = out.header.complete && b.header.complete;
  out.header.droppedEvents += b.header.droppedEvents;
  for (std::string &why : b.header.inexact)
    if (std::find(out.header.inexact.begin(), out.header.inexact.end(), why) == out.header.inexact.end())
      out.header.inexact.push_back(std::move(why));
  for (std::string &note : b.header.notes)
    if (std::find(out.header.notes.begin(), out.header.notes.end(), note) == out.header.notes.end())
      out.header.notes.push_back(std::move(note));
  out.sites = std::move(a.sites);
  uniteById(out.sites, std::move(b.sites));
  out.loops = std::move(a.loops);
  uniteById(out.loops, std::move(b.loops));
  out.files = mergeTable(std::move(a.files), std::move(b.files), remapA.files, remapB.files);
  const int64_t nranks = out.header.nranks;
  out.datatypes = mergeObjects(std::move(a.datatypes), std::move(b.datatypes), remapA.datatypes, remapB.datatypes, nranks);
  out.comms = mergeObjects(std::move(a.comms), std::move(b.comms), remapA.comms, remapB.comms, nranks);
  out.infos = mergeObjects(std::move(a.infos), std::move(b.infos), remapA.infos, remapB.infos, nranks);
  if (!remapA.trivial())
    remapBody(a.body, remapA);
  if (!remapB.trivial())
    remapBody(b.body, remapB);
  out.body = mergeBodies(std::move(a.body), std::move(b.body));
  return out;
}

void formatLoopFileNames(Trace &t, int64_t rank) {
  LoopFileNamer namer(t, rank);
  std::vector<const Expr *> counts;
  namer.visit(t.body, counts);
  Finalizer(t).compactFiles();
}

void seedRankTiming(std::vector<Node> &body, int64_t rank) {
  for (Node &n : body) {
    if (n.isLoop()) {
      seedRankTiming(n.loop().body, rank);
      continue;
    }
    Event &e = n.event();
    if (e.duration.count() || e.compute.count())
      e.rankTiming = {rankTimingOf(RankList::single(rank), e.compute, e.duration)};
  }
}

namespace {

// Per-rank timing is kept where a timeline would show it (docs/trace-format.md,
// "Per-rank timing"): the ranks' total time in the event differs by at least
// this fraction of a rank's mean traced time, in at most kMaxTimingGroups
// groups per call count. Equal ranks then cost nothing at any rank count,
// and a trace's size stays near-constant as ranks grow.
constexpr double kMinImbalance = 0.05;
constexpr size_t kMaxTimingGroups = 4;

double tracedNs(const std::vector<Node> &body) {
  double ns = 0;
  for (const Node &n : body)
    ns += n.isLoop() ? tracedNs(n.loop().body) : n.event().compute.sum() + n.event().duration.sum();
  return ns;
}

double callNs(const RankTiming &g) { return g.computeMean() + g.durationMean(); }

void join(RankTiming &into, RankTiming &&g) {
  into.ranks = into.ranks.unite(g.ranks);
  into.compute.sum += g.compute.sum;
  into.compute.min = std::min(into.compute.min, g.compute.min);
  into.compute.max = std::max(into.compute.max, g.compute.max);
  into.duration.sum += g.duration.sum;
  into.duration.min = std::min(into.duration.min, g.duration.min);
  into.duration.max = std::max(into.duration.max, g.duration.max);
}

void limitRankTiming(std::vector<RankTiming> &groups, double minImbalanceNs) {
  if (groups.size() < 2)
    return;
  double lo = INFINITY, hi = 0;
  for (const RankTiming &g : groups) {
    lo = std::min(lo, double(g.count) * callNs(g));
    hi = std::max(hi, double(g.count) * callNs(g));
  }
  if (hi - lo < minImbalanceNs) {
    groups.clear(); // no rank's time here differs enough to show
    return;
  }
  // At most kMaxTimingGroups per call count: groups sorted by mean call
  // time, neighbours joined in equal shares.
  std::sort(groups.begin(), groups.end(), [](const RankTiming &a, const RankTiming &b) {
    return a.count != b.count ? a.count < b.count : callNs(a) < callNs(b);
  });
  std::vector<RankTiming> out;
  for (size_t i = 0; i < groups.size();) {
    size_t j = i;
    while (j < groups.size() && groups[j].count == groups[i].count)
      ++j;
    const size_t n = j - i, k = std::min(n, kMaxTimingGroups);
    for (size_t c = 0; c < k; ++c) {
      const size_t from = i + c * n / k, to = i + (c + 1) * n / k;
      RankTiming g = std::move(groups[from]);
      for (size_t m = from + 1; m < to; ++m)
        join(g, std::move(groups[m]));
      out.push_back(std::move(g));
    }
    i = j;
  }
  groups = std::move(out);
}

void compactRankTiming(std::vector<Node> &body, double minImbalanceNs) {
  for (Node &n : body) {
    if (n.isLoop()) {
      compactRankTiming(n.loop().body, minImbalanceNs);
      continue;
    }
    std::vector<RankTiming> &groups = n.event().rankTiming;
    limitRankTiming(groups, minImbalanceNs);
    if (groups.size() == 1 && groups.front().ranks == n.ranks)
      groups.clear(); // one group: the event's statistics say it all
  }
}

} // namespace

void compactRankTiming(std::vector<Node> &body, int64_t nranks) {
  compactRankTiming(body, kMinImbalance * tracedNs(body) / double(std::max<int64_t>(1, nranks)));
}

void finalizeMerged(Trace &t) {
  // The ranks of object entries only serve the merge.
  for (auto *table : {&t.datatypes, &t.comms, &t.infos})
    for (ObjectEntry &o : *table)
      o.ranks = RankList();
  Finalizer finalizer(t);
  finalizer.visit(t.body);
  compactRankTiming(t.body, t.header.nranks);
  finalizer.compactFiles();
}

std::string serializeTrace(const Trace &t) { return writeTraceString(t); }

Trace deserializeTrace(std::string &&bytes) { return readTraceString(std::move(bytes), "<rank trace>"); }

} // namespace sio::rt
