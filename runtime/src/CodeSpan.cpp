#include "CodeSpan.h"

#include <link.h>

namespace sio::rt {
namespace {

struct Search {
  uintptr_t addr;
  CodeSpan found;
};

int visit(struct dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<Search *>(data);
  CodeSpan span{UINTPTR_MAX, 0};
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
      continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
    span.lo = lo < span.lo ? lo : span.lo;
    span.hi = hi > span.hi ? hi : span.hi;
    holds |= s->addr >= lo && s->addr < hi;
  }
  if (!holds)
    return 0;
  s->found = span;
  return 1; // stop
}

} // namespace

CodeSpan codeSpanOf(const void *addr) {
  Search s{reinterpret_cast<uintptr_t>(addr), {}};
  dl_iterate_phdr(visit, &s);
  return s.found;
}

} // namespace sio::rt
