// A read served from the cache (tryServe): its bytes copied when every
// block is cached, waiting for the prefetch thread when it is loading them;
// either way the predictor observes the read, the view's next bytes are
// guessed, and a file whose pattern the prefetcher cannot follow is
// turned off.
#include "Interpose.h"

#include <algorithm>
#include <cstdio>

namespace sio::prefetch::interpose {
namespace {

/// Reads over which a file's miss rate is measured (FileState::missLimit).
constexpr uint64_t kMissWindow = 64;
/// Online learning that has not predicted anything after this many reads
/// gives up (a random pattern): early, so that a pattern the detector cannot
/// follow costs little. Stride cycles of up to 16 (OnlineDetector) are
/// stable after about 20 reads.
constexpr uint64_t kLearnWindow = 32;

/// Whether `b` is `a` moved by some offset.
bool sameShape(const std::vector<Piece> &a, const std::vector<Piece> &b) {
  if (a.empty() || a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].length != b[i].length || a[i].offset - a[0].offset != b[i].offset - b[0].offset)
      return false;
  return true;
}

/// Whether MPI accepts the read's datatype. ROMIO fails a read whose
/// datatype is MPI_DATATYPE_NULL or a derived type not committed (with
/// MPI_ERR_TYPE), and the library cannot ask MPI whether a type is
/// committed: a read of 0 elements at offset 0 checks the file handle and
/// the datatype and reads nothing. The file's error handler is
/// MPI_ERRORS_RETURN around it, so that the error is reported once, by the
/// application's own read, which goes to MPI. Named types need no call.
bool typeAccepted(MPI_File fh, MPI_Datatype type, void *buf) {
  if (type == MPI_DATATYPE_NULL)
    return false;
  int ints = 0, addresses = 0, types = 0, combiner = 0;
  if (PMPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner) != MPI_SUCCESS)
    return false;
  if (combiner == MPI_COMBINER_NAMED)
    return true;
  MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
  if (PMPI_File_get_errhandler(fh, &saved) != MPI_SUCCESS)
    return false;
  PMPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  MPI_Status status;
  const int rc = PMPI_File_read_at(fh, 0, buf, 0, type, &status);
  PMPI_File_set_errhandler(fh, saved);
  PMPI_Errhandler_free(&saved);
  return rc == MPI_SUCCESS;
}

} // namespace

