// libsio-prefetch.so: signature-guided read-ahead for MPI-IO reads (Byna et
// al. SC08 §III, §V), interposed through PMPI. docs/prefetch.md.
//
// The application thread calls MPI; the prefetch thread never does. It
// reads the file with pread on a descriptor of its own into the BlockCache.
// One mutex guards the cache and every file's state; pread runs outside it.
// Coherence: each file has a generation; dropping the file's cache (sync,
// set_size, atomic mode, close, the completion of a nonblocking write) or a
// local write bumps it, and a block whose load began under an older
// generation is thrown away. A set_view changes no byte of the file: the
// cache and the predictor, both in file offsets, carry over.
#include "Coherence.h"
#include "View.h"
#include "sio/prefetch/Cache.h"
#include "sio/prefetch/Predictor.h"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fnmatch.h>
#include <fstream>
#include <linux/magic.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace sio::prefetch {
namespace {

constexpr size_t kDefaultBlock = 64 * 1024;
constexpr size_t kDefaultCache = 32 * 1024 * 1024;
constexpr size_t kDefaultDistance = 8;
constexpr uint64_t kMissWindow = 64;
/// Online learning that has not predicted anything after this many reads
/// gives up (a random pattern): early, so that a pattern the detector cannot
/// follow costs little. Stride cycles of up to 16 (OnlineDetector) are
/// stable after about 20 reads.
constexpr uint64_t kLearnWindow = 32;
constexpr double kDefaultMissLimit = 0.9;
/// Blocks the prefetch thread reads with one preadv at most.
constexpr size_t kMaxRunBlocks = 16;

struct Counters {
  uint64_t reads = 0, hits = 0, misses = 0, excluded = 0, passthrough = 0;
  uint64_t hitBytes = 0, missBytes = 0, prefetchedBytes = 0, wastedBytes = 0, lateBytes = 0;
  uint64_t prefetchErrors = 0;
  uint64_t wakeups = 0; ///< reads that woke the prefetch thread
  /// Where the time of served reads goes (docs/prefetch.md, "Counters"):
  /// inside the library for reads the cache served, waiting for the
  /// prefetch thread, copying out of the cache, in the count-0 collective a
  /// served rank still enters; and in MPI_File_set_view (all of it, and
  /// the part in PMPI_File_set_view: a collective, ROMIO ends it with a
  /// barrier).
  uint64_t servedNs = 0, waitNs = 0, copyNs = 0, servedMpiNs = 0, setViewNs = 0, setViewMpiNs = 0;
  /// The library's own work per call: flattening set_view's filetype, and
  /// flattening a read's memory datatype (every read, hit or miss).
  uint64_t setViewFlattenNs = 0, memoryTypeNs = 0;
};

uint64_t nowNs() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

struct FileState {
  uint64_t id = 0;
  std::string name; ///< as the application opened it
  std::string path; ///< for the prefetch thread's descriptor
  int fd = -1;
  uint64_t generation = 0;
  bool enabled = true;
  std::string disabledBecause;
  bool atomic = false;
  std::string mode = "online";
  std::shared_ptr<const View> view; ///< null: a view the prefetcher does not serve
  Predictor predictor;
  std::vector<Access> plan; ///< the signature's accesses
  /// The predictor follows the view's logical bytes (a signature that says
  /// `logical_offsets`, from a trace of an older sio-signature), mapped
  /// through the view; otherwise it follows physical file offsets: each read
  /// is the file offset of its first byte and its size, so that a pattern
  /// is the same whatever views it is read through (PnetCDF sets one per
  /// read), and a predicted access is laid out like the last read (`shape`).
  bool logicalPlan = false;
  bool viewsAbandoned = false; ///< a logical plan given up at a second view
  int viewsSet = 0;            ///< set_view calls while following a logical plan
  /// The signature's reads went through a non-contiguous view: before the
  /// first set_view or read, the file's layout of an access is not known
  /// (the default view would lay it out contiguously), so nothing is loaded.
  bool awaitView = false;
  std::vector<Piece> shape; ///< the last read's pieces, from its first byte
  int64_t shapeBytes = 0;
  /// After a set_view of a non-contiguous view, while the predictor has
  /// nothing to predict: where the next read is likely to be. MPI puts the
  /// file pointer at 0 of the new view, so the first guess is the view's
  /// first filetype (PnetCDF reads there, BTIO reads its view from its
  /// start); later ones are at the view position and of the size of the
  /// first read after the previous set_view (PnetCDF's rank 0 has the
  /// header in its view and reads after it). After a read through such a
  /// view, the guess is the view's next bytes (the file pointer moves
  /// there: BTIO reads its view step by step, and PnetCDF's next get, of
  /// the record's next variable, is the next filetype of the view of a
  /// rank that read a whole one), so the thread loads it while the
  /// application computes. A guess the read after it does not hit stops the
  /// guessing for the file.
  std::optional<Access> viewGuess;
  bool viewGuessAfterRead = false; ///< the guess is the view's next bytes, not a set_view's
  uint64_t viewSerial = 0;         ///< set_view calls so far
  uint64_t viewGuessSerial = 0;    ///< viewSerial when the guess was made (its view position's view)
  std::vector<Piece> viewGuessPieces;
  int64_t viewGuessLogical = 0;        ///< the guess's view position
  int64_t guessAt = 0, guessBytes = 0; ///< first read after the last guess: view position, bytes
  bool viewGuessFailed = false;
  /// The file's blocks start at file offsets ≡ -shift (mod block size): the
  /// phase of the first accesses the thread loads, so that a pattern after
  /// a header (PnetCDF's variables start at 512) does not straddle two
  /// blocks per block-sized piece. Fixed before the file's first block is
  /// claimed; cache offset = file offset + shift.
  int64_t shift = 0;
  bool shiftFixed = false;
  /// The plan's shift onto this rank from the signature's rank rule, known
  /// before the first read; nullopt: the first read places it.
  std::optional<int64_t> placed;
  size_t distance = kDefaultDistance;
  double missLimit = kDefaultMissLimit;
  uint64_t windowReads = 0, windowMisses = 0;
  bool everStable = false; ///< the predictor predicted something at least once
  Counters c;
  ~FileState() {
    if (fd >= 0)
      ::close(fd);
  }
  void disable(std::string why) {
    if (enabled) {
      enabled = false;
      disabledBecause = std::move(why);
    }
  }
};

struct Global {
  std::mutex mu;
  std::condition_variable work;   ///< wakes the prefetch thread
  std::condition_variable loaded; ///< a block finished loading
  std::unique_ptr<BlockCache> cache;
  std::unordered_map<MPI_File, std::shared_ptr<FileState>> files;
  std::thread thread;
  bool stop = false;
  /// The prefetch thread has work or may have: set with every wake-up,
  /// cleared (and `loaded` notified) when it finds nothing to do and waits.
  bool busy = false;
  uint64_t nextId = 1;
  int rank = -1, nranks = 1;
  std::map<std::string, std::shared_ptr<signature::SignatureReport>> reports; ///< by path; null: unreadable
};

Global &g() {
  static Global *global = new Global; // never destroyed: MPI may call us during exit
  return *global;
}

std::string envOr(const char *name, const char *fallback = "") {
  const char *v = std::getenv(name);
  return v ? v : fallback;
}

std::string infoValue(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL)
    return {};
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  return flag ? std::string(value) : std::string();
}

