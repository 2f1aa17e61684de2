// The interception layer, generated from IoCalls.def: one wrapper per line,
// defined under the real symbol name (asm label, so the system headers'
// declarations, fortify inlines and exception specifications do not clash).
// The same object serves LD_PRELOAD and link-time interposition (sio-cxx puts
// libsiotrace-rt before libc and libmpi). POSIX/stdio wrappers reach the real
// function through dlsym(RTLD_NEXT), MPI wrappers through PMPI_*.
#include "ParamKinds.h"
#include "sio/IoCallParams.h"

#include <aio.h>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <string_view>
#include <sys/types.h>
#include <type_traits>
#include <unistd.h>
#include <wchar.h>

#define SIO_EXPORT __attribute__((visibility("default")))

namespace sio::rt {
namespace {

using sio::trace::Layer;

// ---- real functions -------------------------------------------------------------

std::atomic<void *> g_real[kNumCalls];
thread_local bool t_resolving __attribute__((tls_model("initial-exec")));

/// First call of a POSIX/stdio function: finds libc's definition.
__attribute__((noinline, cold)) void *resolveSlow(CallId id) {
  auto idx = static_cast<size_t>(id);
  if (t_resolving)
    return nullptr; // dlsym calling back into a wrapper: let that inner call fail
  t_resolving = true;
  void *p = dlsym(RTLD_NEXT, kCallInfo[idx].name);
  t_resolving = false;
  g_real[idx].store(p, std::memory_order_release);
  return p;
}

/// One load on every call but the first (inlined into each wrapper).
inline void *resolve(CallId id) {
  void *p = g_real[static_cast<size_t>(id)].load(std::memory_order_acquire);
  if (__builtin_expect(p != nullptr, 1))
    return p;
  return resolveSlow(id);
}

template <CallId ID, class Fn> Fn realPosix() { return reinterpret_cast<Fn>(resolve(ID)); }

/// Calls `real`, or fails with ENOSYS when it could not be resolved.
template <class Fn, class... V> auto callReal(Fn real, V... v) {
  using R = decltype(real(v...));
  if (__builtin_expect(real == nullptr, 0)) {
    errno = ENOSYS;
    if constexpr (std::is_pointer_v<R>)
      return R(nullptr);
    else
      return R(-1);
  }
  return real(v...);
}

thread_local Record t_scratch __attribute__((tls_model("initial-exec")));

template <class R> int64_t retValue(R r) {
  if constexpr (std::is_pointer_v<R>)
    return r ? 0 : -1;
  else
    return int64_t(r);
}

/// A POSIX/stdio return value that means failure (errno is set).
template <class R> bool failedCall(R r) {
  if constexpr (std::is_pointer_v<R>)
    return r == nullptr;
  else if constexpr (std::is_signed_v<R>)
    return r == R(-1);
  else
    return false;
}

/// Metadata calls (stat family, access, mkdir, directory streams, ...).
constexpr bool isMetadataOp(std::string_view op) {
  for (std::string_view m : {"stat", "lstat", "fstat", "fstatat", "statx", "access", "faccessat", "mkdir", "mkdirat",
                             "rmdir", "rename", "renameat", "unlinkat", "truncate", "opendir", "readdir", "closedir"})
    if (op == m)
      return true;
  return false;
}

/// Per CallId: a metadata call. Made by the MPI library inside an MPI-IO call,
/// such a call is not recorded: ROMIO looks at the parent directory (lstat)
/// only when the file does not exist yet, so recording it would make traces
/// of the same program differ with the state of the file system, and inner
/// calls are never replayed.
constexpr bool kMetadataCall[] = {
#define SIO_IO_CALL(NAME, LAYER, OP, ...) isMetadataOp(#OP),
#include "sio/IoCalls.def"
};

/// Calls whose failure value may mean "no more" rather than an error.
constexpr bool isEndOp(std::string_view op) {
  for (std::string_view m : {"readdir", "fgetc", "fgets", "getline", "getdelim", "fscanf", "fgetws", "fwscanf"})
    if (op == m)
      return true;
  return false;
}

/// Per CallId: a call whose NULL (or EOF, -1) return may mean "no more"
/// rather than an error (readdir at the end of the directory, fgetc/fgets/
/// getline/fscanf at end of file leave errno alone), told apart the POSIX
/// way: errno cleared before the call, nonzero after it only on an error.
/// The application's errno is restored when it was not an error.
constexpr bool kNullMayBeEnd[] = {
#define SIO_IO_CALL(NAME, LAYER, OP, ...) isEndOp(#OP),
#include "sio/IoCalls.def"
};

/// Takes back the record `rec` of this thread's call in progress, which its
/// paths decided against (pk::settlePaths): the last record of the thread
/// unless a signal handler's call was recorded since, in which case it stays
/// as a void record the drain skips.
__attribute__((noinline, cold)) void withdrawRecord(ThreadState &ts, Record *rec) {
  if (ts.buf->cur == rec + 1) {
    ts.buf->cur = rec;
    if (rec->iter)
      ts.pendingIter = rec->iter; // for the thread's next record
    return;
  }
  rec->kind = RecKind::Void;
  if (rec->inner)
    rec->open = 0; // published with its MPI-IO call
  else
    finishRecord(ts.buf, rec);
}

/// The body of every wrapper.
template <CallId ID, Layer L, class RK, class Fn, class... As>
__attribute__((always_inline)) inline auto traced(Fn real, As... as) {
  constexpr bool kMpi = L == Layer::MPIIO || L == Layer::SYNC;
  ThreadState &ts = tls;
  if (ts.blocked || !g_active.load(std::memory_order_relaxed)) [[unlikely]] {
    // Once MPI_Finalize has ended recording: a call of the program's own
    // code (the plugin marked its site; the MPI library's threads and exit
    // handlers keep doing I/O of their own) on a file the trace would have
    // followed is one the trace cannot hold. A file opened then is counted
    // by its open only: its handle is not recorded.
    if (!ts.blocked && g_countUnrecorded.load(std::memory_order_relaxed)) {
      const bool own = ts.pendingSite != 0;
      ts.pendingSite = 0;
      if (own && (pk::NamesFile<typename As::Kind>::test(as.value) || ...))
        g_unrecorded.fetch_add(1, std::memory_order_relaxed);
    }
    return callReal(real, as.value...);
  }

  bool inner = false;
  if (ts.depth) {
    if constexpr (kMpi) {
      // MPI called from inside an intercepted MPI call: the library's own.
      ++ts.depth;
      auto r = callReal(real, as.value...);
      --ts.depth;
      return r;
    } else {
      if (!ts.mpiioOpen || kMetadataCall[static_cast<size_t>(ID)])
        return callReal(real, as.value...);
      inner = true;
    }
  }

  // The plugin's site marker belongs to this call only, recorded or not.
  uint64_t site = 0;
  if (!inner) {
    site = ts.pendingSite;
    ts.pendingSite = 0;
  }
  int *errnoPtr = &errno; // one __errno_location() call, not four
  int savedErrno = *errnoPtr;
  Record *rec = nullptr;
  bool ok = false;
  Call c;
  if (layerEnabled(L)) {
    bool dropping = g_dropping.load(std::memory_order_relaxed);
    rec = dropping ? &t_scratch : reserveRecord(ts);
    if (rec == nullptr) {
      rec = &t_scratch;
      dropping = true;
    }
    rec->kind = RecKind::Event;
    rec->inner = inner;
    rec->open = 1;
    rec->nslots = 0;
    rec->strMask = 0;
    rec->call = static_cast<uint16_t>(ID);
    rec->id = site;
    c.rec = rec;
    c.mpi = kMpi;
    c.movesData = RK::kMovesData;
    ok = (As::Kind::pre(c, as.name, as.value) && ...);
    if (ok) {
      if (dropping || c.pastCap) {
        g_dropped.fetch_add(1, std::memory_order_relaxed);
        rec = &t_scratch; // outputs still update the handle tables
      } else {
        ts.buf->cur = rec + 1;
        rec->iter = ts.pendingIter; // an iteration that began before this call
        ts.pendingIter = 0;
      }
    }
  }

  if constexpr (kMpi) {
    ++ts.depth;
    if (L == Layer::MPIIO)
      ++ts.mpiioOpen;
  }
  constexpr bool kEndIsNull = kNullMayBeEnd[static_cast<size_t>(ID)];
  *errnoPtr = kEndIsNull ? 0 : savedErrno;
  // Calls that are not recorded (a descriptor whose open was not, MPICH's own
  // housekeeping) pay for no clock reads.
  uint64_t t0 = ok ? ticks() : 0;
  auto r = callReal(real, As::Kind::pass(c, as.value)...);
  uint64_t t1 = ok ? ticks() : 0;
  int err = *errnoPtr;
  const bool endNotError = kEndIsNull && err == 0;
  if (endNotError)
    err = savedErrno;
  if constexpr (kMpi) {
    --ts.depth;
    if (L == Layer::MPIIO)
      --ts.mpiioOpen;
  }
  if (ok) {
    // Records never move: `rec` is still this call's (inner events may have
    // filled its block since).
    c.rec = rec;
    c.ret = retValue(r);
    if constexpr ((std::is_same_v<typename As::Kind, pk::Path> || ...)) {
      if (c.npaths) {
        const pk::Paths paths = pk::settlePaths(c, failedCall(r) && !endNotError ? err : 0);
        if (paths != pk::Paths::Record) {
          if (rec != &t_scratch) {
            if (paths == pk::Paths::PastCap)
              g_dropped.fetch_add(1, std::memory_order_relaxed);
            withdrawRecord(ts, rec);
            c.rec = rec = &t_scratch; // outputs still update the handle tables
          }
          if (paths == pk::Paths::Skip) {
            // Not recorded, and no handle it made is tabled: only what
            // closing kinds took before the call is given back.
            c.finish();
            *errnoPtr = err;
            return r;
          }
        }
      }
    }
    RK::post(c, r);
    (As::Kind::post(c, as.name, as.value), ...);
    // The error, after every other parameter (docs/trace-format.md, Results):
    // MPI's error class, or errno of a POSIX/stdio call that returned -1
    // (NULL for fopen). fread/fwrite report no error (a short count may be
    // end of file); their `result` says what they moved.
    if constexpr (kMpi) {
      if (c.ret != MPI_SUCCESS)
        rec->add("error", pk::mpiErrorClass(int(c.ret)));
    } else if (failedCall(r) && !endNotError) {
      rec->add("error", err);
    }
    rec->t0 = t0;
    rec->t1 = t1;
    if (rec == &t_scratch || inner)
      rec->open = 0; // inner events are published with their MPI-IO call
    else
      finishRecord(ts.buf, rec);
    // Handles are released after the sequence number is taken and acquired
    // before it, so a close on one thread and the open that reuses its code
    // on another are ordered as they happened.
    c.finish();
  }
  *errnoPtr = err;
  return r;
}

} // namespace
} // namespace sio::rt

