// The interception layer, generated from IoCalls.def: one wrapper per line,
// defined under the real symbol name (asm label, so the system headers'
// declarations, fortify inlines and exception specifications do not clash).
// The same object serves LD_PRELOAD and link-time interposition (sio-cxx puts
// libsiotrace-rt before libc and libmpi). POSIX/stdio wrappers reach the real
// function through dlsym(RTLD_NEXT); MPI lines get two wrappers, MPI_X and
// PMPI_X, which reach MPI's PMPI_X the same way.
#include "CodeSpan.h"
#include "Tools.h"
#include "sio/siotrace_abi.h"
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

// ---- real MPI functions ------------------------------------------------------------
//
// The runtime defines PMPI_X as well as MPI_X for every MPI line of
// IoCalls.def (a program that calls the profiling names, as ROMIO's psimple
// test does, is seen too), so the real function is MPI's PMPI_X found with
// dlsym(RTLD_NEXT): a reference to PMPI_X from this library would bind to its
// own wrapper. Resolved once per function, like the POSIX ones.

/// "PMPI_X" per CallId (unused for the POSIX and stdio lines).
constexpr const char *kPmpiName[] = {
#define SIO_IO_CALL(NAME, ...) "P" #NAME,
#include "sio/IoCalls.def"
};

std::atomic<void *> g_realMpi[kNumCalls];

/// Who may call a PMPI_ wrapper without it being the application's call: the
/// MPI library (ROMIO calls PMPI_ functions through the PLT, some of them
/// outside any intercepted call: grequest progress) and this library (its
/// own MPI calls, and MPICH's MPI-1 type constructors that tail-call the
/// MPI-2 ones from inside an intercepted call). Set once, before the first
/// real MPI pointer is published.
struct Spans {
  std::atomic<uintptr_t> selfLo{0}, selfHi{0}, mpiLo{0}, mpiHi{0};
  std::atomic<bool> ready{false};
} g_spans;

/// Set by __sio_pmpi_unrecorded(): the program's PMPI_ calls are its own
/// set-up (sio's replays), never recorded.
std::atomic<bool> g_pmpiUnrecorded{false};

__attribute__((noinline, cold)) void findSpans(void *realMpi) {
  const CodeSpan self = codeSpanOf(reinterpret_cast<const void *>(&findSpans));
  const CodeSpan mpi = codeSpanOf(realMpi);
  g_spans.selfLo.store(self.lo, std::memory_order_relaxed);
  g_spans.selfHi.store(self.hi, std::memory_order_relaxed);
  g_spans.mpiLo.store(mpi.lo, std::memory_order_relaxed);
  g_spans.mpiHi.store(mpi.hi, std::memory_order_relaxed);
  g_spans.ready.store(true, std::memory_order_release);
}

__attribute__((noinline, cold)) void *resolveMpiSlow(std::atomic<void *> &slot, const char *name) {
  if (t_resolving)
    return nullptr;
  t_resolving = true;
  void *p = dlsym(RTLD_NEXT, name);
  if (p != nullptr && !g_spans.ready.load(std::memory_order_acquire))
    findSpans(p);
  t_resolving = false;
  slot.store(p, std::memory_order_release);
  return p;
}

inline void *resolveMpi(std::atomic<void *> &slot, const char *name) {
  void *p = slot.load(std::memory_order_acquire);
  if (__builtin_expect(p != nullptr, 1))
    return p;
  return resolveMpiSlow(slot, name);
}

template <CallId ID, class Fn> Fn realMpi() {
  constexpr auto idx = static_cast<size_t>(ID);
  return reinterpret_cast<Fn>(resolveMpi(g_realMpi[idx], kPmpiName[idx]));
}