/// The hint if given, else the environment variable.
std::string setting(MPI_Info info, const char *hint, const char *env) {
  std::string v = infoValue(info, hint);
  return v.empty() ? envOr(env) : v;
}

size_t sizeSetting(MPI_Info info, const char *hint, const char *env, size_t fallback) {
  const std::string v = setting(info, hint, env);
  if (v.empty())
    return fallback;
  char *end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (end && (*end == 'k' || *end == 'K'))
    n <<= 10;
  else if (end && (*end == 'm' || *end == 'M'))
    n <<= 20;
  if (n == 0) {
    std::fprintf(stderr, "sio-prefetch: %s='%s' is not a positive size; using %zu\n", hint, v.c_str(), fallback);
    return fallback;
  }
  return size_t(n);
}

void note(const std::string &msg) { std::fprintf(stderr, "sio-prefetch: rank %d: %s\n", g().rank, msg.c_str()); }

/// The file system must show our pread what MPI-IO wrote once the MPI
/// consistency steps were taken: local POSIX file systems, NFS, Lustre.
bool fileSystemIsSupported(const std::string &path, std::string &why) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) {
    why = "statfs failed";
    return false;
  }
  switch (static_cast<unsigned long>(fs.f_type)) {
  case EXT4_SUPER_MAGIC:
  case XFS_SUPER_MAGIC:
  case BTRFS_SUPER_MAGIC:
  case TMPFS_MAGIC:
  case OVERLAYFS_SUPER_MAGIC:
  case NFS_SUPER_MAGIC:
  case 0x0BD00BD0: // Lustre
    return true;
  default:
    char buf[64];
    std::snprintf(buf, sizeof buf, "file system type 0x%lx not known to be POSIX-consistent",
                  static_cast<unsigned long>(fs.f_type));
    why = buf;
    return false;
  }
}

