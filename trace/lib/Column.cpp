#include "sio/trace/Column.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

namespace sio::trace {

namespace {

// Block coding (docs/trace-format.md, "Packed tables"):
//   header byte: bit 7 = differences, bits 0-6 = width w (0..64)
//   values:      zigzag varint base; n values (v - base) at w bits each
//   differences: zigzag varint first value; zigzag varint base;
//                n-1 values (v[k] - v[k-1] - base) at w bits each
// Packed values are little-endian bit streams (value k at bit k*w), padded
// with zero bits to a whole byte. All arithmetic wraps modulo 2^64.
constexpr uint8_t kDeltaFlag = 0x80;
__extension__ typedef unsigned __int128 Wide;

uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t unzigzag(uint64_t u) { return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1)); }

unsigned bitWidth(uint64_t range) { return static_cast<unsigned>(std::bit_width(range)); }

size_t varintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void putVarint(std::vector<uint8_t> &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

/// Eight bytes of a little-endian bit stream.
void storeWord(uint8_t *p, uint64_t word) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &word, sizeof word);
  } else {
    for (unsigned i = 0; i < 8; ++i)
      p[i] = static_cast<uint8_t>(word >> (8 * i));
  }
}

void putPacked(std::vector<uint8_t> &out, const uint64_t *u, size_t n, unsigned w) {
  if (w == 0 || n == 0)
    return;
  size_t start = out.size();
  out.resize(start + (n * w + 7) / 8, 0);
  uint8_t *p = out.data() + start;
  // Whole 64-bit words while values fill them (one store, no 128-bit
  // shifts): the runtime codes a block every 128 values of a random offset
  // on the calling thread. Value k may straddle two words.
  uint64_t acc = 0;
  unsigned bits = 0; // bits of acc in use, < 64
  size_t pos = 0;
  for (size_t k = 0; k < n; ++k) {
    acc |= u[k] << bits;
    if (bits + w < 64) {
      bits += w;
      continue;
    }
    storeWord(p + pos, acc);
    pos += 8;
    acc = bits == 0 ? 0 : u[k] >> (64 - bits); // the part that did not fit
    bits = bits + w - 64;
  }
  for (; bits > 0; bits = bits > 8 ? bits - 8 : 0) {
    p[pos++] = static_cast<uint8_t>(acc);
    acc >>= 8;
  }
}

uint64_t mask(unsigned w) { return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1; }

/// Value k of a packed stream of width w at p (which holds enough bytes).
uint64_t getPacked(const uint8_t *p, size_t k, unsigned w) {
  if (w == 0)
    return 0;
  size_t bit = k * w;
  const uint8_t *q = p + bit / 8;
  unsigned shift = bit % 8;
  size_t need = (shift + w + 7) / 8; // at most 9 bytes
  Wide acc = 0;
  for (size_t i = 0; i < need; ++i)
    acc |= static_cast<Wide>(q[i]) << (8 * i);
  return static_cast<uint64_t>(acc >> shift) & mask(w);
}

/// A reader over coded bytes that checks every bound.
struct Cursor {
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
  const char *error = nullptr;

  bool byte(uint8_t &b) {
    if (pos >= size) {
      error = "the packed bytes end inside a block";
      return false;
    }
    b = data[pos++];
    return true;
  }
  bool varint(uint64_t &v) {
    v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      uint8_t b;
      if (!byte(b))
        return false;
      if (shift == 63 && b > 1) {
        error = "a varint exceeds 64 bits";
        return false;
      }
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    error = "a varint exceeds 64 bits";
    return false;
  }
  bool skip(size_t n) {
    if (n > size - pos) {
      error = "the packed bytes end inside a block";
      return false;
    }
    pos += n;
    return true;
  }
};

/// Decodes one block of n values at c (advancing it); false with c.error.
bool decodeAt(Cursor &c, size_t n, int64_t *out) {
  uint8_t header;
  if (!c.byte(header))
    return false;
  unsigned w = header & 0x7f;
  if (w > 64) {
    c.error = "a block's bit width exceeds 64";
    return false;
  }
  bool delta = header & kDeltaFlag;
  uint64_t first = 0, base;
  if (delta && !c.varint(first))
    return false;
  if (!c.varint(base))
    return false;
  size_t packed = delta ? n - 1 : n;
  const uint8_t *p = c.data + c.pos;
  if (!c.skip((packed * w + 7) / 8))
    return false;
  uint64_t b = static_cast<uint64_t>(unzigzag(base));
  if (!delta) {
    for (size_t k = 0; k < n; ++k)
      out[k] = static_cast<int64_t>(getPacked(p, k, w) + b);
    return true;
  }
  uint64_t v = static_cast<uint64_t>(unzigzag(first));
  out[0] = static_cast<int64_t>(v);
  for (size_t k = 1; k < n; ++k) {
    v += getPacked(p, k - 1, w) + b;
    out[k] = static_cast<int64_t>(v);
  }
  return true;
}

