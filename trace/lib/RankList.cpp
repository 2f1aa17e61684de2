#include "sio/trace/RankList.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace sio::trace {
namespace {

// Above this many ranks, set operations refuse to materialize the set; the
// tools that reach such sizes (sio-extrap) build rank lists from models.
constexpr int64_t kMaxMaterialized = int64_t(1) << 24;

int64_t innerExtent(const std::vector<RankDim> &dims, size_t from) {
  int64_t extent = 0;
  for (size_t d = from; d < dims.size(); ++d)
    extent += dims[d].stride * (dims[d].count - 1);
  return extent;
}

// Folds consecutive equal-shaped blocks whose starts step evenly into one
// block with an extra outer dimension (rows of a mesh, planes of a cube).
std::vector<RankBlock> foldBlocks(std::vector<RankBlock> blocks) {
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<RankBlock> out;
    for (size_t i = 0; i < blocks.size();) {
      size_t j = i + 1;
      int64_t step = 0;
      if (j < blocks.size() && blocks[j].dims == blocks[i].dims) {
        step = blocks[j].start - blocks[i].start;
        // Nesting stays unambiguous only if the outer step clears the inner block.
        if (step > innerExtent(blocks[i].dims, 0)) {
          while (j < blocks.size() && blocks[j].dims == blocks[i].dims &&
                 blocks[j].start - blocks[j - 1].start == step)
            ++j;
        } else {
          j = i + 1;
        }
      }
      if (j - i >= 2) {
        RankBlock b;
        b.start = blocks[i].start;
        b.dims.push_back({step, static_cast<int64_t>(j - i)});
        b.dims.insert(b.dims.end(), blocks[i].dims.begin(), blocks[i].dims.end());
        out.push_back(std::move(b));
        changed = true;
        i = j;
      } else {
        out.push_back(blocks[i]);
        ++i;
      }
    }
    blocks = std::move(out);
  }
  return blocks;
}


// --- Set operations without enumerating ranks ------------------------------
//
// A list is turned into its rows: ascending arithmetic progressions whose
// ranges do not overlap (a block of d dimensions has as many rows as the
// product of its outer counts). Two row lists are combined piece by piece
// between the row boundaries of both; inside a piece every active row is a
// whole residue class, so the result there is a residue set modulo the lcm
// of the strides, which is again one progression in the common cases (all,
// every k-th, none). Rows are then compressed by the same greedy pass as
// fromRanks, applied to whole progressions at once, and folded the same way,
// so the result is exactly the canonical list fromRanks gives on the
// enumerated set. When a piece is not a progression and too long to list,
// the caller falls back to enumeration.

struct Row {
  int64_t first = 0;
  int64_t stride = 1; // meaningful when count > 1
  int64_t count = 1;
  int64_t last() const { return first + stride * (count - 1); }
};

constexpr size_t kMaxRows = 1 << 16;
constexpr int64_t kMaxPeriod = 1 << 12;
constexpr int64_t kMaxListedPiece = 1 << 12;

std::optional<std::vector<Row>> rowsOf(const std::vector<RankBlock> &blocks) {
  std::vector<Row> rows;
  for (const RankBlock &b : blocks) {
    if (b.dims.empty()) {
      rows.push_back({b.start, 1, 1});
      continue;
    }
    const RankDim inner = b.dims.back();
    int64_t nrows = 1;
    for (size_t d = 0; d + 1 < b.dims.size(); ++d)
      nrows *= b.dims[d].count;
    if (rows.size() + size_t(nrows) > kMaxRows)
      return std::nullopt;
    std::vector<int64_t> digit(b.dims.size() - 1, 0);
    for (int64_t k = 0; k < nrows; ++k) {
      int64_t start = b.start;
      for (size_t d = 0; d < digit.size(); ++d)
        start += digit[d] * b.dims[d].stride;
      rows.push_back({start, inner.count > 1 ? inner.stride : 1, inner.count});
      for (size_t d = digit.size(); d-- > 0;) {
        if (++digit[d] < b.dims[d].count)
          break;
        digit[d] = 0;
      }
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.first < b.first; });
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].first <= rows[i - 1].last())
      return std::nullopt; // interleaved blocks: not a row list
  return rows;
}