std::string stripPrefix(const char *filename) {
  std::string s = filename ? filename : "";
  // ROMIO's "ufs:", "nfs:", "lustre:" prefixes.
  auto colon = s.find(':');
  if (colon != std::string::npos && colon > 1 && s.find('/') > colon)
    s = s.substr(colon + 1);
  return s;
}

std::string baseName(const std::string &p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

bool nameMatches(const std::string &pattern, const std::string &path) {
  if (pattern.empty())
    return false;
  if (pattern == path || baseName(pattern) == baseName(path))
    return true;
  return fnmatch(pattern.c_str(), path.c_str(), 0) == 0 ||
         fnmatch(baseName(pattern).c_str(), baseName(path).c_str(), 0) == 0;
}

std::shared_ptr<signature::SignatureReport> loadReport(const std::string &path) {
  auto &reports = g().reports;
  auto it = reports.find(path);
  if (it != reports.end())
    return it->second;
  std::shared_ptr<signature::SignatureReport> report;
  try {
    std::ifstream in(path);
    if (!in)
      throw signature::SignatureError("cannot open the file");
    nlohmann::json j = nlohmann::json::parse(in);
    report = std::make_shared<signature::SignatureReport>(signature::reportFromJson(j));
  } catch (const std::exception &e) {
    note("signatures " + path + " not used: " + e.what() + "; learning online");
  }
  reports[path] = report;
  return report;
}

/// The rank's initial position by the group's rank rule (Byna et al. SC08
/// §V-C: the signature says where each rank starts): the listed position of
/// this rank when the trace had as many ranks, else the formula; nullopt
/// when neither applies (the first read then places the plan).
std::optional<int64_t> rankStart(const signature::SignatureReport &report, const signature::SignatureGroup &group,
                                 int rank, int nranks) {
  if (report.nranks == nranks)
    for (const auto &[r, pos] : group.initialPositions)
      if (r == rank)
        return pos;
  if (group.initialPosition)
    return group.initialPosition->evaluate(trace::ExprEnv{rank, nranks, {}});
  return std::nullopt;
}

/// Pick the rank's read signature for the file; set the predictor. A file
/// read in phases (docs/signatures.md: one signature per phase) gets the
/// phases' plans one after the other, each placed by its own rank rule.
void chooseSignature(FileState &f, const std::string &sigPath) {
  auto report = loadReport(sigPath);
  if (!report)
    return;
  std::vector<const signature::SignatureGroup *> phases;
  for (const auto &group : report->groups) {
    const auto &s = group.signature;
    if (s.trace.op == signature::Operation::Write || !group.ranks.contains(g().rank))
      continue;
    if (s.file < 0 || size_t(s.file) >= report->fileNames.size() ||
        !nameMatches(report->fileNames[size_t(s.file)], f.name))
      continue;
    if (!phases.empty() && (s.phases < 2 || s.file != phases.front()->signature.file))
      break; // the first stream of the file, all its phases
    phases.push_back(&group);
    if (s.phases < 2)
      break;
  }
  if (phases.empty())
    return;
  f.mode = "signature";
  if (phases.size() == 1 && phases[0]->signature.pattern.spatial == signature::Spatial::Random) {
    f.disable("random pattern signature");
    return;
  }
  std::vector<Access> plan;
  std::optional<int64_t> placed = 0;
  for (const signature::SignatureGroup *group : phases) {
    const auto &s = group->signature;
    auto part = expandSignature(s.trace);
    if (!part || part->empty())
      continue; // a phase without a plan: the predictor adjusts past it
    auto start = rankStart(*report, *group, g().rank, g().nranks);
    if (phases.size() == 1) {
      placed = start ? std::optional<int64_t>(*start - s.trace.initialPosition) : std::nullopt;
    } else if (start) {
      for (Access &a : *part)
        a.offset += *start - s.trace.initialPosition;
    } else {
      placed.reset();
    }
    plan.insert(plan.end(), part->begin(), part->end());
  }
  if (plan.empty())
    return;
  f.plan = std::move(plan);
  f.placed = placed;
  f.logicalPlan = phases.front()->signature.logicalOffsets;
  f.awaitView = !f.logicalPlan && phases.front()->signature.throughView;
  f.predictor = Predictor(f.plan, f.placed);
}

// --- The prefetch thread
// ------------------------------------------------------

/// The file pieces of a predicted access. Under G.mu.
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

/// Whether the cache can hold every block of a read at once. A read that
/// spans more blocks than the cache has is never prefetched nor waited for:
/// it goes to MPI (loading it would evict its own first blocks).
bool fitsInCache(const FileState &f, const std::vector<Piece> &pieces) {
  size_t blocks = 0;
  for (const Piece &p : pieces)
    blocks += g().cache->blocksSpanned(p.offset + f.shift, p.length);
  return blocks <= g().cache->capacityBlocks();
}

/// The file's next `n` expected accesses: the predictor's, or, while it has
/// none, the view's guess. Under G.mu.
std::vector<Access> upcomingFor(const FileState &f, size_t n) {
  if (f.predictor.predicts() || !f.viewGuess || n == 0)
    return f.predictor.upcoming(n);
  return {*f.viewGuess};
}

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

void startThread() {
  Global &G = g();
  G.stop = false;
  G.busy = true;
  G.thread = std::thread(prefetchLoop);
}

// --- Application side
// ----------------------------------------------------------

std::shared_ptr<FileState> lookupFile(MPI_File fh) {
  auto it = g().files.find(fh);
  return it == g().files.end() ? nullptr : it->second;
}

void dropLocked(FileState &f) {
  ++f.generation;
  g().cache->dropFile(f.id);
}

void drop(MPI_File fh) {
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh))
    dropLocked(*f);
}

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

