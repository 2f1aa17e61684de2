// Compressed sets of MPI ranks.
//
// A RankList is a union of disjoint strided blocks; each block is
// `start + sum_d stride_d * j_d` for 0 <= j_d < count_d (d outermost first),
// the nested RSD form of ScalaTrace. `{0..N-1}`, `{0}`, `{0,4,8,...}` and the
// rank sets of mesh/stencil codes all stay a constant number of blocks, which
// is what keeps a merged trace near-constant in size as N grows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sio::trace {

struct RankDim {
  int64_t stride = 1;
  int64_t count = 1;
  friend bool operator==(const RankDim &, const RankDim &) = default;
  friend auto operator<=>(const RankDim &, const RankDim &) = default;
};

struct RankBlock {
  int64_t start = 0;
  std::vector<RankDim> dims; ///< outermost first; empty means the single rank `start`

  int64_t size() const;
  bool contains(int64_t rank) const;
  int64_t last() const; ///< the largest rank in the block
  friend bool operator==(const RankBlock &, const RankBlock &) = default;
  friend auto operator<=>(const RankBlock &, const RankBlock &) = default;
};

class RankList {
public:
  RankList() = default;
  /// Compresses an arbitrary set (duplicates allowed, any order).
  static RankList fromRanks(std::vector<int64_t> ranks);
  static RankList single(int64_t rank);
  static RankList range(int64_t first, int64_t count, int64_t stride = 1);
  /// Every rank of a run: `{0..nranks-1}`.
  static RankList all(int64_t nranks) { return range(0, nranks); }
  /// Takes blocks as given; throws std::invalid_argument if they overlap or
  /// have a negative start, non-positive stride or count.
  static RankList fromBlocks(std::vector<RankBlock> blocks);

  bool empty() const { return blocks_.empty(); }
  int64_t size() const;
  bool contains(int64_t rank) const;
  std::optional<int64_t> first() const;
  std::optional<int64_t> last() const;
  /// All ranks, ascending.
  std::vector<int64_t> ranks() const;
  const std::vector<RankBlock> &blocks() const { return blocks_; }

  /// Set operations. Lists of progressions and meshes combine without
  /// enumerating their ranks (cost in the number of blocks, not of ranks);
  /// irregular ones are enumerated. The result is canonical (as fromRanks).
  RankList unite(const RankList &other) const;
  RankList intersect(const RankList &other) const;
  RankList subtract(const RankList &other) const;
  bool isAll(int64_t nranks) const;
  /// The first `n` and the last `n` ranks, ascending (every rank when there
  /// are at most 2n), without enumerating the others.
  std::vector<int64_t> endRanks(size_t n) const;

  /// "0-15", "0,4,8,12", "{0+4*[0..3]+1*[0..1]}" style human text.
  std::string str() const;

  friend bool operator==(const RankList &a, const RankList &b) = default;

private:
  std::optional<RankList> combine(const RankList &other, int op) const;
  std::vector<RankBlock> blocks_; // canonical: as produced by fromRanks
};

} // namespace sio::trace