/// Greedy runs of fromRanks over an ascending sequence of progressions.
std::vector<RankBlock> greedyRuns(const std::vector<Row> &rows) {
  std::vector<RankBlock> out;
  bool have = false;
  int64_t start = 0, stride = 0, count = 0, last = 0; // count 1: single, >=2: run
  auto flush = [&] {
    if (!have)
      return;
    RankBlock b;
    b.start = start;
    if (count >= 2)
      b.dims.push_back({stride, count});
    out.push_back(std::move(b));
    have = false;
  };
  for (const Row &r : rows) {
    for (int64_t k = 0; k < r.count;) {
      const int64_t x = r.first + k * r.stride;
      if (have && count >= 2 && r.count > 1 && stride == r.stride && x == last + stride) {
        count += r.count - k; // the rest of the row continues the run
        last = r.last();
        break;
      }
      if (!have) {
        have = true;
        start = last = x;
        count = 1;
      } else if (count == 1) {
        stride = x - start;
        last = x;
        count = 2;
      } else if (x - last == stride) {
        last = x;
        ++count;
      } else {
        flush();
        have = true;
        start = last = x;
        count = 1;
      }
      ++k;
    }
  }
  flush();
  return out;
}


enum class SetOp { Unite, Intersect, Subtract };

/// The combination of two row lists, as ascending rows; nullopt when a piece
/// is irregular and too long to list.
std::optional<std::vector<Row>> combineRows(const std::vector<Row> &a, const std::vector<Row> &b, SetOp op) {
  std::vector<int64_t> cuts;
  cuts.reserve(2 * (a.size() + b.size()));
  for (const auto *list : {&a, &b})
    for (const Row &r : *list) {
      cuts.push_back(r.first);
      cuts.push_back(r.last() + 1);
    }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<Row> out;
  size_t ia = 0, ib = 0;
  auto member = [](const Row *r, int64_t x) {
    return r && x >= r->first && x <= r->last() && (r->count == 1 ? x == r->first : (x - r->first) % r->stride == 0);
  };
  auto keep = [&](bool inA, bool inB) {
    switch (op) {
    case SetOp::Unite:
      return inA || inB;
    case SetOp::Intersect:
      return inA && inB;
    case SetOp::Subtract:
      return inA && !inB;
    }
    return false;
  };
  for (size_t c = 0; c + 1 < cuts.size(); ++c) {
    const int64_t lo = cuts[c], hi = cuts[c + 1]; // piece [lo, hi)
    while (ia < a.size() && a[ia].last() < lo)
      ++ia;
    while (ib < b.size() && b[ib].last() < lo)
      ++ib;
    const Row *ra = ia < a.size() && a[ia].first <= lo ? &a[ia] : nullptr;
    const Row *rb = ib < b.size() && b[ib].first <= lo ? &b[ib] : nullptr;
    if (!ra && !rb)
      continue;
    if (hi - lo <= 64 || (ra && ra->count == 1) || (rb && rb->count == 1)) {
      if (hi - lo > kMaxListedPiece)
        return std::nullopt;
      for (int64_t x = lo; x < hi; ++x)
        if (keep(member(ra, x), member(rb, x)))
          out.push_back({x, 1, 1});
      continue;
    }
    // Both active rows span the piece: residue classes modulo their strides.
    const int64_t sa = ra ? ra->stride : 1, sb = rb ? rb->stride : 1;
    auto inClass = [](const Row *r, int64_t x) { return r && (x - r->first) % r->stride == 0; };
    const int64_t period = std::lcm(sa, sb);
    if (period > kMaxPeriod)
      return std::nullopt;
    std::vector<int64_t> residues;
    for (int64_t x = 0; x < period; ++x) {
      const int64_t v = lo + x;
      if (keep(inClass(ra, v), inClass(rb, v)))
        residues.push_back(x); // offsets from lo
    }
    if (residues.empty())
      continue;
    const int64_t step = period / int64_t(residues.size());
    bool progression = period % int64_t(residues.size()) == 0;
    for (size_t k = 0; progression && k < residues.size(); ++k)
      progression = residues[k] == residues[0] + int64_t(k) * step;
    if (progression) {
      const int64_t first = lo + residues[0];
      if (first < hi)
        out.push_back({first, step, (hi - 1 - first) / step + 1});
      continue;
    }
    if (hi - lo > kMaxListedPiece)
      return std::nullopt;
    for (int64_t x = lo; x < hi; ++x)
      if (keep(member(ra, x), member(rb, x)))
        out.push_back({x, 1, 1});
  }
  return out;
}

} // namespace

