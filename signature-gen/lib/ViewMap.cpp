// A view's logical byte -> its offset in the file (ViewMap.h), following
// MPI's typemap order for each combiner the trace describes.
#include "ViewMap.h"

#include <vector>

namespace sio::signature {
namespace {

struct Walker {
  const trace::Trace &t;
  int64_t rank;

  std::optional<int64_t> field(const trace::ObjectEntry &d, const char *name, size_t i = 0) const {
    auto it = d.fields.find(name);
    if (it == d.fields.end() || i >= it->second.size())
      return std::nullopt;
    return it->second[i].evaluate({rank, t.header.nranks, {}});
  }
  size_t fieldCount(const trace::ObjectEntry &d, const char *name) const {
    auto it = d.fields.find(name);
    return it == d.fields.end() ? 0 : it->second.size();
  }

  std::optional<TypeLayout> layout(int64_t id) const {
    const trace::ObjectEntry *d = t.datatype(id);
    if (!d)
      return std::nullopt;
    auto size = d->kind == "named" ? trace::datatypeSize(t, id, rank) : field(*d, "size");
    auto extent = field(*d, "extent");
    if (!extent && d->kind == "named")
      extent = size;
    if (!size || !extent)
      return std::nullopt;
    return TypeLayout{*size, *extent};
  }

  /// Offset of the data byte `within` (< size) of one element of `id`.
  std::optional<int64_t> inElement(int64_t id, int64_t within, int depth) const {
    const trace::ObjectEntry *d = t.datatype(id);
    if (!d || depth > 32)
      return std::nullopt;
    if (d->kind == "named")
      return within;
    auto old = field(*d, "oldtype");
    TypeLayout ol;
    bool haveOld = false;
    if (old)
      if (auto x = layout(*old)) {
        ol = *x;
        haveOld = true;
      }
    // `n` whole elements of the old type, then the rest inside the next.
    auto inOld = [&](int64_t elementOffset, int64_t rest) -> std::optional<int64_t> {
      auto r = inElement(*old, rest, depth + 1);
      return r ? std::optional<int64_t>(elementOffset + *r) : std::nullopt;
    };
    if (d->kind == "dup" || d->kind == "resized")
      return old ? inElement(*old, within, depth + 1) : std::nullopt;
    if (!haveOld || ol.size <= 0)
      return std::nullopt;
    const int64_t e = within / ol.size, rest = within % ol.size;
    if (d->kind == "contiguous")
      return inOld(e * ol.extent, rest);
    if (d->kind == "vector" || d->kind == "hvector") {
      auto bl = field(*d, "blocklength");
      auto stride = field(*d, "stride");
      if (!bl || !stride || *bl <= 0)
        return std::nullopt;
      const int64_t strideBytes = d->kind == "vector" ? *stride * ol.extent : *stride;
      return inOld((e / *bl) * strideBytes + (e % *bl) * ol.extent, rest);
    }
    if (d->kind == "indexed") {
      int64_t before = 0;
      for (size_t i = 0; i < fieldCount(*d, "blocklengths"); ++i) {
        auto bl = field(*d, "blocklengths", i);
        auto disp = field(*d, "displacements", i);
        if (!bl || !disp)
          return std::nullopt;
        if (e < before + *bl)
          return inOld((*disp + e - before) * ol.extent, rest);
        before += *bl;
      }
      return std::nullopt;
    }
    if (d->kind == "subarray") {
      const size_t n = fieldCount(*d, "sizes");
      std::vector<int64_t> sizes(n), subs(n), starts(n);
      for (size_t i = 0; i < n; ++i) {
        auto a = field(*d, "sizes", i), b = field(*d, "subsizes", i), c = field(*d, "starts", i);
        if (!a || !b || !c || *b <= 0)
          return std::nullopt;
        sizes[i] = *a, subs[i] = *b, starts[i] = *c;
      }
      const bool fortran = field(*d, "order").value_or(0) == 57 /* MPI_ORDER_FORTRAN (MPICH) */;
      // The element's multi-index, fastest dimension first.
      int64_t rem = e, linear = 0, scale = 1;
      for (size_t q = 0; q < n; ++q) {
        const size_t dim = fortran ? q : n - 1 - q;
        linear += (starts[dim] + rem % subs[dim]) * scale;
        rem /= subs[dim];
        scale *= sizes[dim];
      }
      return inOld(linear * ol.extent, rest);
    }
    // hindexed, (h)indexed_block, struct: the raw envelope.
    std::vector<int64_t> ints, aints, types;
    for (size_t i = 0; i < fieldCount(*d, "ints"); ++i)
      ints.push_back(field(*d, "ints", i).value_or(-1));
    for (size_t i = 0; i < fieldCount(*d, "aints"); ++i)
      aints.push_back(field(*d, "aints", i).value_or(0));
    for (size_t i = 0; i < fieldCount(*d, "types"); ++i)
      types.push_back(field(*d, "types", i).value_or(-1));
    if (ints.empty())
      return std::nullopt;
    const int64_t count = ints[0];
    int64_t before = 0; // data bytes before block i
    for (int64_t i = 0; i < count; ++i) {
      int64_t bl = 0, disp = 0, type = *old;
      if (d->kind == "hindexed" && size_t(1 + i) < ints.size() && size_t(i) < aints.size())
        bl = ints[size_t(1 + i)], disp = aints[size_t(i)];
      else if (d->kind == "hindexed_block" && ints.size() > 1 && size_t(i) < aints.size())
        bl = ints[1], disp = aints[size_t(i)];
      else if (d->kind == "indexed_block" && size_t(2 + i) < ints.size() && ints.size() > 1)
        bl = ints[1], disp = ints[size_t(2 + i)] * ol.extent;
      else if (d->kind == "struct" && size_t(1 + i) < ints.size() && size_t(i) < aints.size() &&
               size_t(i) < types.size())
        bl = ints[size_t(1 + i)], disp = aints[size_t(i)], type = types[size_t(i)];
      else
        return std::nullopt;
      auto tl = layout(type);
      if (!tl || tl->size <= 0)
        return std::nullopt;
      if (within < before + bl * tl->size) {
        const int64_t k = (within - before) / tl->size, r = (within - before) % tl->size;
        auto in = inElement(type, r, depth + 1);
        return in ? std::optional<int64_t>(disp + k * tl->extent + *in) : std::nullopt;
      }
      before += bl * tl->size;
    }
    return std::nullopt;
  }
};

} // namespace

std::optional<TypeLayout> typeLayout(const trace::Trace &t, int64_t type, int64_t rank) {
  return Walker{t, rank}.layout(type);
}

std::optional<int64_t> fileOffsetOf(const trace::Trace &t, int64_t type, int64_t rank, int64_t logical) {
  Walker w{t, rank};
  auto l = w.layout(type);
  if (!l || l->size <= 0 || logical < 0)
    return std::nullopt;
  auto in = w.inElement(type, logical % l->size, 0);
  if (!in)
    return std::nullopt;
  return (logical / l->size) * l->extent + *in;
}

} // namespace sio::signature