// ---- generation from IoCalls.def -------------------------------------------------

/// va_list as a parameter is a pointer (it decays; x86-64 and AArch64 pass
/// it as one): the va_list forms of IoCalls.def take and pass it as void *.
using sio_va_list = void *;

// Map a macro over P(KIND, TYPE, name) elements (C++20 __VA_OPT__).
#define SIO_ARG(p) SIO_ARG_##p
#define SIO_ARG_P(K, T, N) ::sio::rt::Arg<::sio::rt::pk::K, T>{#N, N}

// Variadic open mode: declared, read after `flags`, passed on and recorded.
#define SIO_VA_DECL_NOVA
#define SIO_VA_DECL_VAMODE , ...
#define SIO_VA_READ_NOVA
#define SIO_VA_READ_VAMODE                                                                                   \
  mode_t mode = 0;                                                                                           \
  if (::sio::rt::openNeedsMode(flags)) {                                                                     \
    va_list ap;                                                                                              \
    va_start(ap, flags);                                                                                     \
    mode = static_cast<mode_t>(va_arg(ap, int));                                                             \
    va_end(ap);                                                                                              \
  }
#define SIO_VA_ARG_NOVA
#define SIO_VA_ARG_VAMODE , ::sio::rt::Arg<::sio::rt::pk::VaMode, mode_t>{"mode", mode}
// fcntl's optional argument: read as glibc's fcntl reads it (one pointer-sized
// value, whatever the command) and passed on the same way.
#define SIO_VA_DECL_VAARG , ...
#define SIO_VA_READ_VAARG                                                                                              \
  void *arg;                                                                                                           \
  {                                                                                                                    \
    va_list ap;                                                                                                        \
    va_start(ap, cmd);                                                                                                 \
    arg = va_arg(ap, void *);                                                                                          \
    va_end(ap);                                                                                                        \
  }