int64_t RankBlock::size() const {
  int64_t n = 1;
  for (const auto &d : dims)
    n *= d.count;
  return n;
}

int64_t RankBlock::last() const { return start + innerExtent(dims, 0); }

bool RankBlock::contains(int64_t rank) const {
  int64_t off = rank - start;
  if (off < 0)
    return false;
  for (const auto &d : dims) {
    int64_t j = std::min(off / d.stride, d.count - 1);
    off -= j * d.stride;
  }
  return off == 0;
}

RankList RankList::fromRanks(std::vector<int64_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::vector<RankBlock> runs;
  for (size_t i = 0; i < ranks.size();) {
    RankBlock b;
    b.start = ranks[i];
    if (i + 1 < ranks.size()) {
      int64_t stride = ranks[i + 1] - ranks[i];
      size_t j = i + 1;
      while (j + 1 < ranks.size() && ranks[j + 1] - ranks[j] == stride)
        ++j;
      b.dims.push_back({stride, static_cast<int64_t>(j - i + 1)});
      i = j + 1;
    } else {
      ++i;
    }
    runs.push_back(std::move(b));
  }
  RankList list;
  list.blocks_ = foldBlocks(std::move(runs));
  return list;
}

RankList RankList::single(int64_t rank) {
  RankList l;
  l.blocks_.push_back({rank, {}});
  return l;
}

RankList RankList::range(int64_t first, int64_t count, int64_t stride) {
  RankList l;
  if (count <= 0)
    return l;
  if (count == 1)
    return single(first);
  l.blocks_.push_back({first, {{stride, count}}});
  return l;
}

RankList RankList::fromBlocks(std::vector<RankBlock> blocks) {
  int64_t total = 0;
  for (const auto &b : blocks) {
    if (b.start < 0)
      throw std::invalid_argument("rank block starts at negative rank " + std::to_string(b.start));
    for (size_t d = 0; d < b.dims.size(); ++d) {
      if (b.dims[d].stride <= 0 || b.dims[d].count <= 0)
        throw std::invalid_argument("rank block needs positive stride and count");
      if (d + 1 < b.dims.size() && b.dims[d].count > 1 && b.dims[d].stride <= innerExtent(b.dims, d + 1))
        throw std::invalid_argument("rank block dimensions overlap (outer stride must exceed inner extent)");
    }
    if (b.size() > kMaxMaterialized || total > kMaxMaterialized - b.size())
      total = kMaxMaterialized + 1;
    else
      total += b.size();
  }
  RankList given;
  given.blocks_ = std::move(blocks);
  std::sort(given.blocks_.begin(), given.blocks_.end());
  if (total > kMaxMaterialized) {
    // Too large to canonicalize; check disjointness cheaply on the bounds.
    for (size_t i = 1; i < given.blocks_.size(); ++i)
      if (given.blocks_[i].start <= given.blocks_[i - 1].last())
        throw std::invalid_argument("rank blocks overlap");
    return given;
  }
  if (auto rows = rowsOf(given.blocks_)) {
    // Rows in ascending, non-overlapping ranges: disjoint; compress them as
    // fromRanks would the enumerated set.
    RankList out;
    out.blocks_ = foldBlocks(greedyRuns(*rows));
    return out;
  }
  std::vector<int64_t> all = given.ranks();
  size_t before = all.size();
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (all.size() != before)
    throw std::invalid_argument("rank blocks overlap");
  return fromRanks(std::move(all));
}

int64_t RankList::size() const {
  int64_t n = 0;
  for (const auto &b : blocks_)
    n += b.size();
  return n;
}

bool RankList::contains(int64_t rank) const {
  return std::any_of(blocks_.begin(), blocks_.end(), [&](const RankBlock &b) { return b.contains(rank); });
}

std::optional<int64_t> RankList::first() const {
  if (blocks_.empty())
    return std::nullopt;
  int64_t m = blocks_.front().start;
  for (const auto &b : blocks_)
    m = std::min(m, b.start);
  return m;
}