// ---- tool libraries -------------------------------------------------------------
//
// Libraries that interpose MPI-IO in the same process and make MPI and POSIX
// calls of their own (docs/runtime.md, "Other tools in the same process"):
// recognised by soname, once, when the runtime starts (Tools.cpp; they are
// preloaded or linked, one dlopened later is not seen). The trace is the
// application's:
// - loaded after the tracer (LD_PRELOAD="libsiotrace-rt.so TOOL"), the
//   tool's MPI_X is what MPI_X's wrapper calls (dlsym(RTLD_NEXT), instead of
//   MPI's PMPI_X, which would skip the tool), so the application's call is
//   recorded as made and the tool still sees it; the tool's own PMPI_ calls
//   are nested, and POSIX calls made while in the tool are inner events only
//   when the MPI library makes them (the tool's own open, report, its
//   libstdc++ reads are not);
// - on any thread (the tool's prefetch thread, which the application did not
//   create), a POSIX/stdio call whose return address lies in a tool is the
//   tool's, not recorded;
// - loaded before the tracer, the tool gets the application's MPI-IO calls
//   first and the tracer sees only what it passes on to MPI: the trace is
//   marked incomplete and inexact (Inexact::ToolFirst).

/// Per MPI CallId: what MPI_X's wrapper calls (the tool's MPI_X or MPI's PMPI_X).
std::atomic<void *> g_frontMpi[kNumCalls];

/// A POSIX/stdio call that is a tool's (n > 0 tool spans): made from a
/// tool's code, or, inside a tool's MPI_X, by anything but the MPI library.
inline bool toolsOwn(const void *returnAddress, int n, uint32_t inTool) {
  const auto a = reinterpret_cast<uintptr_t>(returnAddress);
  if (inTool) {
    const uintptr_t ml = g_spans.mpiLo.load(std::memory_order_relaxed);
    return !(a - ml < g_spans.mpiHi.load(std::memory_order_relaxed) - ml);
  }
  return inToolSpan(a, n);
}

__attribute__((noinline, cold)) void *resolveFrontSlow(size_t idx) {
  void *real = resolveMpi(g_realMpi[idx], kPmpiName[idx]);
  if (real == nullptr)
    return nullptr;
  void *next = nullptr;
  if (const int n = g_tools.n.load(std::memory_order_acquire)) {
    t_resolving = true;
    next = dlsym(RTLD_NEXT, kCallInfo[idx].name);
    t_resolving = false;
    if (next != nullptr && !inToolSpan(reinterpret_cast<uintptr_t>(next), n))
      next = nullptr; // MPI's own MPI_X: its PMPI_X is the same call
  }
  if (next != nullptr)
    g_toolMpi[idx].store(next, std::memory_order_relaxed);
  void *p = next ? next : real;
  g_frontMpi[idx].store(p, std::memory_order_release);
  return p;
}

/// What MPI_X's wrapper calls: a tool's MPI_X loaded after the tracer, else
/// MPI's PMPI_X.
template <CallId ID, class Fn> Fn frontMpi() {
  constexpr auto idx = static_cast<size_t>(ID);
  void *p = g_frontMpi[idx].load(std::memory_order_acquire);
  if (__builtin_expect(p == nullptr, 0))
    p = resolveFrontSlow(idx);
  return reinterpret_cast<Fn>(p);
}

