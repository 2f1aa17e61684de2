#include "CodeSpan.h"

#include <cstring>
#include <link.h>

namespace sio::rt {
namespace {

struct Search {
  uintptr_t addr;
  CodeSpan found;
};

/// The span of every executable segment of one object (empty when none);
/// `holds` says whether `addr` lies in one of those segments (not merely
/// between them).
CodeSpan spanOf(const struct dl_phdr_info *info, uintptr_t addr = 0, bool *holds = nullptr) {
  CodeSpan span{UINTPTR_MAX, 0};
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
      continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
    span.lo = lo < span.lo ? lo : span.lo;
    span.hi = hi > span.hi ? hi : span.hi;
    if (holds)
      *holds |= addr >= lo && addr < hi;
  }
  return span.hi ? span : CodeSpan{};
}

int visit(struct dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<Search *>(data);
  bool holds = false;
  const CodeSpan span = spanOf(info, s->addr, &holds);
  if (!holds)
    return 0;
  s->found = span;
  return 1; // stop
}

struct ByName {
  const char *const *names;
  int nnames;
  CodeSpan *out;
  int max, found;
};

/// "dir/libX.so.1" names libX.so when its base name is "libX.so" or starts
/// with "libX.so.".
bool namesLibrary(const char *path, const char *soname) {
  const char *base = std::strrchr(path, '/');
  base = base ? base + 1 : path;
  const size_t n = std::strlen(soname);
  return std::strncmp(base, soname, n) == 0 && (base[n] == '\0' || base[n] == '.');
}

int visitByName(struct dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<ByName *>(data);
  if (!info->dlpi_name || !*info->dlpi_name || s->found == s->max)
    return 0;
  for (int i = 0; i < s->nnames; ++i)
    if (namesLibrary(info->dlpi_name, s->names[i])) {
      const CodeSpan span = spanOf(info);
      if (span.hi)
        s->out[s->found++] = span;
      break;
    }
  return 0;
}

} // namespace

int codeSpansNamed(const char *const *sonames, int nnames, CodeSpan *out, int max) {
  ByName s{sonames, nnames, out, max, 0};
  dl_iterate_phdr(visitByName, &s);
  return s.found;
}

CodeSpan codeSpanOf(const void *addr) {
  Search s{reinterpret_cast<uintptr_t>(addr), {}};
  dl_iterate_phdr(visit, &s);
  return s.found;
}

} // namespace sio::rt
