// The entry points instrumented code calls (sio/siotrace_abi.h). Markers are
// appended to the thread's record buffer like events, so their order with the
// calls is kept, and reach the compressor when the buffer drains.
#include "Runtime.h"

#include "sio/siotrace_abi.h"

#include <cstdio>

using namespace sio::rt;

namespace {

/// Whether a marker on this thread now is recorded (not inside the runtime,
/// an intercepted MPI call, or after the memory cap).
inline bool markerRecorded(const ThreadState &ts) {
  return !ts.blocked && !ts.depth && g_active.load(std::memory_order_relaxed) &&
         !g_dropping.load(std::memory_order_relaxed);
}

inline void marker(RecKind kind, uint64_t id) {
  ThreadState &ts = tls;
  if (!markerRecorded(ts))
    return;
  Record *r = reserveRecord(ts);
  if (!r)
    return;
  r->kind = kind;
  r->inner = 0;
  r->open = 1;
  r->nslots = 0;
  r->id = id;
  r->iter = ts.pendingIter;
  ts.pendingIter = 0;
  ts.buf->cur = r + 1;
  finishRecord(ts.buf, r);
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void __sio_register_tables(uint32_t abi_version, const SioSiteDesc *sites_begin,
                                                                  const SioSiteDesc *sites_end,
                                                                  const SioLoopDesc *loops_begin,
                                                                  const SioLoopDesc *loops_end) {
  if (abi_version != SIO_ABI_VERSION) {
    message("sio: warning: instrumented module has ABI version " + std::to_string(abi_version) +
            ", runtime expects " + std::to_string(unsigned(SIO_ABI_VERSION)) + "; its sites are ignored");
    return;
  }
  registerTables(sites_begin, sites_end, loops_begin, loops_end);
}

__attribute__((visibility("default"))) void __sio_site(uint64_t site_id) { tls.pendingSite = site_id; }
__attribute__((visibility("default"))) void __sio_loop_enter(uint64_t loop_id) { marker(RecKind::LoopEnter, loop_id); }
// The hottest marker (once per iteration) writes no record: the thread's next
// record carries it (Record::iter), which saves a record, a sequence number
// and its conversion per iteration.
__attribute__((visibility("default"))) void __sio_loop_iter(uint64_t loop_id) {
  ThreadState &ts = tls;
  if (markerRecorded(ts))
    ts.pendingIter = loop_id;
}
__attribute__((visibility("default"))) void __sio_loop_exit(uint64_t loop_id) { marker(RecKind::LoopExit, loop_id); }

} // extern "C"
