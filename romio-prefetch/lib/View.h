// A file view flattened into byte segments, so that a read's logical bytes
// map to file offsets (the prefetch cache is indexed by file offset).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace sio::prefetch {

struct Piece {
  int64_t offset = 0; ///< file offset
  int64_t length = 0;
  friend bool operator==(const Piece &, const Piece &) = default;
};

struct View {
  int64_t disp = 0;
  int64_t etypeSize = 1;
  int64_t extent = 1;          ///< of the filetype
  int64_t size = 1;            ///< bytes of data per filetype
  std::vector<Piece> segments; ///< in typemap order, relative to the filetype's origin
  std::vector<int64_t> prefix; ///< logical bytes before each segment
  bool sameLayout(const View &o) const {
    return disp == o.disp && etypeSize == o.etypeSize && extent == o.extent && segments == o.segments;
  }
  bool contiguous() const { return segments.size() == 1 && segments[0].offset == 0 && size == extent; }
  /// File pieces of the logical bytes [logical, logical+length).
  std::vector<Piece> map(int64_t logical, int64_t length) const;
};

/// The view (disp, etype, filetype), or nullopt when the filetype is not one
/// the prefetcher serves (named, contiguous, vector, hvector, indexed,
/// hindexed, (h)indexed-block, struct, subarray, resized and dup of those,
/// with monotonic offsets).
std::optional<View> flattenView(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype);

/// A memory datatype flattened: segments relative to the buffer (typemap
/// order; displacements may be negative or repeat), per element.
struct MemoryType {
  std::vector<Piece> segments;
  int64_t extent = 0;
  int64_t size = 0; ///< data bytes per element
};
/// Any datatype built by the combiners flattenView knows, plus struct and
/// hindexed (no order required); nullopt for others (darray, ...).
std::optional<MemoryType> flattenMemory(MPI_Datatype type);
/// Scatter `bytes` packed data bytes into `count` elements of `m` at `buf`:
/// `read(packedOffset, length, dst)` supplies the packed bytes.
void copyToMemory(const MemoryType &m, int64_t count, char *buf, int64_t bytes,
                  const std::function<void(int64_t, int64_t, char *)> &read);

/// Bytes of `count` elements of a memory datatype stored contiguously (no
/// gaps, lower bound 0), or nullopt.
std::optional<int64_t> contiguousBytes(MPI_Datatype type, int64_t count);

} // namespace sio::prefetch
