// A file's next expected accesses and the file pieces they are: what the
// prefetch thread loads, and what a read waits for.
#include "Interpose.h"

namespace sio::prefetch::interpose {

std::vector<Piece> piecesFor(const FileState &f, const Access &a) {
  if (f.logicalPlan)
    return f.view ? f.view->map(a.offset, a.size) : std::vector<Piece>{};
  if (f.viewGuess && a == *f.viewGuess && !f.predictor.predicts())
    return f.viewGuessPieces;
  std::vector<Piece> out;
  if (f.shapeBytes == a.size && f.shape.size() > 1) {
    out.reserve(f.shape.size());
    for (const Piece &p : f.shape)
      out.push_back({a.offset + p.offset, p.length});
    return out;
  }
  if (f.view && !f.view->contiguous()) {
    // Before a read of this size: as the current view lays it out.
    out = f.view->map(0, a.size);
    const int64_t first = out.empty() ? 0 : out.front().offset;
    for (Piece &p : out)
      p.offset += a.offset - first;
    return out;
  }
  out.push_back({a.offset, a.size});
  return out;
}

bool fitsInCache(const FileState &f, const std::vector<Piece> &pieces) {
  size_t blocks = 0;
  for (const Piece &p : pieces)
    blocks += g().cache->blocksSpanned(p.offset + f.shift, p.length);
  return blocks <= g().cache->capacityBlocks();
}

std::vector<Access> upcomingFor(const FileState &f, size_t n) {
  if (f.predictor.predicts() || !f.viewGuess || n == 0)
    return f.predictor.upcoming(n);
  return {*f.viewGuess};
}

} // namespace sio::prefetch::interpose
