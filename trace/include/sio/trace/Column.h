// A compact, immutable column of 64-bit integers: the storage of explicit
// tables (`[v0, v1, ...][i0]`, Expr.h) and of the runtime's per-site store of
// values that follow no model (docs/trace-format.md, "Packed tables").
//
// Values are cut into blocks of kBlock; each block is coded on its own,
// either as the values themselves or as the differences of consecutive ones
// (whichever is narrower), minus the block's minimum (frame of reference),
// bit-packed at the width of the largest remainder. Uniform random values in
// [0, 100000) take 17 bits each, a sorted run of small strides 1-8 bits, a
// constant 0 bits. The coding is canonical (a function of the values only),
// so two columns are equal exactly when their bytes are.
//
//   ColumnBuilder b;
//   for (int64_t v : values) b.push(v);     // O(1) amortized, no search
//   IntColumn c = std::move(b).finish();
//   c.at(7); c.size(); c.packedText();       // base64 for the JSON form
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sio::trace {

class IntColumn {
public:
  static constexpr size_t kBlock = 128;

  IntColumn() = default;
  explicit IntColumn(std::span<const int64_t> values);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The value at `i` (< size()). O(1) for blocks of values, O(kBlock) for
  /// blocks of differences, amortized O(1) when read in order.
  int64_t at(size_t i) const;
  int64_t operator[](size_t i) const { return at(i); }
  std::vector<int64_t> values() const;
  /// Calls f(value) for every value in order, decoding each block once.
  template <typename F> void forEach(F &&f) const {
    std::array<int64_t, kBlock> block;
    for (size_t b = 0; b < offsets_.size(); ++b) {
      size_t n = decodeBlock(b, block.data());
      for (size_t k = 0; k < n; ++k)
        f(block[k]);
    }
  }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }

  /// The coded bytes (blocks, concatenated) and their base64 text
  /// (RFC 4648 alphabet, no padding), the form the JSON writer uses.
  const std::vector<uint8_t> &bytes() const { return bytes_; }
  std::string packedText() const;
  /// packedText() in pieces of 16 KiB, never held whole (the JSON
  /// writer streams a table of millions of values this way).
  void writePackedText(const std::function<void(std::string_view)> &sink) const;
  /// The length of packedText().
  size_t packedTextSize() const { return (bytes_.size() * 4 + 2) / 3; }
  /// Decodes `count` values from packedText() form; nullopt with `error`
  /// set when the text is not base64, the blocks are malformed, or the
  /// bytes do not hold exactly `count` values.
  static std::optional<IntColumn> fromPackedText(std::string_view text, uint64_t count, std::string *error);

  /// Heap bytes held.
  size_t heapBytes() const { return bytes_.capacity() + offsets_.capacity() * sizeof(uint64_t); }

  friend bool operator==(const IntColumn &a, const IntColumn &b) { return a.size_ == b.size_ && a.bytes_ == b.bytes_; }
  /// Lexicographic order of the values (as std::vector<int64_t> orders).
  friend std::strong_ordering operator<=>(const IntColumn &a, const IntColumn &b);

private:
  friend class ColumnBuilder;
  /// Decodes block b into out; returns its value count.
  size_t decodeBlock(size_t b, int64_t *out) const;

  size_t size_ = 0;
  int64_t min_ = 0, max_ = 0;
  uint64_t serial_ = 0; ///< identity for the per-thread decode cache
  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> offsets_; ///< where each block starts in bytes_
};

/// Appends values one at a time, coding a block whenever kBlock are pending.
class ColumnBuilder {
public:
  void push(int64_t v) {
    pending_[npending_++] = v;
    if (npending_ == IntColumn::kBlock)
      flush();
  }
  size_t size() const { return column_.size_ + npending_; }
  /// Heap bytes held (coded blocks; the pending block is inline).
  size_t heapBytes() const { return column_.heapBytes(); }
  /// The column of every value pushed; the builder is empty afterwards.
  IntColumn finish() &&;

private:
  void flush();
  IntColumn column_;
  std::array<int64_t, IntColumn::kBlock> pending_{};
  size_t npending_ = 0;
};

} // namespace sio::trace
