//===- AstLocations.h - Source locations recorded by the frontend ---------===//
//
// With `clang -fplugin=siotrace.so` and no -g, the IR carries no source
// locations, and a frontend plugin cannot switch Clang's location tracking on
// in time (CodeGen copies CodeGenOptions before plugins see them). So the
// frontend action records, per function (by mangled name), the I/O calls and
// the loops it finds in the AST, in the order Clang emits them; the pass pairs
// them with the IR's I/O calls and loops of the same function when the
// sequences agree exactly, and falls back to function+ordinal ids otherwise.
// The locations are those Clang's debug info would give (expansion location,
// presumed file, line and column), so ids agree with -g builds.
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_ASTLOCATIONS_H
#define SIO_CLANG_PLUGIN_ASTLOCATIONS_H

#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace sio {

struct AstLocation {
  std::string Callee; // IR symbol of the I/O function; empty for loops
  std::string File;   // presumed file name, as Clang spells it
  unsigned Line = 0, Column = 0;
};

struct AstFunctionLocations {
  std::vector<AstLocation> Sites; // I/O calls in emission order
  std::vector<AstLocation> Loops; // loop statements in emission order
};

struct AstLocationTable {
  bool Valid = false;
  std::string CompDir; // compilation directory (DICompileUnit directory)
  llvm::StringMap<AstFunctionLocations> Functions;
  void clear() {
    Valid = false;
    CompDir.clear();
    Functions.clear();
  }
};

/// The table of this compiler process (one translation unit at a time).
AstLocationTable &astLocations();

} // namespace sio

#endif // SIO_CLANG_PLUGIN_ASTLOCATIONS_H
