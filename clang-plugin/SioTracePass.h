//===- SioTracePass.h - Call-site ids and loop markers around I/O ---------===//
//
// A module pass for the new pass manager. At pipeline start (before inlining
// and loop rotation) it
//   * hands a stable site id to the runtime immediately before every call to
//     an I/O function listed in runtime/include/sio/IoCalls.def,
//   * inserts loop enter / iteration / exit markers around every loop that
//     contains I/O directly or through same-module functions that do I/O,
//   * records sites and loops in static tables (sections sio_sites and
//     sio_loops) registered once per module by a constructor.
// The entry points are those of runtime/include/sio/siotrace_abi.h.
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_SIOTRACEPASS_H
#define SIO_CLANG_PLUGIN_SIOTRACEPASS_H

#include "llvm/IR/PassManager.h"

#include <string>

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace sio {

/// Options of the pass. Defaults come from the frontend plugin arguments
/// (-fplugin-arg-siotrace-...); every field can be overridden by the matching
/// cl::opt (-siotrace-off, -siotrace-verbose, -siotrace-allow=,
/// -siotrace-deny=), which is how -fpass-plugin and opt users set them.
struct SioTraceOptions {
  bool Off = false;
  bool Verbose = false;
  /// Comma-separated regular expressions, matched in full against the mangled
  /// and the demangled function name. Empty allow list = every function.
  std::string Allow;
  std::string Deny;
};

/// The options set by the frontend plugin for this compiler process.
SioTraceOptions &frontendOptions();

/// Applies one option word ("off", "on", "verbose", "allow=<regexes>",
/// "deny=<regexes>") to \p O; false if the word is unknown. Used for
/// -fplugin-arg-siotrace-<word> and for the words of $SIOTRACE_OPTIONS.
bool applyOptionWord(SioTraceOptions &O, llvm::StringRef Word);

/// Frontend options, then the words of $SIOTRACE_OPTIONS (the way to set
/// options with -fpass-plugin alone: Clang parses -mllvm before it loads pass
/// plugins), then the cl::opt overrides.
SioTraceOptions effectiveOptions();

class SioTracePass : public llvm::PassInfoMixin<SioTracePass> {
public:
  explicit SioTracePass(SioTraceOptions Opts = effectiveOptions())
      : Opts(std::move(Opts)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
  static llvm::StringRef name() { return "SioTracePass"; }

private:
  SioTraceOptions Opts;
};

/// Registers the pass with \p PB: at pipeline start, and as "siotrace" for
/// -passes=. Idempotent per PassBuilder (the library may be loaded both as a
/// frontend plugin and as a pass plugin).
void registerSioTrace(llvm::PassBuilder &PB);

} // namespace sio

#endif // SIO_CLANG_PLUGIN_SIOTRACEPASS_H
