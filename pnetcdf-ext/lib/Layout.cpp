#include "sio/part/Layout.h"

#include <cstring>

namespace sio::part {

Range partitionRange(int64_t len, int k, int p) {
  const int64_t base = len / k, extra = len % k;
  const int64_t lo = p * base + (p < extra ? p : extra);
  return {lo, lo + base + (p < extra ? 1 : 0) - 1};
}

std::vector<SubRequest> splitRequest(std::span<const int64_t> start, std::span<const int64_t> count,
                                     std::span<const int64_t> stride, int dim, int64_t len, int k) {
  std::vector<SubRequest> out;
  for (int64_t c : count)
    if (c == 0)
      return out;
  const int64_t s0 = start[dim], n = count[dim];
  const int64_t st = stride.empty() ? 1 : stride[dim];
  for (int p = 0; p < k; ++p) {
    Range r = partitionRange(len, k, p);
    // Indices i of the request with lo <= s0 + i*st <= hi.
    int64_t first = r.lo <= s0 ? 0 : (r.lo - s0 + st - 1) / st;
    int64_t last = r.hi < s0 ? -1 : (r.hi - s0) / st;
    if (last > n - 1)
      last = n - 1;
    if (first > last)
      continue;
    SubRequest sub;
    sub.part = p;
    sub.start.assign(start.begin(), start.end());
    sub.count.assign(count.begin(), count.end());
    sub.start[dim] = s0 + first * st - r.lo;
    sub.count[dim] = last - first + 1;
    sub.first = first;
    sub.num = last - first + 1;
    out.push_back(std::move(sub));
  }
  return out;
}

namespace {

template <bool Pack>
void copySlab(const char *from, char *to, std::span<const int64_t> shape, int dim, int64_t first, int64_t num,
              std::size_t elemSize) {
  std::size_t inner = elemSize;
  for (std::size_t d = dim + 1; d < shape.size(); ++d)
    inner *= std::size_t(shape[d]);
  std::size_t outer = 1;
  for (int d = 0; d < dim; ++d)
    outer *= std::size_t(shape[d]);
  const std::size_t rowBytes = std::size_t(shape[dim]) * inner, chunk = std::size_t(num) * inner;
  for (std::size_t o = 0; o < outer; ++o) {
    std::size_t arrayOff = o * rowBytes + std::size_t(first) * inner, packedOff = o * chunk;
    if constexpr (Pack)
      std::memcpy(to + packedOff, from + arrayOff, chunk);
    else
      std::memcpy(to + arrayOff, from + packedOff, chunk);
  }
}

} // namespace

void packSlab(const void *array, void *packed, std::span<const int64_t> shape, int dim, int64_t first, int64_t num,
              std::size_t elemSize) {
  copySlab<true>(static_cast<const char *>(array), static_cast<char *>(packed), shape, dim, first, num, elemSize);
}

void unpackSlab(const void *packed, void *array, std::span<const int64_t> shape, int dim, int64_t first, int64_t num,
                std::size_t elemSize) {
  copySlab<false>(static_cast<const char *>(packed), static_cast<char *>(array), shape, dim, first, num, elemSize);
}

void mappedCopy(void *packed, void *mapped, std::span<const int64_t> count, std::span<const int64_t> imap,
                std::size_t elemSize, bool toMapped) {
  int64_t n = 1;
  for (int64_t c : count)
    n *= c;
  const std::size_t nd = count.size();
  std::vector<int64_t> idx(nd, 0);
  char *p = static_cast<char *>(packed), *m = static_cast<char *>(mapped);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (std::size_t d = 0; d < nd; ++d)
      off += idx[d] * imap[d];
    char *at = m + off * int64_t(elemSize);
    if (toMapped)
      std::memcpy(at, p + i * int64_t(elemSize), elemSize);
    else
      std::memcpy(p + i * int64_t(elemSize), at, elemSize);
    for (std::size_t d = nd; d-- > 0;) {
      if (++idx[d] < count[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace sio::part