/// A PMPI_ wrapper's call that is not the application's: made by the MPI
/// library or by the runtime (by return address), or in a program that said
/// its PMPI_ calls are its own set-up. Nested calls (inside an intercepted MPI
/// call, MPI_Init or the runtime) are left to traced()'s depth and blocked
/// guards.
inline bool pmpiNotApplications(const void *returnAddress) {
  if (g_pmpiUnrecorded.load(std::memory_order_relaxed)) {
    // The program's own call, which the plugin may have marked (it marks
    // PMPI_ names): its site is not for the next recorded call.
    tls.pendingSite = 0;
    return true;
  }
  const auto a = reinterpret_cast<uintptr_t>(returnAddress);
  const uintptr_t sl = g_spans.selfLo.load(std::memory_order_relaxed);
  const uintptr_t ml = g_spans.mpiLo.load(std::memory_order_relaxed);
  return a - sl < g_spans.selfHi.load(std::memory_order_relaxed) - sl ||
         a - ml < g_spans.mpiHi.load(std::memory_order_relaxed) - ml;
}

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

  if constexpr (!kMpi) {
    if (const int n = g_tools.n.load(std::memory_order_acquire)) [[unlikely]]
      if (toolsOwn(__builtin_return_address(0), n, ts.inTool))
        return callReal(real, as.value...);
  }

  bool inner = false;
  if (ts.depth) {
    // A call inside an intercepted MPI call: the library's, or the program's
    // own callback (an error handler, a datarep conversion) whose call the
    // plugin marked; either way its site is not the next recorded call's.
    ts.pendingSite = 0;
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

  // MPI_X's wrapper calling a tool's MPI_X (loaded after the tracer).
  bool viaTool = false;
  if constexpr (kMpi) {
    ++ts.depth;
    if (L == Layer::MPIIO)
      ++ts.mpiioOpen;
    viaTool = g_toolMpi[static_cast<size_t>(ID)].load(std::memory_order_relaxed) == reinterpret_cast<void *>(real);
    ts.inTool += viaTool;
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
    ts.inTool -= viaTool;
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

#define SIO_REAL_MPIIO(NAME, FN) ::sio::rt::frontMpi<::sio::rt::CallId::NAME, FN>()
#define SIO_REAL_SYNC(NAME, FN) ::sio::rt::frontMpi<::sio::rt::CallId::NAME, FN>()
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
  }                                                                                                          \
  SIO_PMPI_##LAYER(NAME, LAYER, RET, RK, __VA_ARGS__)
// The profiling name of each MPI line (MPI calls are all NOVA): the same
// recording, unless the call is not the application's (pmpiNotApplications).
// MPI_X's wrapper calls the real PMPI_X itself, so a call through MPI_X is
// recorded once, by MPI_X's wrapper.
#define SIO_PMPI_POSIX(...)
#define SIO_PMPI_STDIO(...)
#define SIO_PMPI_MPIIO(NAME, LAYER, RET, RK, ...)                                                            \
  extern "C" SIO_EXPORT RET sio_pwrap_##NAME(SIO_MAP(SIO_DECL, __VA_ARGS__)) __asm__("P" #NAME);             \
  extern "C" RET sio_pwrap_##NAME(SIO_MAP(SIO_DECL, __VA_ARGS__)) {                                          \
    using Fn = RET (*)(SIO_MAP(SIO_TYPE, __VA_ARGS__));                                                      \
    Fn sio_real = ::sio::rt::realMpi<::sio::rt::CallId::NAME, Fn>();                                         \
    if (::sio::rt::pmpiNotApplications(__builtin_return_address(0)))                                         \
      return ::sio::rt::callReal(sio_real, SIO_MAP(SIO_NAME, __VA_ARGS__));                                  \
    return ::sio::rt::traced<::sio::rt::CallId::NAME, ::sio::trace::Layer::LAYER, ::sio::rt::pk::RK>(        \
        sio_real, SIO_MAP(SIO_ARG, __VA_ARGS__));                                                            \
  }
#define SIO_PMPI_SYNC SIO_PMPI_MPIIO
#include "sio/IoCalls.def"

// ---- MPI lifecycle: not I/O, never recorded; what MPICH does inside (hardware
// discovery, shared memory, process manager) is housekeeping. Only the
// calling thread is blocked: the application's other threads go on doing
// I/O meanwhile, and those calls are recorded (a global switch lost them
// from a trace that said it was complete). MPI_X and PMPI_X both start and
// finish the runtime (a program calling PMPI_Init), each calling MPI's real
// PMPI_X, so the hooks run once whichever name the program calls. ----

