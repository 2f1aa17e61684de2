// Datatype flattening through MPI_Type_get_envelope / MPI_Type_get_contents.
#include "View.h"

#include <algorithm>

namespace sio::prefetch {
namespace {

constexpr size_t kMaxSegments = size_t(1) << 20;

/// One instance of a datatype's typemap as merged byte pieces, relative to
/// its origin, in typemap order.
using Pieces = std::vector<Piece>;

/// Flattens a datatype through its envelope and contents, as ROMIO's
/// ADIOI_Flatten does: each node of the constructor tree is flattened once
/// and its parent appends shifted copies of its pieces, so that the work is
/// proportional to the number of pieces, not of elements. (Walking it
/// element by element made PnetCDF's set_view, a struct around a subarray
/// of 131,072 doubles, cost 2 ms of envelope calls per call: issue 31.)
struct Flattener {
  bool ok = true;

  /// Appends [off, off+len) to `out`, merged with the previous piece when
  /// adjacent (the result is the same as appending byte by byte).
  void add(Pieces &out, int64_t off, int64_t len) {
    if (len <= 0)
      return;
    if (!out.empty() && out.back().offset + out.back().length == off) {
      out.back().length += len;
      return;
    }
    if (out.size() >= kMaxSegments) {
      ok = false;
      return;
    }
    out.push_back({off, len});
  }

  /// Appends `n` instances of `child` (of extent `ext`) at base, base+ext,
  /// ...: one piece when the child is dense (a single piece filling its
  /// extent, e.g. a named type), so a contiguous run of a million doubles
  /// costs one step.
  void addRun(Pieces &out, const Pieces &child, int64_t ext, int64_t base, int64_t n) {
    if (n <= 0 || child.empty())
      return;
    if (child.size() == 1 && child[0].offset == 0 && child[0].length == ext) {
      add(out, base, n * ext);
      return;
    }
    for (int64_t j = 0; j < n && ok; ++j)
      for (const Piece &p : child) {
        add(out, base + j * ext + p.offset, p.length);
        if (!ok)
          return;
      }
  }

  static int64_t extentOf(MPI_Datatype t) {
    MPI_Aint lb = 0, ext = 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    return int64_t(ext);
  }

  /// The pieces of one instance of `t`; `ok` false when `t` has a
  /// constructor not handled or too many pieces.
  Pieces flatten(MPI_Datatype t) {
    Pieces out;
    if (!ok)
      return out;
    int ni = 0, na = 0, nd = 0, combiner = 0;
    PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED) {
      int size = 0;
      PMPI_Type_size(t, &size);
      add(out, 0, size);
      return out;
    }
    std::vector<int> ints(size_t(ni) + 1);
    std::vector<MPI_Aint> addrs(size_t(na) + 1);
    std::vector<MPI_Datatype> types(size_t(nd) + 1);
    PMPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), types.data());
    MPI_Datatype old = nd > 0 ? types[0] : MPI_DATATYPE_NULL;
    const int64_t ext = old != MPI_DATATYPE_NULL ? extentOf(old) : 0;
    // The old type's pieces, for the constructors with one old type.
    Pieces child;
    if (combiner != MPI_COMBINER_STRUCT && old != MPI_DATATYPE_NULL)
      child = flatten(old);
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      out = std::move(child);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      addRun(out, child, ext, 0, ints[0]);
      break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
      const int count = ints[0], block = ints[1];
      const int64_t stride = combiner == MPI_COMBINER_VECTOR ? int64_t(ints[2]) * ext : int64_t(addrs[0]);
      if (stride < 0)
        ok = false;
      for (int i = 0; i < count && ok; ++i)
        addRun(out, child, ext, i * stride, block);
      break;
    }
    case MPI_COMBINER_HINDEXED_BLOCK: {
      const int count = ints[0], block = ints[1];
      for (int i = 0; i < count && ok; ++i)
        addRun(out, child, ext, int64_t(addrs[i]), block);
      break;
    }
    case MPI_COMBINER_HINDEXED: {
      const int count = ints[0];
      for (int i = 0; i < count && ok; ++i)
        addRun(out, child, ext, int64_t(addrs[i]), ints[1 + i]);
      break;
    }
    case MPI_COMBINER_STRUCT: {
      // PnetCDF's views and buffer types: one block per type, each at its
      // byte displacement.
      const int count = ints[0];
      for (int i = 0; i < count && ok; ++i) {
        const Pieces member = flatten(types[size_t(i)]);
        addRun(out, member, extentOf(types[size_t(i)]), int64_t(addrs[i]), ints[1 + i]);
      }
      break;
    }
    case MPI_COMBINER_INDEXED_BLOCK: {
      const int count = ints[0], block = ints[1];
      for (int i = 0; i < count && ok; ++i)
        addRun(out, child, ext, int64_t(ints[2 + i]) * ext, block);
      break;
    }
    case MPI_COMBINER_INDEXED: {
      const int count = ints[0];
      for (int i = 0; i < count && ok; ++i)
        addRun(out, child, ext, int64_t(ints[1 + count + i]) * ext, ints[1 + i]);
      break;
    }
    case MPI_COMBINER_SUBARRAY: {
      const int n = ints[0];
      std::vector<int64_t> sizes(n), subs(n), starts(n);
      for (int d = 0; d < n; ++d) {
        sizes[d] = ints[1 + d];
        subs[d] = ints[1 + n + d];
        starts[d] = ints[1 + 2 * n + d];
      }
      const bool fortran = ints[1 + 3 * n] == MPI_ORDER_FORTRAN;
      // Dimension order from slowest to fastest.
      std::vector<int> dims(n);
      for (int d = 0; d < n; ++d)
        dims[d] = fortran ? n - 1 - d : d;
      if (n == 0)
        break;
      // One run of the fastest dimension per index of the others.
      const int fast = dims[n - 1];
      std::vector<int64_t> idx(n, 0);
      int64_t rows = 1;
      for (int q = 0; q + 1 < n; ++q)
        rows *= subs[dims[q]];
      if (subs[fast] <= 0)
        rows = 0;
      for (int64_t k = 0; k < rows && ok; ++k) {
        int64_t linear = 0;
        for (int d : dims)
          linear = linear * sizes[d] + starts[d] + idx[d];
        addRun(out, child, ext, linear * ext, subs[fast]);
        for (int q = n - 2; q >= 0; --q) { // advance, fastest of the others first
          const int d = dims[q];
          if (++idx[d] < subs[d])
            break;
          idx[d] = 0;
        }
      }
      break;
    }
    default:
      ok = false;
    }
    for (int i = 0; i < nd; ++i) {
      int a = 0, b = 0, c = 0, comb = 0;
      PMPI_Type_get_envelope(types[i], &a, &b, &c, &comb);
      if (comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&types[i]);
    }
    if (!ok)
      out.clear();
    return out;
  }
};

} // namespace