bool tryServe(MPI_File fh, std::optional<MPI_Offset> etypeOffset, void *buf, int64_t count, MPI_Datatype type,
              int64_t &bytesOut) {
  Global &G = g();
  std::shared_ptr<FileState> fp;
  // What MPI fails (a negative offset, a null datatype) goes to MPI.
  if (count <= 0 || type == MPI_DATATYPE_NULL || (etypeOffset && *etypeOffset < 0))
    return false;
  {
    std::lock_guard lock(G.mu);
    fp = lookupFile(fh);
    if (!fp)
      return false;
    if (!fp->enabled) {
      // Turned off (random pattern, miss rate, hint): count the read and go
      // to MPI; no file position, view mapping or prefetch thread wake-up.
      int size = 0;
      PMPI_Type_size(type, &size);
      ++fp->c.reads;
      ++fp->c.misses;
      fp->c.missBytes += uint64_t(size) * uint64_t(count);
      return false;
    }
  }
  FileState &f = *fp;
  if (!typeAccepted(fh, type, buf))
    return false;
  const uint64_t m0 = nowNs();
  std::optional<int64_t> bytes = contiguousBytes(type, count);
  // A derived memory type (a ghost-celled array, PnetCDF's buffer types):
  // its data bytes are scattered through the type, as MPI_Unpack would.
  std::optional<MemoryType> memory;
  if (!bytes) {
    memory = flattenMemory(type);
    if (memory)
      bytes = memory->size * count;
  }
  MPI_Offset pos = 0;
  if (etypeOffset)
    pos = *etypeOffset;
  else if (PMPI_File_get_position(fh, &pos) != MPI_SUCCESS)
    return false;
  const uint64_t m1 = nowNs();
  std::unique_lock lock(G.mu);
  f.c.memoryTypeNs += m1 - m0;
  // (Not a whole number of etypes: MPI fails the read.)
  if (!f.view || !bytes || *bytes % f.view->etypeSize != 0) {
    ++f.c.passthrough;
    return false;
  }
  const int64_t logical = int64_t(pos) * f.view->etypeSize;
  const auto pieces = f.view->map(logical, *bytes);
  if (pieces.empty()) {
    ++f.c.passthrough;
    return false;
  }
  // What the predictor follows: the logical position for a logical plan,
  // else the file offset of the read's first byte.
  const int64_t where = f.logicalPlan ? logical : pieces.front().offset;
  int64_t sh = f.shift; // fixed by the prefetch thread's first load: read again after a wait
  ++f.c.reads;
  bool hit = false, late = false;
  std::optional<bool> predicted; // this read is the predictor's next access
  const uint64_t start = nowNs();
  uint64_t waited = 0;
  if (f.enabled && !f.atomic && fitsInCache(f, pieces)) {
    for (;;) {
      sh = f.shift;
      BlockCache::Lookup worst = BlockCache::Lookup::Hit;
      for (const Piece &p : pieces) {
        auto l = G.cache->lookup(f.id, p.offset + sh, p.length);
        if (l == BlockCache::Lookup::Miss) {
          worst = l;
          break;
        }
        if (l == BlockCache::Lookup::Loading)
          worst = l;
      }
      if (worst == BlockCache::Lookup::Miss) {
        // Some block is not cached. If the prefetch thread is loading part
        // of this read, or this is the access it works on first (the
        // predicted next one, e.g. the first read of a plan the rank rule
        // placed) and it is still busy, wait for it rather than reading the
        // same bytes a second time through MPI: it loads nearest first, and
        // going idle wakes us (then the rest is a miss).
        bool inFlight = false;
        for (const Piece &p : pieces)
          inFlight = inFlight || G.cache->anyLoading(f.id, p.offset + sh, p.length);
        if (!inFlight && G.busy && !predicted) {
          const auto next = upcomingFor(f, 1);
          predicted = !next.empty() && next[0] == Access{where, *bytes};
          // Or inside the view's guess (the thread loads it whole).
          if (!*predicted && f.viewGuess && !f.predictor.predicts() && f.viewGuessSerial == f.viewSerial)
            predicted = logical >= f.viewGuessLogical && logical + *bytes <= f.viewGuessLogical + f.viewGuess->size;
        }
        if (inFlight || (G.busy && predicted.value_or(false)))
          worst = BlockCache::Lookup::Loading;
      }
      if (worst == BlockCache::Lookup::Loading) {
        if (!late)
          f.c.lateBytes += uint64_t(*bytes);
        late = true;
        const uint64_t gen = f.generation;
        const uint64_t w0 = nowNs();
        G.loaded.wait(lock);
        waited += nowNs() - w0;
        if (gen != f.generation)
          break;
        continue;
      }
      if (worst == BlockCache::Lookup::Hit) {
        const uint64_t c0 = nowNs();
        if (!memory) {
          char *dst = static_cast<char *>(buf);
          for (const Piece &p : pieces) {
            G.cache->copy(f.id, p.offset + sh, p.length, dst);
            dst += p.length;
          }
        } else {
          // The data bytes in order (the file pieces, one after the other)
          // into the memory type's segments.
          size_t piece = 0;
          int64_t into = 0; // bytes of pieces[piece] already copied
          copyToMemory(*memory, count, static_cast<char *>(buf), *bytes, [&](int64_t, int64_t n, char *dst) {
            while (n > 0) {
              const Piece &p = pieces[piece];
              const int64_t k = std::min(n, p.length - into);
              G.cache->copy(f.id, p.offset + sh + into, k, dst);
              dst += k;
              n -= k;
              into += k;
              if (into == p.length) {
                ++piece;
                into = 0;
              }
            }
          });
        }
        f.c.copyNs += nowNs() - c0;
        hit = true;
      }
      break;
    }
  }
  if (f.viewGuess) {
    f.viewGuessFailed = f.viewGuessFailed || !hit;
    if (!f.viewGuessAfterRead) { // the first read after a set_view
      f.guessAt = logical;
      f.guessBytes = *bytes;
    }
    f.viewGuess.reset();
  }
  if (f.enabled) {
    f.awaitView = false;
    f.predictor.observe(where, *bytes);
    if (!f.logicalPlan) {
      f.shape.assign(pieces.begin(), pieces.end());
      for (Piece &p : f.shape)
        p.offset -= where;
      f.shapeBytes = *bytes;
    }
    // Still nothing to predict: guess the view's next bytes, when they are
    // laid out as this read was (moved): a regular continuation, not the
    // header PnetCDF's rank 0 keeps at the start of each filetype.
    if (!f.logicalPlan && !f.viewGuessFailed && !f.atomic && f.view && !f.view->contiguous() &&
        !f.predictor.predicts()) {
      f.viewGuessPieces = f.view->map(logical + *bytes, *bytes);
      if (sameShape(pieces, f.viewGuessPieces) && fitsInCache(f, f.viewGuessPieces)) {
        f.viewGuess = Access{f.viewGuessPieces.front().offset, *bytes};
        f.viewGuessLogical = logical + *bytes;
        f.viewGuessAfterRead = true;
        f.viewGuessSerial = f.viewSerial;
      }
    }
  }
  if (hit) {
    f.c.waitNs += waited;
    f.c.servedNs += nowNs() - start;
    ++f.c.hits;
    f.c.hitBytes += uint64_t(*bytes);
  } else {
    ++f.c.misses;
    f.c.missBytes += uint64_t(*bytes);
  }
  if (f.enabled) {
    f.everStable = f.everStable || f.predictor.state() != PredictorState::Learning;
    ++f.windowReads;
    f.windowMisses += hit ? 0 : 1;
    if (!f.everStable && f.c.reads >= kLearnWindow) {
      char why[64];
      std::snprintf(why, sizeof why, "no pattern in the first %llu reads", (unsigned long long)kLearnWindow);
      f.disable(why);
    } else if (f.windowReads >= kMissWindow) {
      if (double(f.windowMisses) / double(f.windowReads) > f.missLimit)
        f.disable("miss rate above the limit");
      f.windowReads = f.windowMisses = 0;
    }
    if (!f.enabled)
      dropLocked(f); // its predictions will not be read
  }
  // Wake the prefetch thread only when it has something to do: the window of
  // predictions moved or this read released cached blocks.
  if (f.enabled && !f.atomic && (f.predictor.predicts() || f.viewGuess)) {
    ++f.c.wakeups;
    G.busy = true;
    G.work.notify_one();
  }
  bytesOut = *bytes;
  return hit;
}

} // namespace sio::prefetch::interpose
