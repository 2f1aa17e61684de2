// Interposers generated from the one list, runtime/include/sio/IoCalls.def:
// one per MPI-IO function. Every write form drops the file's cache before
// the call (no load in flight is kept) and after it (no load that raced with
// the write is kept) — coherence with the rank's own writes, Byna et al. SC08
// §V-F; a nonblocking write's request is remembered, and its completion
// (MPI_Wait/MPI_Test family, WriteCompletions.cpp) drops the cache again,
// since the bytes may reach the file only then. Every other function passes
// straight through to PMPI.
//
// They are weak definitions: the hand-written interposers (ApiRead.cpp:
// reads served from the cache; ApiWrite.cpp: blocking writes that invalidate
// exactly the bytes they overlap; ApiFile.cpp: open/close/sync/set_view)
// replace them at link time.
// A write form added to IoCalls.def is therefore kept coherent without a
// line here.
#include "Coherence.h"
#include "sio/IoCallParams.h"

#include <mpi.h>

#include <string_view>
#include <type_traits>

namespace sio::prefetch {
namespace {

constexpr bool isWriteOp(std::string_view op) {
  return op.starts_with("MPI_File_write") || op.starts_with("MPI_File_iwrite");
}

inline void dropIfFile(MPI_File fh) { dropFileCache(fh); }
template <class T> inline void dropIfFile(const T &) {}

/// Drops the cache of the file handle among `args` when the call writes.
template <bool Write, class... Args> inline void dropIfWrite(const Args &...args) {
  if constexpr (Write)
    (dropIfFile(args), ...);
}

inline void rememberIfRequest(MPI_File fh, MPI_Request *request) {
  if (request && *request != MPI_REQUEST_NULL)
    rememberWriteRequest(fh, *request);
}

/// The file handle and the request handle among a started nonblocking
/// write's arguments.
struct WriteStart {
  MPI_File fh = MPI_FILE_NULL;
  MPI_Request *request = nullptr;
  void take(MPI_File f) { fh = f; }
  void take(MPI_Request *r) { request = r; }
  template <class T> void take(const T &) {}
};

/// Remembers the request of a nonblocking write form that started.
template <bool Write, class... Args> inline void rememberIfNonblocking(int rc, const Args &...args) {
  if constexpr (Write && (std::is_same_v<Args, MPI_Request *> || ...)) {
    if (rc != MPI_SUCCESS)
      return;
    WriteStart w;
    (w.take(args), ...);
    rememberIfRequest(w.fh, w.request);
  }
}

} // namespace
} // namespace sio::prefetch

// Only MPI-IO functions are interposed here (POSIX, stdio and the MPI calls
// the runtime records for replay are none of the prefetch library's business).
#define SIO_PREFETCH_GEN_POSIX(NAME, OP, RET, ...)
#define SIO_PREFETCH_GEN_STDIO(NAME, OP, RET, ...)
#define SIO_PREFETCH_GEN_SYNC(NAME, OP, RET, ...)
#define SIO_PREFETCH_GEN_MPIIO(NAME, OP, RET, ...)                                                                     \
  extern "C" __attribute__((weak, visibility("default"))) RET NAME(SIO_MAP(SIO_DECL, __VA_ARGS__)) {                   \
    constexpr bool kWrite = ::sio::prefetch::isWriteOp(#OP);                                                           \
    ::sio::prefetch::dropIfWrite<kWrite>(SIO_MAP(SIO_NAME, __VA_ARGS__));                                              \
    RET rc = P##NAME(SIO_MAP(SIO_NAME, __VA_ARGS__));                                                                  \
    ::sio::prefetch::dropIfWrite<kWrite>(SIO_MAP(SIO_NAME, __VA_ARGS__));                                              \
    ::sio::prefetch::rememberIfNonblocking<kWrite>(rc, SIO_MAP(SIO_NAME, __VA_ARGS__));                                \
    return rc;                                                                                                         \
  }
#define SIO_IO_CALL(NAME, LAYER, OP, RET, RETKIND, VA, ...) SIO_PREFETCH_GEN_##LAYER(NAME, OP, RET, __VA_ARGS__)
#include "sio/IoCalls.def"