std::vector<Piece> View::map(int64_t logical, int64_t length) const {
  std::vector<Piece> pieces;
  if (length <= 0)
    return pieces;
  if (contiguous()) {
    pieces.push_back({disp + logical, length});
    return pieces;
  }
  int64_t tile = logical / size;
  int64_t within = logical % size;
  size_t seg = size_t(std::upper_bound(prefix.begin(), prefix.end(), within) - prefix.begin()) - 1;
  while (length > 0) {
    const Piece &s = segments[seg];
    const int64_t in = within - prefix[seg];
    const int64_t n = std::min(length, s.length - in);
    const int64_t off = disp + tile * extent + s.offset + in;
    if (!pieces.empty() && pieces.back().offset + pieces.back().length == off)
      pieces.back().length += n;
    else
      pieces.push_back({off, n});
    length -= n;
    within += n;
    if (++seg == segments.size()) {
      seg = 0;
      within = 0;
      ++tile;
    }
  }
  return pieces;
}

std::optional<View> flattenView(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype) {
  Flattener f;
  Pieces pieces = f.flatten(filetype);
  if (!f.ok || pieces.empty())
    return std::nullopt;
  View v;
  v.disp = disp;
  int es = 1;
  PMPI_Type_size(etype, &es);
  v.etypeSize = std::max(es, 1);
  v.extent = Flattener::extentOf(filetype);
  v.segments = std::move(pieces);
  int64_t total = 0;
  int64_t last = INT64_MIN;
  for (const auto &s : v.segments) {
    if (s.offset < last) // a view's offsets never decrease (MPI-4 §14.3)
      return std::nullopt;
    last = s.offset + s.length;
    v.prefix.push_back(total);
    total += s.length;
  }
  v.size = total;
  if (v.size <= 0 || v.extent <= 0)
    return std::nullopt;
  return v;
}

std::optional<MemoryType> flattenMemory(MPI_Datatype type) {
  Flattener f;
  Pieces pieces = f.flatten(type);
  if (!f.ok)
    return std::nullopt;
  MemoryType m;
  m.extent = Flattener::extentOf(type);
  for (const Piece &p : pieces)
    m.size += p.length;
  m.segments = std::move(pieces);
  return m;
}

void copyToMemory(const MemoryType &m, int64_t count, char *buf, int64_t bytes,
                  const std::function<void(int64_t, int64_t, char *)> &read) {
  // Walk the memory type's segments, element by element, taking the next
  // bytes of the (packed) data each time: MPI's typemap order.
  int64_t done = 0;
  for (int64_t e = 0; e < count && done < bytes; ++e)
    for (const Piece &s : m.segments) {
      const int64_t n = std::min(s.length, bytes - done);
      if (n <= 0)
        return;
      read(done, n, buf + e * m.extent + s.offset);
      done += n;
    }
}

std::optional<int64_t> contiguousBytes(MPI_Datatype type, int64_t count) {
  int size = 0;
  MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  if (size == 0)
    return 0;
  if (lb != 0 || tlb != 0 || ext != size || text != size)
    return std::nullopt;
  return int64_t(size) * count;
}

} // namespace sio::prefetch
