#include "sio/trace/RankList.h"

#include <algorithm>
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

RankList RankList::unite(const RankList &other) const {
  if (other.empty() || *this == other)
    return *this;
  if (empty())
    return other;
  std::vector<int64_t> a = ranks(), b = other.ranks();
  a.insert(a.end(), b.begin(), b.end());
  return fromRanks(std::move(a));
}

RankList RankList::intersect(const RankList &other) const {
  if (*this == other)
    return *this;
  std::vector<int64_t> a = ranks(), b = other.ranks(), out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return fromRanks(std::move(out));
}

RankList RankList::subtract(const RankList &other) const {
  if (*this == other)
    return {};
  std::vector<int64_t> a = ranks(), b = other.ranks(), out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return fromRanks(std::move(out));
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