/// Appends the coding of the block v[0..n) (1 <= n <= kBlock; lo and hi
/// its least and greatest value) to out.
void encodeBlock(const int64_t *v, size_t n, int64_t lo, int64_t hi, std::vector<uint8_t> &out) {
  unsigned wRaw = bitWidth(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  size_t rawBytes = varintLength(zigzag(lo)) + (n * wRaw + 7) / 8;
  int64_t dlo = 0, dhi = 0;
  std::array<uint64_t, IntColumn::kBlock> u;
  if (n >= 2) {
    for (size_t k = 1; k < n; ++k) {
      int64_t d = static_cast<int64_t>(static_cast<uint64_t>(v[k]) - static_cast<uint64_t>(v[k - 1]));
      if (k == 1 || d < dlo)
        dlo = d;
      if (k == 1 || d > dhi)
        dhi = d;
    }
  }
  unsigned wDelta = bitWidth(static_cast<uint64_t>(dhi) - static_cast<uint64_t>(dlo));
  size_t deltaBytes = varintLength(zigzag(v[0])) + varintLength(zigzag(dlo)) + ((n - 1) * wDelta + 7) / 8;
  if (n >= 2 && deltaBytes < rawBytes) {
    out.push_back(static_cast<uint8_t>(kDeltaFlag | wDelta));
    putVarint(out, zigzag(v[0]));
    putVarint(out, zigzag(dlo));
    for (size_t k = 1; k < n; ++k)
      u[k - 1] = static_cast<uint64_t>(v[k]) - static_cast<uint64_t>(v[k - 1]) - static_cast<uint64_t>(dlo);
    putPacked(out, u.data(), n - 1, wDelta);
  } else {
    out.push_back(static_cast<uint8_t>(wRaw));
    putVarint(out, zigzag(lo));
    for (size_t k = 0; k < n; ++k)
      u[k] = static_cast<uint64_t>(v[k]) - static_cast<uint64_t>(lo);
    putPacked(out, u.data(), n, wRaw);
  }
}

std::atomic<uint64_t> nextSerial{1};

struct DecodeCache {
  uint64_t serial = 0;
  size_t block = 0;
  std::array<int64_t, IntColumn::kBlock> values;
};
thread_local DecodeCache cache;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

} // namespace

IntColumn::IntColumn(std::span<const int64_t> values) {
  ColumnBuilder b;
  for (int64_t v : values)
    b.push(v);
  *this = std::move(b).finish();
}

size_t IntColumn::decodeBlock(size_t b, int64_t *out) const {
  size_t n = b + 1 < offsets_.size() ? kBlock : size_ - kBlock * b;
  Cursor c{bytes_.data(), bytes_.size(), offsets_[b]};
  decodeAt(c, n, out); // coded by this class: well formed
  return n;
}

int64_t IntColumn::at(size_t i) const {
  size_t b = i / kBlock, k = i % kBlock;
  const uint8_t *p = bytes_.data() + offsets_[b];
  uint8_t header = p[0];
  if (!(header & kDeltaFlag)) { // values: one load, no decoding of the block
    Cursor c{bytes_.data(), bytes_.size(), offsets_[b] + 1};
    uint64_t base;
    c.varint(base);
    return static_cast<int64_t>(getPacked(bytes_.data() + c.pos, k, header & 0x7f) +
                                static_cast<uint64_t>(unzigzag(base)));
  }
  if (cache.serial != serial_ || cache.block != b) {
    decodeBlock(b, cache.values.data());
    cache.serial = serial_;
    cache.block = b;
  }
  return cache.values[k];
}

std::vector<int64_t> IntColumn::values() const {
  std::vector<int64_t> out;
  out.reserve(size_);
  forEach([&](int64_t v) { out.push_back(v); });
  return out;
}

std::strong_ordering operator<=>(const IntColumn &a, const IntColumn &b) {
  if (a == b)
    return std::strong_ordering::equal;
  std::array<int64_t, IntColumn::kBlock> x, y;
  size_t blocks = std::min(a.offsets_.size(), b.offsets_.size());
  for (size_t blk = 0; blk < blocks; ++blk) {
    size_t n = a.decodeBlock(blk, x.data()), m = b.decodeBlock(blk, y.data());
    for (size_t k = 0; k < std::min(n, m); ++k)
      if (x[k] != y[k])
        return x[k] <=> y[k];
  }
  return a.size_ <=> b.size_;
}

std::string IntColumn::packedText() const {
  std::string out;
  out.reserve(packedTextSize());
  writePackedText([&](std::string_view piece) { out += piece; });
  return out;
}

