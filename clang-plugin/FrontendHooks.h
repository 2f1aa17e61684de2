//===- FrontendHooks.h - siotrace.so <-> siotrace-clang.so ----------------===//
//
// siotrace.so holds the pass and links only libLLVM, so that `opt
// -load-pass-plugin` can load it: Debian's libclang-cpp.so.19 cannot be loaded
// into opt (both define the cl::opt "pgo-cold-func-opt" and LLVM aborts on
// the duplicate). The Clang frontend action therefore lives in a companion,
// siotrace-clang.so, installed next to siotrace.so. When siotrace.so is loaded
// into a process that already has libclang-cpp (clang -fplugin= or
// -fpass-plugin=), its constructor dlopens the companion and hands it these
// hooks; the companion registers the PluginASTAction "siotrace".
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_FRONTENDHOOKS_H
#define SIO_CLANG_PLUGIN_FRONTENDHOOKS_H

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace sio {
struct SioTraceOptions;
struct AstLocationTable;

struct FrontendHooks {
  unsigned Version;
  SioTraceOptions &(*Options)();
  void (*RegisterPass)(llvm::PassBuilder &);
  bool (*ApplyOptionWord)(SioTraceOptions &, const char *);
  AstLocationTable &(*AstLocations)();
};

inline constexpr unsigned FrontendHooksVersion = 1;
inline constexpr const char *FrontendCompanionName = "siotrace-clang.so";
inline constexpr const char *FrontendAttachSymbol = "sio_frontend_attach";

} // namespace sio

extern "C" {
/// Exported by siotrace-clang.so; returns nonzero on success.
typedef int (*SioFrontendAttachFn)(const sio::FrontendHooks *);
}

#endif // SIO_CLANG_PLUGIN_FRONTENDHOOKS_H