/// A read of `count` elements at view position `etypeOffset`, or of the
/// individual file pointer when nullopt. Returns true and fills `buf` when
/// the cache holds every byte; records the read for the predictor either way.
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

/// Invalidate what a local write of `count` elements touches.
void invalidateWrite(MPI_File fh, std::optional<MPI_Offset> etypeOffset, int count, MPI_Datatype type) {
  Global &G = g();
  std::shared_ptr<FileState> fp;
  {
    std::lock_guard lock(G.mu);
    fp = lookupFile(fh);
    if (!fp)
      return;
  }
  if (type == MPI_DATATYPE_NULL)
    return; // MPI fails the write: nothing written
  MPI_Offset pos = 0;
  bool known = true;
  if (etypeOffset)
    pos = *etypeOffset;
  else
    known = PMPI_File_get_position(fh, &pos) == MPI_SUCCESS;
  int size = 0;
  PMPI_Type_size(type, &size);
  std::lock_guard lock(G.mu);
  ++fp->generation; // loads in flight may have read the old bytes
  if (!known || !fp->view) {
    G.cache->dropFile(fp->id);
    return;
  }
  for (const Piece &p : fp->view->map(int64_t(pos) * fp->view->etypeSize, int64_t(size) * count))
    G.cache->invalidate(fp->id, p.offset + fp->shift, p.length);
}