namespace sio::rt {
namespace {

enum Life { kInit, kInitThread, kFinalize, kAbort, kLifeCount };
constexpr const char *kLifeName[kLifeCount] = {"PMPI_Init", "PMPI_Init_thread", "PMPI_Finalize", "PMPI_Abort"};
std::atomic<void *> g_realLife[kLifeCount];

template <class Fn> Fn realLife(Life l) { return reinterpret_cast<Fn>(resolveMpi(g_realLife[l], kLifeName[l])); }

/// A PMPI_ lifecycle call the runtime leaves alone: not the application's,
/// or made inside the runtime or an intercepted call.
inline bool lifeNotApplications(const void *returnAddress) {
  return pmpiNotApplications(returnAddress) || tls.blocked || tls.depth;
}

int initMpi(int *argc, char ***argv) {
  using Fn = int (*)(int *, char ***);
  Fn real = realLife<Fn>(kInit);
  ensureInit();
  ++tls.blocked;
  int r = callReal(real, argc, argv);
  --tls.blocked;
  if (r == MPI_SUCCESS)
    onMpiInitialized();
  return r;
}

int initThreadMpi(int *argc, char ***argv, int required, int *provided) {
  using Fn = int (*)(int *, char ***, int, int *);
  Fn real = realLife<Fn>(kInitThread);
  ensureInit();
  ++tls.blocked;
  int r = callReal(real, argc, argv, required, provided);
  --tls.blocked;
  if (r == MPI_SUCCESS)
    onMpiInitialized();
  return r;
}

int finalizeMpiCall() {
  using Fn = int (*)();
  Fn real = realLife<Fn>(kFinalize);
  finalizeMpi();
  ++tls.blocked;
  int r = callReal(real);
  --tls.blocked;
  return r;
}

int abortMpi(MPI_Comm comm, int errorcode) {
  using Fn = int (*)(MPI_Comm, int);
  Fn real = realLife<Fn>(kAbort);
  writePartial("MPI_Abort called", false);
  ++tls.blocked;
  return callReal(real, comm, errorcode);
}

} // namespace
} // namespace sio::rt

extern "C" SIO_EXPORT int MPI_Init(int *argc, char ***argv) { return sio::rt::initMpi(argc, argv); }

extern "C" SIO_EXPORT int PMPI_Init(int *argc, char ***argv) {
  auto real = sio::rt::realLife<int (*)(int *, char ***)>(sio::rt::kInit); // resolves the spans first
  if (sio::rt::lifeNotApplications(__builtin_return_address(0)))
    return sio::rt::callReal(real, argc, argv);
  return sio::rt::initMpi(argc, argv);
}

extern "C" SIO_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return sio::rt::initThreadMpi(argc, argv, required, provided);
}

extern "C" SIO_EXPORT int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  auto real = sio::rt::realLife<int (*)(int *, char ***, int, int *)>(sio::rt::kInitThread);
  if (sio::rt::lifeNotApplications(__builtin_return_address(0)))
    return sio::rt::callReal(real, argc, argv, required, provided);
  return sio::rt::initThreadMpi(argc, argv, required, provided);
}

extern "C" SIO_EXPORT int MPI_Finalize(void) { return sio::rt::finalizeMpiCall(); }

extern "C" SIO_EXPORT int PMPI_Finalize(void) {
  auto real = sio::rt::realLife<int (*)()>(sio::rt::kFinalize);
  if (sio::rt::lifeNotApplications(__builtin_return_address(0)))
    return sio::rt::callReal(real);
  return sio::rt::finalizeMpiCall();
}

extern "C" SIO_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) { return sio::rt::abortMpi(comm, errorcode); }

extern "C" SIO_EXPORT int PMPI_Abort(MPI_Comm comm, int errorcode) {
  auto real = sio::rt::realLife<int (*)(MPI_Comm, int)>(sio::rt::kAbort);
  if (sio::rt::lifeNotApplications(__builtin_return_address(0)))
    return sio::rt::callReal(real, comm, errorcode);
  return sio::rt::abortMpi(comm, errorcode);
}

/// sio/siotrace_abi.h: the program's PMPI_ calls are its own set-up.
extern "C" SIO_EXPORT void __sio_pmpi_unrecorded(void) {
  sio::rt::g_pmpiUnrecorded.store(true, std::memory_order_relaxed);
}
