// Nonblocking writes (docs/prefetch.md, "Coherence"): a write request's
// bytes may reach the file only when the request completes (ROMIO's
// asynchronous I/O, the nonblocking collectives' state machine progressed
// in MPI_Wait), and meanwhile the prefetch thread may load the old bytes.
// The generated write interposers remember request -> file; the completion
// calls here (the MPI_Wait/MPI_Test family, MPI_Request_free,
// MPI_Request_get_status) drop the file's cache (a new generation, so a load
// that began before it is thrown away too).
#include "Coherence.h"

#include <mpi.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sio::prefetch {
namespace {

/// Write requests not completed yet: request -> file. Only write starts and
/// the completions of calls made while it is not empty take its lock;
/// `pendingWrites` lets every other MPI_Wait/MPI_Test (point-to-point,
/// reads) through with one atomic load.
struct WriteRequests {
  std::mutex mu;
  std::unordered_map<MPI_Request, MPI_File> files;
};
WriteRequests &writeRequests() {
  static WriteRequests *w = new WriteRequests; // never destroyed, like g()
  return *w;
}
std::atomic<size_t> pendingWrites{0};

bool writesPending() { return pendingWrites.load(std::memory_order_acquire) != 0; }

/// `before`: the requests as passed to a Wait/Test call; `after`: as MPI
/// left them. A request set to MPI_REQUEST_NULL completed (file requests are
/// never persistent): drop its file's cache.
void completed(const MPI_Request *before, const MPI_Request *after, int n) {
  std::vector<MPI_File> done;
  {
    WriteRequests &w = writeRequests();
    std::lock_guard lock(w.mu);
    for (int i = 0; i < n; ++i) {
      if (before[i] == MPI_REQUEST_NULL || after[i] != MPI_REQUEST_NULL)
        continue;
      auto it = w.files.find(before[i]);
      if (it == w.files.end())
        continue;
      done.push_back(it->second);
      w.files.erase(it);
    }
    pendingWrites.store(w.files.size(), std::memory_order_release);
  }
  for (MPI_File fh : done)
    dropFileCache(fh);
}

/// The requests of an array call, copied before the call when a write is
/// pending (none otherwise: the call passes straight through).
class RequestsBefore {
public:
  RequestsBefore(int n, const MPI_Request *requests) {
    if (!writesPending() || n <= 0 || !requests)
      return;
    copy_.assign(requests, requests + n);
  }
  /// After the call on `requests`: drop the caches of completed writes.
  void done(const MPI_Request *requests) const {
    if (!copy_.empty())
      completed(copy_.data(), requests, int(copy_.size()));
  }

private:
  std::vector<MPI_Request> copy_;
};

void forgetWriteRequestsImpl(MPI_File fh) {
  if (!writesPending())
    return;
  WriteRequests &w = writeRequests();
  std::lock_guard lock(w.mu);
  std::erase_if(w.files, [fh](const auto &e) { return e.second == fh; });
  pendingWrites.store(w.files.size(), std::memory_order_release);
}

} // namespace

void forgetWriteRequests(MPI_File fh) { forgetWriteRequestsImpl(fh); }

void rememberWriteRequest(MPI_File fh, MPI_Request request) {
  if (!tracksFile(fh))
    return;
  WriteRequests &w = writeRequests();
  std::lock_guard lock(w.mu);
  w.files[request] = fh;
  pendingWrites.store(w.files.size(), std::memory_order_release);
}

} // namespace sio::prefetch

using namespace sio::prefetch;

extern "C" {

// Every other write form (nonblocking, shared and ordered, split collective,
// the MPI-4 large-count forms) is generated from IoCalls.def in
// GeneratedInterposers.cpp: the file's cache is dropped before and after,
// and for the nonblocking ones again when the request completes:

SIO_PREFETCH_API int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!writesPending())
    return PMPI_Wait(request, status);
  const MPI_Request before = *request;
  int rc = PMPI_Wait(request, status);
  completed(&before, request, 1);
  return rc;
}
SIO_PREFETCH_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (!writesPending())
    return PMPI_Test(request, flag, status);
  const MPI_Request before = *request;
  int rc = PMPI_Test(request, flag, status);
  completed(&before, request, 1);
  return rc;
}
SIO_PREFETCH_API int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  RequestsBefore before(count, requests);
  int rc = PMPI_Waitall(count, requests, statuses);
  before.done(requests);
  return rc;
}
SIO_PREFETCH_API int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  RequestsBefore before(count, requests);
  int rc = PMPI_Testall(count, requests, flag, statuses);
  before.done(requests);
  return rc;
}
SIO_PREFETCH_API int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  RequestsBefore before(count, requests);
  int rc = PMPI_Waitany(count, requests, index, status);
  before.done(requests);
  return rc;
}
SIO_PREFETCH_API int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  RequestsBefore before(count, requests);
  int rc = PMPI_Testany(count, requests, index, flag, status);
  before.done(requests);
  return rc;
}
SIO_PREFETCH_API int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                                  MPI_Status statuses[]) {
  RequestsBefore before(incount, requests);
  int rc = PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  before.done(requests);
  return rc;
}
SIO_PREFETCH_API int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                                  MPI_Status statuses[]) {
  RequestsBefore before(incount, requests);
  int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
  before.done(requests);
  return rc;
}
// A write request freed before it completes: its bytes land at a time the
// application cannot know; drop now, the best that can be done.
SIO_PREFETCH_API int MPI_Request_free(MPI_Request *request) {
  if (!writesPending())
    return PMPI_Request_free(request);
  const MPI_Request before = *request;
  int rc = PMPI_Request_free(request);
  completed(&before, request, 1);
  return rc;
}
// Completed but not yet freed: the bytes are in the file.
SIO_PREFETCH_API int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  int rc = PMPI_Request_get_status(request, flag, status);
  if (rc == MPI_SUCCESS && *flag && writesPending()) {
    std::optional<MPI_File> fh;
    {
      WriteRequests &w = writeRequests();
      std::lock_guard lock(w.mu);
      if (auto it = w.files.find(request); it != w.files.end())
        fh = it->second;
    }
    if (fh)
      dropFileCache(*fh);
  }
  return rc;
}

} // extern "C"
