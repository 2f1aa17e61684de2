// The interposed file calls: open (the file's state, its settings and
// signature, the prefetch thread started), close (the thread stopped with
// the last file, the report), set_view (the view flattened, the view's
// guess), and the calls after which the file's bytes may have changed.
#include "Interpose.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>

using namespace sio::prefetch;
using namespace sio::prefetch::interpose;

namespace {

/// The cache's block and total size unless set; the first open makes it.
constexpr size_t kDefaultBlock = 64 * 1024;
constexpr size_t kDefaultCache = 32 * 1024 * 1024;

} // namespace

extern "C" {

SIO_PREFETCH_API int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
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

SIO_PREFETCH_API int MPI_File_close(MPI_File *fh) {
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

SIO_PREFETCH_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                       const char *datarep, MPI_Info info) {
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

SIO_PREFETCH_API int MPI_File_sync(MPI_File fh) {
  int rc = PMPI_File_sync(fh);
  drop(fh); // other ranks' writes before their sync must be seen
  return rc;
}

SIO_PREFETCH_API int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  int rc = PMPI_File_set_size(fh, size);
  drop(fh);
  return rc;
}

SIO_PREFETCH_API int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  int rc = PMPI_File_preallocate(fh, size);
  drop(fh);
  return rc;
}

SIO_PREFETCH_API int MPI_File_set_atomicity(MPI_File fh, int flag) {
  int rc = PMPI_File_set_atomicity(fh, flag);
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh)) {
    dropLocked(*f);
    f->atomic = flag != 0; // atomic mode: every read goes to the file
  }
  return rc;
}

} // extern "C"
