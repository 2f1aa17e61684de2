//===- SiteIds.h - Stable call-site and loop identifiers ------------------===//
//
// Ids are 64-bit FNV-1a hashes of a short, machine-independent string. They
// must not depend on the optimization level, the machine, the rank count, or
// on how the source file was spelled on the command line. See docs/plugin.md
// ("Site ids") for the exact rule; in short:
//
//   site id = fnv1a64("site:" + P + ":" + line + ":" + column + ":" + callee)
//   loop id = fnv1a64("loop:" + P + ":" + line + ":" + column + ":" + function)
//
// where P is the normalized file path (normalizeSourcePath). 0 is reserved
// for "no id" and never returned.
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_SITEIDS_H
#define SIO_CLANG_PLUGIN_SITEIDS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace sio {

/// 64-bit FNV-1a; never returns 0 (0 means "none" in the ABI).
uint64_t fnv1a64(llvm::StringRef Data);

/// The file component of an id. \p File and \p Dir are a DIFile's filename and
/// directory, \p CompDir the compilation directory (DICompileUnit directory).
/// The file's absolute path is made lexically canonical (no "." or "..", no
/// symlink resolution); if it lies under the compilation directory the result
/// is the path relative to it ("src/io.c"), otherwise its basename ("io.h").
std::string normalizeSourcePath(llvm::StringRef File, llvm::StringRef Dir,
                                llvm::StringRef CompDir);

uint64_t siteId(llvm::StringRef NormFile, unsigned Line, unsigned Column,
                llvm::StringRef Callee);
uint64_t loopId(llvm::StringRef NormFile, unsigned Line, unsigned Column,
                llvm::StringRef Function);

/// Ids used when the IR carries no source locations (e.g. -fpass-plugin or
/// opt without -g): the function's (mangled) name and an ordinal that counts
/// in instruction order, which is the same at every optimization level since
/// the pass runs at pipeline start.
uint64_t fallbackSiteId(llvm::StringRef Function, llvm::StringRef Callee,
                        unsigned Ordinal);
uint64_t fallbackLoopId(llvm::StringRef Function, unsigned Ordinal);

/// Mixes a disambiguating ordinal into an id (two sites of one function that
/// share file, line, column and callee, e.g. from one macro expansion).
uint64_t disambiguate(uint64_t Id, unsigned Ordinal);

} // namespace sio

#endif // SIO_CLANG_PLUGIN_SITEIDS_H