void setStatus(MPI_Status *status, MPI_Datatype type, int count) {
  if (status == MPI_STATUS_IGNORE)
    return;
  status->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_cancelled(status, 0);
  PMPI_Status_set_elements(status, type, count);
}

void report(const FileState &f) {
  const std::string target = envOr("SIO_PREFETCH_REPORT");
  if (target.empty())
    return;
  char line[1024];
  std::snprintf(
      line, sizeof line,
      "sio-prefetch: rank %d file %s mode %s state %s%s%s distance %zu block "
      "%zu cache %zu reads %llu hits %llu misses %llu hit_bytes %llu "
      "miss_bytes %llu prefetched_bytes %llu wasted_bytes %llu late_bytes %llu "
      "excluded %llu "
      "passthrough %llu prefetch_errors %llu wakeups %llu served_us %llu wait_us %llu copy_us %llu "
      "served_mpi_us %llu set_view_us %llu set_view_mpi_us %llu set_view_flatten_us %llu memory_type_us %llu\n",
      g().rank, f.name.c_str(),
      f.predictor.abandonedSignature() || f.viewsAbandoned ? "signature-abandoned" : f.mode.c_str(),
      stateName(f.predictor.state()), f.enabled ? "" : " disabled: ", f.enabled ? "" : f.disabledBecause.c_str(),
      f.distance, g().cache->blockSize(), g().cache->capacityBlocks() * g().cache->blockSize(),
      (unsigned long long)f.c.reads, (unsigned long long)f.c.hits, (unsigned long long)f.c.misses,
      (unsigned long long)f.c.hitBytes, (unsigned long long)f.c.missBytes, (unsigned long long)f.c.prefetchedBytes,
      (unsigned long long)f.c.wastedBytes, (unsigned long long)f.c.lateBytes, (unsigned long long)f.c.excluded,
      (unsigned long long)f.c.passthrough, (unsigned long long)f.c.prefetchErrors, (unsigned long long)f.c.wakeups,
      (unsigned long long)(f.c.servedNs / 1000), (unsigned long long)(f.c.waitNs / 1000),
      (unsigned long long)(f.c.copyNs / 1000), (unsigned long long)(f.c.servedMpiNs / 1000),
      (unsigned long long)(f.c.setViewNs / 1000), (unsigned long long)(f.c.setViewMpiNs / 1000),
      (unsigned long long)(f.c.setViewFlattenNs / 1000), (unsigned long long)(f.c.memoryTypeNs / 1000));
  if (target == "stderr" || target == "-" || target == "1") {
    std::fputs(line, stderr);
    return;
  }
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "sio-prefetch: cannot open SIO_PREFETCH_REPORT file %s: %s\n", target.c_str(),
                 std::strerror(errno));
    std::fputs(line, stderr);
    return;
  }
  [[maybe_unused]] ssize_t w = ::write(fd, line, std::strlen(line)); // one append per line
  ::close(fd);
}

// Generalized request for an iread served from the cache.
struct Served {
  MPI_Datatype type;
  int count;
};
int servedQuery(void *extra, MPI_Status *status) {
  auto *s = static_cast<Served *>(extra);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  setStatus(status, s->type, s->count);
  return MPI_SUCCESS;
}
int servedFree(void *extra) {
  delete static_cast<Served *>(extra);
  return MPI_SUCCESS;
}
int servedCancel(void *, int) { return MPI_SUCCESS; }