#define SIO_VA_ARG_VAARG                                                                                               \
  , ::sio::rt::Arg<::sio::rt::pk::Ign, void *> { "arg", arg }
#define SIO_VA_FN_VAARG , ...
#define SIO_VA_END_VAARG
#define SIO_VA_REAL_VAARG(R) R

// VAFWD(V): printf/scanf-like, variadic after `format`; the wrapper takes
// the va_list and calls V, the va_list form (itself a line of IoCalls.def),
// so the real call is libc's V.
#define SIO_IGNORE(...)
#define SIO_VA_DECL_VAFWD(V) , ...
#define SIO_VA_FN_NOVA
#define SIO_VA_FN_VAMODE , ...
#define SIO_VA_FN_VAFWD(V) , sio_va_list
#define SIO_VA_READ_VAFWD(V)                                                                                 \
  va_list sio_ap;                                                                                            \
  va_start(sio_ap, format);
#define SIO_VA_ARG_VAFWD(V) , ::sio::rt::Arg<::sio::rt::pk::Ign, sio_va_list>{"ap", sio_ap}
#define SIO_VA_END_NOVA
#define SIO_VA_END_VAMODE
#define SIO_VA_END_VAFWD(V) va_end(sio_ap);
#define SIO_VA_SLOTS_VAFWD(V) 0
#define SIO_VA_REAL_NOVA(R) R
#define SIO_VA_REAL_VAMODE(R) R
#define SIO_VA_REAL_VAFWD(V) ::sio::rt::realPosix<::sio::rt::CallId::V, Fn>() SIO_IGNORE

