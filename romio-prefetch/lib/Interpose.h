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
//
// The library's parts, one concept a file, share the state below (this
// header is internal, not installed):
//   State.cpp           the open files' state (g()), dropping a file's cache
//   Settings.cpp        hints and environment variables, the file systems
//                       the prefetcher serves
//   Signatures.cpp      a file's read signature as the predictor's plan
//   Upcoming.cpp        a file's next expected accesses, as file pieces
//   PrefetchThread.cpp  the prefetch thread: loads the upcoming blocks
//   Serve.cpp           a read served from the cache, and what the predictor
//                       learns from it
//   Report.cpp          a file's SIO_PREFETCH_REPORT line
//   ApiFile.cpp         the interposed open, close, set_view, sync,
//                       set_size, preallocate and set_atomicity
//   ApiRead.cpp         the interposed reads
//   ApiWrite.cpp        the interposed blocking writes that invalidate
//                       exactly the bytes they overlap
// Beside them: GeneratedInterposers.cpp and WriteCompletions.cpp
// (Coherence.h), View.cpp (View.h).
// The library's own symbols are hidden (CXX_VISIBILITY_PRESET): only the
// interposed MPI_* functions, marked SIO_PREFETCH_API (Coherence.h), are
// exported.
#pragma once

#include "Coherence.h"
#include "View.h"
#include "sio/prefetch/Cache.h"
#include "sio/prefetch/Predictor.h"

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace sio::prefetch::interpose {

/// A file's defaults: accesses loaded ahead, and the miss rate over a
/// window of reads that turns it off.
constexpr size_t kDefaultDistance = 8;
constexpr double kDefaultMissLimit = 0.9;

// --- the state of the open files ---------------------------------------------

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

inline uint64_t nowNs() {
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

/// The library's state; never destroyed: MPI may call us during exit.
Global &g();

/// The state of `fh`; null when the library does not track it. Under G.mu.
std::shared_ptr<FileState> lookupFile(MPI_File fh);

/// Drops the file's cached blocks; a new generation discards loads in
/// flight. Under G.mu.
void dropLocked(FileState &f);

/// dropLocked, taking G.mu; no-op for a file the library does not track.
void drop(MPI_File fh);

// --- settings ----------------------------------------------------------------

std::string envOr(const char *name, const char *fallback = "");

/// The hint if given, else the environment variable.
std::string setting(MPI_Info info, const char *hint, const char *env);

/// A size setting (setting): decimal, with an optional k or m suffix;
/// `fallback` when unset or not a positive size (said on stderr).
size_t sizeSetting(MPI_Info info, const char *hint, const char *env, size_t fallback);

/// The file system must show our pread what MPI-IO wrote once the MPI
/// consistency steps were taken: local POSIX file systems, NFS, Lustre.
bool fileSystemIsSupported(const std::string &path, std::string &why);

/// The file's path without ROMIO's "ufs:", "nfs:", "lustre:" prefixes.
std::string stripPrefix(const char *filename);

// --- signatures --------------------------------------------------------------

/// Pick the rank's read signature for the file; set the predictor. A file
/// read in phases (docs/signatures.md: one signature per phase) gets the
/// phases' plans one after the other, each placed by its own rank rule.
void chooseSignature(FileState &f, const std::string &sigPath);

// --- upcoming accesses -------------------------------------------------------

/// The file pieces of a predicted access. Under G.mu.
std::vector<Piece> piecesFor(const FileState &f, const Access &a);

/// Whether the cache can hold every block of a read at once. A read that
/// spans more blocks than the cache has is never prefetched nor waited for:
/// it goes to MPI (loading it would evict its own first blocks).
bool fitsInCache(const FileState &f, const std::vector<Piece> &pieces);

/// The file's next `n` expected accesses: the predictor's, or, while it has
/// none, the view's guess. Under G.mu.
std::vector<Access> upcomingFor(const FileState &f, size_t n);

// --- the prefetch thread -----------------------------------------------------

/// Starts the prefetch thread (at the first file opened).
void startThread();

// --- serving reads -----------------------------------------------------------

/// A read of `count` elements at view position `etypeOffset`, or of the
/// individual file pointer when nullopt. Returns true and fills `buf` when
/// the cache holds every byte; records the read for the predictor either way.
bool tryServe(MPI_File fh, std::optional<MPI_Offset> etypeOffset, void *buf, int64_t count, MPI_Datatype type,
              int64_t &bytesOut);

// --- the report --------------------------------------------------------------

/// Writes the file's counters as one line when SIO_PREFETCH_REPORT is set:
/// to stderr ("stderr", "-", "1"), else appended to the file it names.
void report(const FileState &f);

} // namespace sio::prefetch::interpose