/// A served read's count-0 collective took from `t0` until now.
void servedMpi(MPI_File fh, uint64_t t0) {
  const uint64_t ns = nowNs() - t0;
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh))
    f->c.servedMpiNs += ns;
}

void excluded(MPI_File fh) {
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh))
    ++f->c.excluded;
}

/// After a served read on the individual file pointer: move it on.
int advancePointer(MPI_File fh, int64_t bytes) {
  std::shared_ptr<FileState> f;
  {
    std::lock_guard lock(g().mu);
    f = lookupFile(fh);
  }
  return PMPI_File_seek(fh, MPI_Offset(bytes / f->view->etypeSize), MPI_SEEK_CUR);
}

} // namespace

void dropFileCache(MPI_File fh) { drop(fh); }

/// Whether the library tracks `fh` (Coherence.h).
bool tracksFile(MPI_File fh) {
  std::lock_guard lock(g().mu);
  return lookupFile(fh) != nullptr;
}

} // namespace sio::prefetch

using namespace sio::prefetch;

extern "C" {

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
  int rc = PMPI_File_open(comm, filename, amode, info, fh);
  if (rc != MPI_SUCCESS)
    return rc;
  Global &G = g();
  if (G.rank < 0) {
    int initialized = 0;
    PMPI_Initialized(&initialized);
    if (initialized) {
      PMPI_Comm_rank(MPI_COMM_WORLD, &G.rank);
      PMPI_Comm_size(MPI_COMM_WORLD, &G.nranks);
    }
  }
  auto f = std::make_shared<FileState>();
  f->name = filename ? filename : "";
  f->path = stripPrefix(filename);
  f->distance = sizeSetting(info, "sio_prefetch_distance", "SIO_PREFETCH_DISTANCE", kDefaultDistance);
  f->view = std::make_shared<View>(*flattenView(0, MPI_BYTE, MPI_BYTE));
  std::string why;
  const std::string onoff = setting(info, "sio_prefetch", "SIO_PREFETCH");
  if (onoff == "disable" || onoff == "false" || onoff == "0")
    f->disable("sio_prefetch=disable");
  else if (amode & MPI_MODE_WRONLY)
    f->disable("opened write-only");
  else if (!fileSystemIsSupported(f->path, why))
    f->disable(why);
  else if ((f->fd = ::open(f->path.c_str(), O_RDONLY | O_CLOEXEC)) < 0)
    f->disable(std::string("cannot open the file for prefetching: ") + std::strerror(errno));
  std::lock_guard lock(G.mu);
  if (!G.cache) {
    G.cache = std::make_unique<BlockCache>(
        sizeSetting(info, "sio_prefetch_block", "SIO_PREFETCH_BLOCK", kDefaultBlock),
        sizeSetting(info, "sio_prefetch_cache_size", "SIO_PREFETCH_CACHE_SIZE", kDefaultCache));
    G.cache->onWasted = [](uint64_t file, uint64_t bytes) {
      for (auto &[h, fs] : g().files)
        if (fs->id == file)
          fs->c.wastedBytes += bytes;
    };
  }
  if (f->enabled) {
    const std::string sigs = setting(info, "sio_prefetch_signatures", "SIO_PREFETCH_SIGNATURES");
    if (!sigs.empty())
      chooseSignature(*f, sigs);
  }
  f->id = G.nextId++;
  const bool first = G.files.empty();
  G.files[*fh] = std::move(f);
  if (first)
    startThread();
  else {
    G.busy = true;
    G.work.notify_one(); // a placed signature has accesses to prefetch now
  }
  return rc;
}

