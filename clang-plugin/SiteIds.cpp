//===- SiteIds.cpp - Stable call-site and loop identifiers ----------------===//
#include "SiteIds.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace sio {

uint64_t fnv1a64(StringRef Data) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (unsigned char C : Data) {
    H ^= C;
    H *= 0x100000001b3ULL;
  }
  return H == 0 ? 1 : H;
}

std::string normalizeSourcePath(StringRef File, StringRef Dir,
                                StringRef CompDir) {
  namespace path = llvm::sys::path;
  auto Posix = path::Style::posix;
  SmallString<256> Full;
  if (path::is_absolute(File, Posix) || Dir.empty())
    Full = File;
  else
    path::append(Full, Posix, Dir, File);
  path::remove_dots(Full, /*remove_dot_dot=*/true, Posix);

  SmallString<256> Base(CompDir);
  path::remove_dots(Base, /*remove_dot_dot=*/true, Posix);
  while (Base.size() > 1 && Base.back() == '/')
    Base.pop_back();

  // Relative result (e.g. -fdebug-compilation-dir=. or a relative CompDir):
  // it is already relative to the compilation directory.
  if (!path::is_absolute(Full, Posix))
    return std::string(Full.str());
  if (!Base.empty() && path::is_absolute(Base, Posix)) {
    StringRef F = Full.str();
    if (Base == "/")
      return F.drop_front(1).str();
    if (F.starts_with(Base) && F.size() > Base.size() && F[Base.size()] == '/')
      return F.drop_front(Base.size() + 1).str();
  }
  return path::filename(Full.str(), Posix).str();
}

uint64_t siteId(StringRef NormFile, unsigned Line, unsigned Column,
                StringRef Callee) {
  return fnv1a64(("site:" + NormFile + ":" + Twine(Line) + ":" + Twine(Column) +
                  ":" + Callee)
                     .str());
}

uint64_t loopId(StringRef NormFile, unsigned Line, unsigned Column,
                StringRef Function) {
  return fnv1a64(("loop:" + NormFile + ":" + Twine(Line) + ":" + Twine(Column) +
                  ":" + Function)
                     .str());
}

uint64_t fallbackSiteId(StringRef Function, StringRef Callee,
                        unsigned Ordinal) {
  return fnv1a64(
      ("site-nodebug:" + Function + ":" + Callee + ":" + Twine(Ordinal)).str());
}

uint64_t fallbackLoopId(StringRef Function, unsigned Ordinal) {
  return fnv1a64(("loop-nodebug:" + Function + ":" + Twine(Ordinal)).str());
}

uint64_t disambiguate(uint64_t Id, unsigned Ordinal) {
  return fnv1a64(("dup:" + Twine(Id) + ":" + Twine(Ordinal)).str());
}

} // namespace sio