std::optional<int64_t> RankList::last() const {
  if (blocks_.empty())
    return std::nullopt;
  int64_t m = blocks_.front().last();
  for (const auto &b : blocks_)
    m = std::max(m, b.last());
  return m;
}

std::vector<int64_t> RankList::ranks() const {
  if (size() > kMaxMaterialized)
    throw std::length_error("rank list too large to enumerate (" + std::to_string(size()) + " ranks)");
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(size()));
  for (const auto &b : blocks_) {
    std::vector<int64_t> level{b.start};
    for (const auto &d : b.dims) {
      std::vector<int64_t> next;
      next.reserve(level.size() * d.count);
      for (int64_t base : level)
        for (int64_t j = 0; j < d.count; ++j)
          next.push_back(base + j * d.stride);
      level = std::move(next);
    }
    out.insert(out.end(), level.begin(), level.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<RankList> RankList::combine(const RankList &other, int op) const {
  auto a = rowsOf(blocks_), b = rowsOf(other.blocks_);
  if (!a || !b)
    return std::nullopt;
  auto rows = combineRows(*a, *b, SetOp(op));
  if (!rows)
    return std::nullopt;
  RankList out;
  out.blocks_ = foldBlocks(greedyRuns(*rows));
  return out;
}

RankList RankList::unite(const RankList &other) const {
  if (other.empty() || *this == other)
    return *this;
  if (empty())
    return other;
  if (auto r = combine(other, int(SetOp::Unite)))
    return *r;
  std::vector<int64_t> a = ranks(), b = other.ranks();
  a.insert(a.end(), b.begin(), b.end());
  return fromRanks(std::move(a));
}

RankList RankList::intersect(const RankList &other) const {
  if (*this == other)
    return *this;
  if (auto r = combine(other, int(SetOp::Intersect)))
    return *r;
  std::vector<int64_t> a = ranks(), b = other.ranks(), out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return fromRanks(std::move(out));
}

RankList RankList::subtract(const RankList &other) const {
  if (*this == other)
    return {};
  if (auto r = combine(other, int(SetOp::Subtract)))
    return *r;
  std::vector<int64_t> a = ranks(), b = other.ranks(), out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return fromRanks(std::move(out));
}

std::vector<int64_t> RankList::endRanks(size_t n) const {
  if (size() <= int64_t(2 * n))
    return ranks();
  std::vector<int64_t> out;
  auto rows = rowsOf(blocks_);
  if (!rows) {
    std::vector<int64_t> all = ranks();
    out.assign(all.begin(), all.begin() + std::ptrdiff_t(n));
    out.insert(out.end(), all.end() - std::ptrdiff_t(n), all.end());
    return out;
  }
  for (const Row &r : *rows)
    for (int64_t k = 0; k < r.count && out.size() < n; ++k)
      out.push_back(r.first + k * r.stride);
  std::vector<int64_t> tail;
  for (auto it = rows->rbegin(); it != rows->rend() && tail.size() < n; ++it)
    for (int64_t k = it->count - 1; k >= 0 && tail.size() < n; --k)
      tail.push_back(it->first + k * it->stride);
  out.insert(out.end(), tail.rbegin(), tail.rend());
  return out;
}

bool RankList::isAll(int64_t nranks) const {
  return blocks_.size() == 1 && size() == nranks && blocks_[0].start == 0 &&
         (blocks_[0].dims.empty() || (blocks_[0].dims.size() == 1 && blocks_[0].dims[0].stride == 1));
}

std::string RankList::str() const {
  if (blocks_.empty())
    return "none";
  std::string out;
  for (const auto &b : blocks_) {
    if (!out.empty())
      out += ",";
    if (b.dims.empty()) {
      out += std::to_string(b.start);
    } else if (b.dims.size() == 1) {
      out += std::to_string(b.start) + "-" + std::to_string(b.last());
      if (b.dims[0].stride != 1)
        out += ":" + std::to_string(b.dims[0].stride);
    } else {
      out += "{" + std::to_string(b.start);
      for (const auto &d : b.dims)
        out += "+" + std::to_string(d.stride) + "*[0.." + std::to_string(d.count - 1) + "]";
      out += "}";
    }
  }
  return out;
}

} // namespace sio::trace