int MPI_File_close(MPI_File *fh) {
  Global &G = g();
  std::thread toJoin;
  std::shared_ptr<FileState> f;
  {
    std::lock_guard lock(G.mu);
    auto it = G.files.find(*fh);
    if (it != G.files.end()) {
      f = it->second;
      dropLocked(*f);
      G.files.erase(it);
      if (G.files.empty()) {
        G.stop = true;
        toJoin = std::move(G.thread);
      }
      G.work.notify_all();
      G.loaded.notify_all();
    }
  }
  if (toJoin.joinable())
    toJoin.join();
  if (f)
    report(*f);
  forgetWriteRequests(*fh); // requests left incomplete (erroneous) must not outlive the handle
  return PMPI_File_close(fh);
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep,
                      MPI_Info info) {
  const uint64_t t0 = nowNs();
  int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
  const uint64_t t1 = nowNs();
  std::optional<View> v;
  if (rc == MPI_SUCCESS && datarep && std::strcmp(datarep, "native") == 0)
    v = flattenView(disp, etype, filetype);
  const uint64_t t2 = nowNs();
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh)) {
    // A view changes no byte of the file: the cache (by file offset) and the
    // predictor (in file offsets) carry over. Only a plan in a view's
    // logical bytes starts over, at its first view; a second view means
    // positions that cannot be compared across views (PnetCDF sets one per
    // read): learn the file offsets online instead.
    const bool same = f->view && v && f->view->sameLayout(*v);
    f->awaitView = false;
    f->view = v ? std::make_shared<const View>(std::move(*v)) : nullptr;
    if (f->logicalPlan) {
      if (f->viewsSet++ == 0 || same) {
        f->predictor = Predictor(f->plan, f->placed);
      } else {
        f->logicalPlan = false;
        f->viewsAbandoned = true;
        f->plan.clear();
        f->predictor = Predictor();
      }
    }
    // MPI puts the file pointer at 0 of the new view: while the predictor
    // has nothing, guess that the next read is the view's first filetype.
    // A guess of the view's next bytes (file pieces) outlives a set_view
    // that makes no guess of its own: PnetCDF sets the default view again
    // after each request, before the set_view of the next one.
    ++f->viewSerial;
    if (!f->viewGuessAfterRead)
      f->viewGuess.reset();
    if (f->enabled && !f->logicalPlan && !f->viewGuessFailed && f->view && !f->view->contiguous() &&
        f->view->size > 0 && !f->predictor.predicts()) {
      const int64_t at = f->guessBytes > 0 ? f->guessAt : 0;
      const int64_t size = f->guessBytes > 0 ? f->guessBytes : f->view->size;
      auto pieces = f->view->map(at, size);
      if (!pieces.empty()) {
        f->viewGuessPieces = std::move(pieces);
        f->viewGuessLogical = at;
        f->viewGuess = Access{f->viewGuessPieces.front().offset, size};
        f->viewGuessAfterRead = false;
        f->viewGuessSerial = f->viewSerial;
      }
    }
    f->c.setViewNs += nowNs() - t0;
    f->c.setViewMpiNs += t1 - t0;
    f->c.setViewFlattenNs += t2 - t1;
    g().busy = true;
    g().work.notify_one();
  }
  return rc;
}

int MPI_File_sync(MPI_File fh) {
  int rc = PMPI_File_sync(fh);
  drop(fh); // other ranks' writes before their sync must be seen
  return rc;
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  int rc = PMPI_File_set_size(fh, size);
  drop(fh);
  return rc;
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  int rc = PMPI_File_preallocate(fh, size);
  drop(fh);
  return rc;
}

int MPI_File_set_atomicity(MPI_File fh, int flag) {
  int rc = PMPI_File_set_atomicity(fh, flag);
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh)) {
    dropLocked(*f);
    f->atomic = flag != 0; // atomic mode: every read goes to the file
  }
  return rc;
}

// --- Reads
// ---------------------------------------------------------------------

int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  int64_t bytes = 0;
  if (tryServe(fh, std::nullopt, buf, count, datatype, bytes)) {
    setStatus(status, datatype, count);
    return advancePointer(fh, bytes);
  }
  return PMPI_File_read(fh, buf, count, datatype, status);
}