void IntColumn::writePackedText(const std::function<void(std::string_view)> &sink) const {
  // Whole groups of 3 bytes per piece, so that the pieces concatenate to the
  // text of the whole.
  constexpr size_t kPieceBytes = 3 << 12; // 16 KiB of text on the stack
  char piece[kPieceBytes / 3 * 4];
  for (size_t from = 0; from < bytes_.size(); from += kPieceBytes) {
    const size_t end = std::min(bytes_.size(), from + kPieceBytes);
    char *out = piece;
    size_t i = from;
    for (; i + 3 <= end; i += 3) {
      uint32_t v = uint32_t(bytes_[i]) << 16 | uint32_t(bytes_[i + 1]) << 8 | bytes_[i + 2];
      *out++ = kAlphabet[v >> 18];
      *out++ = kAlphabet[(v >> 12) & 63];
      *out++ = kAlphabet[(v >> 6) & 63];
      *out++ = kAlphabet[v & 63];
    }
    if (size_t rest = end - i) {
      uint32_t v = uint32_t(bytes_[i]) << 16 | (rest > 1 ? uint32_t(bytes_[i + 1]) << 8 : 0);
      *out++ = kAlphabet[v >> 18];
      *out++ = kAlphabet[(v >> 12) & 63];
      if (rest > 1)
        *out++ = kAlphabet[(v >> 6) & 63];
    }
    sink(std::string_view(piece, size_t(out - piece)));
  }
}

std::optional<IntColumn> IntColumn::fromPackedText(std::string_view text, uint64_t count, std::string *error) {
  auto failWith = [&](const char *what) -> std::optional<IntColumn> {
    if (error)
      *error = what;
    return std::nullopt;
  };
  if (count == 0)
    return failWith("a packed table holds at least one value");
  if (text.size() % 4 == 1)
    return failWith("the packed text is not base64 (bad length)");
  std::vector<uint8_t> bytes;
  bytes.reserve(text.size() / 4 * 3 + text.size() % 4 * 3 / 4); // exactly
  uint32_t acc = 0;
  unsigned bits = 0;
  for (char ch : text) {
    int v = base64Value(ch);
    if (v < 0)
      return failWith("the packed text is not base64 (a character outside A-Z a-z 0-9 + /)");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  // Each block takes at least 2 bytes: bound the count by the text before
  // decoding, so that a short text cannot ask for a huge column.
  uint64_t blocks = (count + IntColumn::kBlock - 1) / IntColumn::kBlock;
  if (blocks > bytes.size() / 2)
    return failWith("the packed text is too short for its value count");
  // Every block is decoded (checking its bounds) and coded again: when the
  // text is this class's canonical coding, as it is when this class wrote
  // it, the decoded bytes become the column as they are (no second copy
  // while they are read); otherwise the column is built from the values.
  IntColumn column;
  column.offsets_.reserve(size_t(blocks));
  bool canonical = true;
  std::vector<uint8_t> again;
  Cursor c{bytes.data(), bytes.size()};
  std::array<int64_t, IntColumn::kBlock> block;
  for (uint64_t b = 0; b < blocks; ++b) {
    size_t n = b + 1 < blocks ? IntColumn::kBlock : count - IntColumn::kBlock * b;
    const size_t start = c.pos;
    if (!decodeAt(c, n, block.data()))
      return failWith(c.error);
    const auto [lo, hi] = std::minmax_element(block.begin(), block.begin() + ptrdiff_t(n));
    if (canonical) {
      again.clear();
      encodeBlock(block.data(), n, *lo, *hi, again);
      canonical =
          again.size() == c.pos - start && std::equal(again.begin(), again.end(), bytes.begin() + ptrdiff_t(start));
    }
    column.offsets_.push_back(start);
    column.min_ = b == 0 ? *lo : std::min(column.min_, *lo);
    column.max_ = b == 0 ? *hi : std::max(column.max_, *hi);
  }
  if (c.pos != bytes.size())
    return failWith("the packed text holds more bytes than its value count needs");
  if (canonical) {
    column.size_ = size_t(count);
    column.bytes_ = std::move(bytes);
    column.serial_ = nextSerial.fetch_add(1, std::memory_order_relaxed);
    return column;
  }
  ColumnBuilder builder;
  Cursor second{bytes.data(), bytes.size()};
  for (uint64_t b = 0; b < blocks; ++b) {
    size_t n = b + 1 < blocks ? IntColumn::kBlock : count - IntColumn::kBlock * b;
    decodeAt(second, n, block.data()); // checked above
    for (size_t k = 0; k < n; ++k)
      builder.push(block[k]);
  }
  return std::move(builder).finish();
}

void ColumnBuilder::flush() {
  const size_t n = npending_;
  if (n == 0)
    return;
  IntColumn &c = column_;
  const int64_t *v = pending_.data();
  int64_t lo = v[0], hi = v[0];
  for (size_t k = 1; k < n; ++k) {
    lo = std::min(lo, v[k]);
    hi = std::max(hi, v[k]);
  }
  if (c.size_ == 0) {
    c.min_ = lo;
    c.max_ = hi;
  } else {
    c.min_ = std::min(c.min_, lo);
    c.max_ = std::max(c.max_, hi);
  }
  c.offsets_.push_back(c.bytes_.size());
  encodeBlock(v, n, lo, hi, c.bytes_);
  c.size_ += n;
  npending_ = 0;
}

IntColumn ColumnBuilder::finish() && {
  flush();
  IntColumn out = std::move(column_);
  out.bytes_.shrink_to_fit();
  out.offsets_.shrink_to_fit();
  out.serial_ = nextSerial.fetch_add(1, std::memory_order_relaxed);
  column_ = IntColumn();
  return out;
}

} // namespace sio::trace
