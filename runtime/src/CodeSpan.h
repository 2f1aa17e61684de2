// The executable segments of one loaded object, to tell who called a PMPI_
// wrapper: a call whose return address lies in the MPI library (ROMIO's own
// PMPI_ calls through the PLT) or in the runtime itself is not the
// application's (docs/runtime.md, "Programs that call PMPI_ names").
#pragma once

#include <atomic>
#include <cstdint>

namespace sio::rt {

/// [lo, hi) spanning the executable PT_LOAD segments of an object; empty
/// (lo == hi == 0) when unknown.
struct CodeSpan {
  uintptr_t lo = 0, hi = 0;
  bool contains(uintptr_t a) const { return a - lo < hi - lo; }
};

/// The span of the loaded object whose executable segments hold `addr`
/// (dl_iterate_phdr: takes the loader's lock, so call it on a cold path only).
CodeSpan codeSpanOf(const void *addr);

/// The spans of the loaded objects whose file is one of `sonames` (base
/// name "libX.so" or "libX.so.N..."), at most `max` of them; returns how
/// many (dl_iterate_phdr: cold path only).
int codeSpansNamed(const char *const *sonames, int nnames, CodeSpan *out, int max);

} // namespace sio::rt