int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  int64_t bytes = 0;
  if (tryServe(fh, offset, buf, count, datatype, bytes)) {
    setStatus(status, datatype, count);
    return MPI_SUCCESS;
  }
  return PMPI_File_read_at(fh, offset, buf, count, datatype, status);
}

// Collectives: every rank enters MPI; a rank the cache served takes part
// with count 0.
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  int64_t bytes = 0;
  if (tryServe(fh, std::nullopt, buf, count, datatype, bytes)) {
    MPI_Status st;
    const uint64_t t0 = nowNs();
    int rc = PMPI_File_read_all(fh, buf, 0, datatype, &st);
    servedMpi(fh, t0);
    if (rc != MPI_SUCCESS)
      return rc;
    setStatus(status, datatype, count);
    return advancePointer(fh, bytes);
  }
  return PMPI_File_read_all(fh, buf, count, datatype, status);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status) {
  int64_t bytes = 0;
  if (tryServe(fh, offset, buf, count, datatype, bytes)) {
    MPI_Status st;
    const uint64_t t0 = nowNs();
    int rc = PMPI_File_read_at_all(fh, offset, buf, 0, datatype, &st);
    servedMpi(fh, t0);
    if (rc != MPI_SUCCESS)
      return rc;
    setStatus(status, datatype, count);
    return MPI_SUCCESS;
  }
  return PMPI_File_read_at_all(fh, offset, buf, count, datatype, status);
}

int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  int64_t bytes = 0;
  if (tryServe(fh, std::nullopt, buf, count, datatype, bytes)) {
    int rc = advancePointer(fh, bytes);
    if (rc != MPI_SUCCESS)
      return rc;
    rc = PMPI_Grequest_start(servedQuery, servedFree, servedCancel, new Served{datatype, count}, request);
    return rc == MPI_SUCCESS ? PMPI_Grequest_complete(*request) : rc;
  }
  return PMPI_File_iread(fh, buf, count, datatype, request);
}

int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request) {
  int64_t bytes = 0;
  if (tryServe(fh, offset, buf, count, datatype, bytes)) {
    int rc = PMPI_Grequest_start(servedQuery, servedFree, servedCancel, new Served{datatype, count}, request);
    return rc == MPI_SUCCESS ? PMPI_Grequest_complete(*request) : rc;
  }
  return PMPI_File_iread_at(fh, offset, buf, count, datatype, request);
}

// Shared and ordered file pointers: not served (the position is the group's),
// counted as excluded.
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  excluded(fh);
  return PMPI_File_read_shared(fh, buf, count, datatype, status);
}
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  excluded(fh);
  return PMPI_File_read_ordered(fh, buf, count, datatype, status);
}
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  excluded(fh);
  return PMPI_File_iread_shared(fh, buf, count, datatype, request);
}

// --- Writes: invalidate what they overlap, before (so no load in flight is
// kept) and after (so no load that raced with the write is kept). ---

int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  MPI_Offset pos = 0;
  bool known = PMPI_File_get_position(fh, &pos) == MPI_SUCCESS;
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  int rc = PMPI_File_write(fh, buf, count, datatype, status);
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  return rc;
}
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  MPI_Offset pos = 0;
  bool known = PMPI_File_get_position(fh, &pos) == MPI_SUCCESS;
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  int rc = PMPI_File_write_all(fh, buf, count, datatype, status);
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  return rc;
}
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status) {
  invalidateWrite(fh, offset, count, datatype);
  int rc = PMPI_File_write_at(fh, offset, buf, count, datatype, status);
  invalidateWrite(fh, offset, count, datatype);
  return rc;
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status) {
  invalidateWrite(fh, offset, count, datatype);
  int rc = PMPI_File_write_at_all(fh, offset, buf, count, datatype, status);
  invalidateWrite(fh, offset, count, datatype);
  return rc;
}
} // extern "C"
