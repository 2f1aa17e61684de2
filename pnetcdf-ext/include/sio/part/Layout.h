// Geometry of the partitioned layout (Son et al. 2013 §III-B, §III-C): an
// array is cut along one dimension into K balanced blocks, one per partition
// file, and a (start, count, stride) request in the original index space is
// split into one request per partition in that partition's local coordinates.
// No MPI and no PnetCDF here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sio::part {

/// Inclusive index range [lo, hi] of one partition along the partitioned
/// dimension (what the partition file's `range(dim)` attribute records).
struct Range {
  int64_t lo = 0;
  int64_t hi = -1;
  int64_t size() const { return hi - lo + 1; }
  friend bool operator==(const Range &, const Range &) = default;
};

/// Partition p of K of a dimension of length len: balanced blocks, the first
/// len % K one element longer (100 in 2 -> [0,49], [50,99] as in Figure 5).
Range partitionRange(int64_t len, int k, int p);

/// One partition's share of a request.
struct SubRequest {
  int part = 0;
  /// Request in the partition's local coordinates (stride as in the request).
  std::vector<int64_t> start, count;
  /// The request's own indices along the partitioned dimension that go to
  /// this partition: [first, first + num) of 0..count[dim]-1.
  int64_t first = 0, num = 0;
};

/// Splits the request (start, count, stride; stride empty = all 1) along
/// dimension `dim` of length `len` cut into `k` partitions. Partitions the
/// request does not touch get no SubRequest; a request with a zero count
/// gets none at all.
std::vector<SubRequest> splitRequest(std::span<const int64_t> start, std::span<const int64_t> count,
                                     std::span<const int64_t> stride, int dim, int64_t len, int k);

/// Copies the elements with indices [first, first + num) along `dim` of the
/// C-order array of shape `shape` (elements of elemSize bytes) into the
/// packed buffer (pack) or back from it (unpack).
void packSlab(const void *array, void *packed, std::span<const int64_t> shape, int dim, int64_t first, int64_t num,
              std::size_t elemSize);
void unpackSlab(const void *packed, void *array, std::span<const int64_t> shape, int dim, int64_t first, int64_t num,
                std::size_t elemSize);

/// The mapped arrays of PnetCDF's varm forms: element i0..i{n-1} of a request
/// of shape `count` stands at element sum(i_d * imap[d]) of `mapped`. Copies
/// between that layout and the packed C-order buffer (toMapped: packed ->
/// mapped, else mapped -> packed).
void mappedCopy(void *packed, void *mapped, std::span<const int64_t> count, std::span<const int64_t> imap,
                std::size_t elemSize, bool toMapped);

} // namespace sio::part
