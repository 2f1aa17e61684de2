// The interposed blocking writes: invalidate what they overlap, before (so
// no load in flight is kept) and after (so no load that raced with the write
// is kept). Every other write form is GeneratedInterposers.cpp's.
#include "Interpose.h"

using namespace sio::prefetch;
using namespace sio::prefetch::interpose;

namespace {

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

} // namespace

extern "C" {

SIO_PREFETCH_API int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                    MPI_Status *status) {
  MPI_Offset pos = 0;
  bool known = PMPI_File_get_position(fh, &pos) == MPI_SUCCESS;
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  int rc = PMPI_File_write(fh, buf, count, datatype, status);
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  return rc;
}
SIO_PREFETCH_API int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                        MPI_Status *status) {
  MPI_Offset pos = 0;
  bool known = PMPI_File_get_position(fh, &pos) == MPI_SUCCESS;
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  int rc = PMPI_File_write_all(fh, buf, count, datatype, status);
  invalidateWrite(fh, known ? std::optional<MPI_Offset>(pos) : std::nullopt, count, datatype);
  return rc;
}
SIO_PREFETCH_API int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                       MPI_Datatype datatype, MPI_Status *status) {
  invalidateWrite(fh, offset, count, datatype);
  int rc = PMPI_File_write_at(fh, offset, buf, count, datatype, status);
  invalidateWrite(fh, offset, count, datatype);
  return rc;
}
SIO_PREFETCH_API int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                           MPI_Datatype datatype, MPI_Status *status) {
  invalidateWrite(fh, offset, count, datatype);
  int rc = PMPI_File_write_at_all(fh, offset, buf, count, datatype, status);
  invalidateWrite(fh, offset, count, datatype);
  return rc;
}

} // extern "C"
