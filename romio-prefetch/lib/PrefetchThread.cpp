// The prefetch thread: loads the blocks of every file's upcoming accesses
// with preadv on the file's own descriptor, never calling MPI; G.mu is
// released around the read.
#include "Interpose.h"

#include <algorithm>
#include <sys/uio.h>
#include <utility>

namespace sio::prefetch::interpose {
namespace {

/// Blocks the prefetch thread reads with one preadv at most.
constexpr size_t kMaxRunBlocks = 16;

/// The block phase of a file's first predicted accesses: the one most of
/// their bytes start at (a header read among them does not decide it).
void fixShift(FileState &f, const std::vector<Access> &next) {
  const int64_t bs = int64_t(g().cache->blockSize());
  std::vector<std::pair<int64_t, int64_t>> phases; // (phase, bytes)
  for (const Access &a : next)
    for (const Piece &p : piecesFor(f, a)) {
      const int64_t phase = p.offset % bs;
      auto it = std::find_if(phases.begin(), phases.end(), [&](const auto &e) { return e.first == phase; });
      if (it == phases.end())
        phases.push_back({phase, p.length});
      else
        it->second += p.length;
    }
  if (phases.empty())
    return;
  const auto best =
      std::max_element(phases.begin(), phases.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
  f.shift = (bs - best->first) % bs;
  f.shiftFixed = true;
}

/// Whether a cached block belongs to the next access some file's predictor
/// expects (the one its reader may be waiting for). Such blocks are never
/// given up to make room, so that the prefetch thread cannot evict and
/// reload its own work in a loop (one file's, or two files' next reads that
/// do not fit together): when nothing else can go, it waits, and the reads
/// go to MPI. Under G.mu.
bool inFrontAccess(const BlockKey &key) {
  Global &G = g();
  const int64_t bs = int64_t(G.cache->blockSize());
  for (auto &[fh, fp] : G.files) {
    const FileState &o = *fp;
    if (o.id != key.file)
      continue;
    if (!o.enabled || o.atomic)
      return false;
    const auto front = upcomingFor(o, 1);
    if (front.empty())
      return false;
    for (const Piece &p : piecesFor(o, front[0]))
      if (key.block >= (p.offset + o.shift) / bs && key.block <= (p.offset + o.shift + p.length - 1) / bs)
        return true;
    return false;
  }
  return false;
}

void prefetchLoop() {
  Global &G = g();
  std::unique_lock lock(G.mu);
  while (!G.stop) {
    bool didWork = false;
    for (auto &[fh, fp] : G.files) {
      FileState &f = *fp;
      if (!f.enabled || f.atomic || (f.logicalPlan && !f.view) || f.awaitView)
        continue;
      const auto next = upcomingFor(f, f.distance);
      const int64_t bs = int64_t(G.cache->blockSize());
      if (!f.shiftFixed && !next.empty())
        fixShift(f, next);
      const int64_t sh = f.shift;
      for (const Access &a : next) {
        const auto pieces = piecesFor(f, a);
        if (pieces.empty() || !fitsInCache(f, pieces))
          continue; // read through MPI (tryServe): never prefetched
        for (const Piece &p : pieces) {
          for (int64_t b = (p.offset + sh) / bs; b <= (p.offset + sh + p.length - 1) / bs; ++b) {
            const BlockKey key{f.id, b};
            if (G.cache->contains(key))
              continue;
            if (G.cache->claim(key, f.generation) != BlockCache::Claim::Claimed) {
              // Full of predictions not yet read: wait for the application,
              // unless even its next access is not cached (the predictions
              // are stale); then the oldest one gives way.
              if (&a != &next.front() || !G.cache->demoteOldestPending(inFrontAccess) ||
                  G.cache->claim(key, f.generation) != BlockCache::Claim::Claimed)
                goto nextFile;
            }
            // The blocks right after it that this access needs too, claimed
            // now and read with the same call (one request per run of
            // blocks, as ROMIO reads a contiguous piece: a device with a
            // cost per call pays it once).
            BlockKey run[kMaxRunBlocks] = {key};
            size_t runLength = 1;
            for (size_t pi = size_t(&p - pieces.data()); runLength < kMaxRunBlocks; ++runLength) {
              const int64_t nb = b + int64_t(runLength);
              while (pi < pieces.size() && (pieces[pi].offset + sh + pieces[pi].length - 1) / bs < nb)
                ++pi;
              const BlockKey k2{f.id, nb};
              if (pi == pieces.size() || (pieces[pi].offset + sh) / bs > nb || G.cache->contains(k2) ||
                  G.cache->claim(k2, f.generation) != BlockCache::Claim::Claimed)
                break;
              run[runLength] = k2;
            }
            std::shared_ptr<FileState> keep = fp;
            const uint64_t gen = f.generation;
            struct iovec iov[kMaxRunBlocks];
            for (size_t i = 0; i < runLength; ++i)
              iov[i] = {G.cache->buffer(run[i]), size_t(bs)};
            // Block b holds file bytes from b*bs - shift; block 0's first
            // `skip` bytes are before the file's start (never asked for).
            const int64_t skip = b * bs < sh ? sh - b * bs : 0;
            iov[0].iov_base = static_cast<char *>(iov[0].iov_base) + skip;
            iov[0].iov_len -= size_t(skip);
            lock.unlock();
            ssize_t n = ::preadv(keep->fd, iov, int(runLength), off_t(b * bs - sh + skip));
            if (n >= 0)
              n += skip;
            lock.lock();
            for (size_t i = 0; i < runLength; ++i) {
              if (n < 0) {
                G.cache->abandon(run[i], gen);
                continue;
              }
              const int64_t valid = std::clamp(int64_t(n) - int64_t(i) * bs, int64_t(0), bs);
              if (G.cache->fill(run[i], keep->generation, size_t(valid)))
                // (The file's generation now: a drop while the block loaded
                // bumped it, and the block, read before the drop, is refused.)
                keep->c.prefetchedBytes += uint64_t(std::max<int64_t>(0, valid - (i == 0 ? skip : 0)));
            }
            if (n < 0)
              ++keep->c.prefetchErrors; // never seen by the application
            G.loaded.notify_all();
            didWork = true;
            goto restart; // the file table may have changed while unlocked
          }
        }
      }
    nextFile:;
    }
  restart:
    if (!didWork && !G.stop) {
      G.busy = false;
      G.loaded.notify_all(); // reads waiting for this thread's work go to MPI
      G.work.wait(lock);
    }
  }
}

} // namespace

void startThread() {
  Global &G = g();
  G.stop = false;
  G.busy = true;
  G.thread = std::thread(prefetchLoop);
}

} // namespace sio::prefetch::interpose