#define SIO_REAL_MPIIO(NAME, FN) reinterpret_cast<FN>(&P##NAME)
#define SIO_REAL_SYNC(NAME, FN) reinterpret_cast<FN>(&P##NAME)
#define SIO_REAL_POSIX(NAME, FN) ::sio::rt::realPosix<::sio::rt::CallId::NAME, FN>()
#define SIO_REAL_STDIO(NAME, FN) ::sio::rt::realPosix<::sio::rt::CallId::NAME, FN>()

// The most slots a call can fill: its parameters' kinds, its return kind, the
// variadic mode and `error`. A Record holds kMaxSlots; more would be dropped.
#define SIO_KIND(p) SIO_KIND_##p
#define SIO_KIND_P(K, T, N) ::sio::rt::pk::K
#define SIO_VA_SLOTS_NOVA 0
#define SIO_VA_SLOTS_VAMODE ::sio::rt::pk::VaMode::kSlots
#define SIO_VA_SLOTS_VAARG 0
namespace sio::rt {
template <class... Kinds> constexpr int slotsOf() { return (0 + ... + Kinds::kSlots); }
} // namespace sio::rt

// MPICH declares no PMPI_ for a few symbols we may list; all used ones exist.
#define SIO_IO_CALL(NAME, LAYER, OP, RET, RK, VA, ...)                                                       \
  static_assert(::sio::rt::slotsOf<SIO_MAP(SIO_KIND, __VA_ARGS__)>() + ::sio::rt::pk::RK::kSlots +           \
                        SIO_VA_SLOTS_##VA + 1 <=                                                             \
                    ::sio::rt::kMaxSlots,                                                                    \
                #NAME " records more values than a Record holds (kMaxSlots)");                               \
  extern "C" SIO_EXPORT RET sio_wrap_##NAME(SIO_MAP(SIO_DECL, __VA_ARGS__) SIO_VA_DECL_##VA) __asm__(#NAME);  \
  extern "C" RET sio_wrap_##NAME(SIO_MAP(SIO_DECL, __VA_ARGS__) SIO_VA_DECL_##VA) {                          \
    using Fn = RET (*)(SIO_MAP(SIO_TYPE, __VA_ARGS__) SIO_VA_FN_##VA);                                       \
    SIO_VA_READ_##VA                                                                                         \
    RET sio_r = ::sio::rt::traced<::sio::rt::CallId::NAME, ::sio::trace::Layer::LAYER, ::sio::rt::pk::RK>(   \
        SIO_VA_REAL_##VA(SIO_REAL_##LAYER(NAME, Fn)), SIO_MAP(SIO_ARG, __VA_ARGS__) SIO_VA_ARG_##VA);        \
    SIO_VA_END_##VA                                                                                          \
    return sio_r;                                                                                            \
  }
#include "sio/IoCalls.def"

// ---- MPI lifecycle: not I/O, never recorded; what MPICH does inside (hardware
// discovery, shared memory, process manager) is housekeeping. Only the
// calling thread is blocked: the application's other threads go on doing
// I/O meanwhile, and those calls are recorded (a global switch lost them
// from a trace that said it was complete). ----

extern "C" SIO_EXPORT int MPI_Init(int *argc, char ***argv) {
  sio::rt::ensureInit();
  ++sio::rt::tls.blocked;
  int r = PMPI_Init(argc, argv);
  --sio::rt::tls.blocked;
  if (r == MPI_SUCCESS)
    sio::rt::onMpiInitialized();
  return r;
}

extern "C" SIO_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  sio::rt::ensureInit();
  ++sio::rt::tls.blocked;
  int r = PMPI_Init_thread(argc, argv, required, provided);
  --sio::rt::tls.blocked;
  if (r == MPI_SUCCESS)
    sio::rt::onMpiInitialized();
  return r;
}

extern "C" SIO_EXPORT int MPI_Finalize(void) {
  sio::rt::finalizeMpi();
  ++sio::rt::tls.blocked;
  int r = PMPI_Finalize();
  --sio::rt::tls.blocked;
  return r;
}

extern "C" SIO_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  sio::rt::writePartial("MPI_Abort called", false);
  ++sio::rt::tls.blocked;
  return PMPI_Abort(comm, errorcode);
}
