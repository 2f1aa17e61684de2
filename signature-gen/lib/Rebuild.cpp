// Rebuilding the accesses a trace signature describes (Signature.h).
#include "sio/signature/Signature.h"

namespace sio::signature {

std::optional<std::vector<RebuiltAccess>> rebuildAccesses(const TraceSignature &sig, size_t limit) {
  std::vector<RebuiltAccess> out;
  for (const auto &c : sig.components) {
    if (c.strideKind == StrideKind::Markov || c.strideKind == StrideKind::Random)
      return std::nullopt;
    // Pieces of different sizes one after the other: the sizes must be listed.
    if (c.strideKind == StrideKind::Contiguous && !c.size.regular &&
        int64_t(c.size.values.size()) < c.count.first)
      return std::nullopt;
  }
  auto sizeAt = [](const Component &c, int64_t j) {
    if (c.size.regular)
      return c.size.progression.at(j);
    return j < int64_t(c.size.values.size()) ? c.size.values[size_t(j)] : c.size.max;
  };
  int64_t p = sig.initialPosition;
  for (int64_t r = 0; r < sig.repetitions; ++r) {
    p = sig.initialPosition; // each repetition starts over (or at its components' starts)
    for (int64_t cyc = 0; cyc < sig.cycles; ++cyc) {
      for (const auto &c : sig.components) {
        if (c.start)
          p = sig.initialPosition + c.start->at(r);
        const int64_t count = c.count.at(r);
        // A nest: the run again at every index of its outer levels.
        const int64_t base = p;
        std::vector<int64_t> idx(c.nest.size(), 0);
        for (;;) {
          p = base;
          for (size_t l = 0; l < idx.size(); ++l)
            p += c.nest[l].stride * idx[l];
          for (int64_t j = 0; j < count; ++j) {
            if (out.size() >= limit)
              return out;
            const int64_t size = sizeAt(c, j);
            out.push_back({p, size});
            p += c.strideKind == StrideKind::Contiguous ? size : c.stride;
          }
          size_t l = idx.size();
          while (l > 0 && ++idx[l - 1] == c.nest[l - 1].count)
            idx[--l] = 0;
          if (l == 0)
            break;
        }
        if (!c.nest.empty())
          p = base + c.nest.front().stride * c.nest.front().count;
      }
    }
  }
  return out;
}

} // namespace sio::signature
