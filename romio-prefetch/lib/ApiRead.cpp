// The interposed reads: served from the cache when it holds every byte
// (Serve.cpp), else MPI's. Collectives enter MPI with count 0 when served;
// a served nonblocking read is a completed generalized request.
#include "Interpose.h"

using namespace sio::prefetch;
using namespace sio::prefetch::interpose;

namespace {

void setStatus(MPI_Status *status, MPI_Datatype type, int count) {
  if (status == MPI_STATUS_IGNORE)
    return;
  status->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_cancelled(status, 0);
  PMPI_Status_set_elements(status, type, count);
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

extern "C" {

SIO_PREFETCH_API int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  int64_t bytes = 0;
  if (tryServe(fh, std::nullopt, buf, count, datatype, bytes)) {
    setStatus(status, datatype, count);
    return advancePointer(fh, bytes);
  }
  return PMPI_File_read(fh, buf, count, datatype, status);
}

SIO_PREFETCH_API int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                      MPI_Status *status) {
  int64_t bytes = 0;
  if (tryServe(fh, offset, buf, count, datatype, bytes)) {
    setStatus(status, datatype, count);
    return MPI_SUCCESS;
  }
  return PMPI_File_read_at(fh, offset, buf, count, datatype, status);
}

// Collectives: every rank enters MPI; a rank the cache served takes part
// with count 0.
SIO_PREFETCH_API int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
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

SIO_PREFETCH_API int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
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

SIO_PREFETCH_API int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
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

SIO_PREFETCH_API int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
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
SIO_PREFETCH_API int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                          MPI_Status *status) {
  excluded(fh);
  return PMPI_File_read_shared(fh, buf, count, datatype, status);
}
SIO_PREFETCH_API int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                           MPI_Status *status) {
  excluded(fh);
  return PMPI_File_read_ordered(fh, buf, count, datatype, status);
}
SIO_PREFETCH_API int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                           MPI_Request *request) {
  excluded(fh);
  return PMPI_File_iread_shared(fh, buf, count, datatype, request);
}

} // extern "C"
