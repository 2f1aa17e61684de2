//===- Compat.h - LLVM/Clang version differences for siotrace -------------===//
//
// Every difference between LLVM releases that the plugin has to care about
// lives here, so that the pass and the frontend action stay version-neutral.
// The plugin is built and tested against LLVM/Clang 19.1.
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_COMPAT_H
#define SIO_CLANG_PLUGIN_COMPAT_H

#include "llvm/Config/llvm-config.h"

// STATISTIC counters are no-ops in NDEBUG builds unless forced on
// (llvm-config.h says 0 for a release LLVM). Their registry lives in libLLVM
// and is always present, so forcing them on in the plugin keeps the counters
// live; the pass prints them itself under -stats because a release libLLVM
// does not (see SioTracePass.cpp). Include this header first.
#undef LLVM_FORCE_ENABLE_STATS
#define LLVM_FORCE_ENABLE_STATS 1

#if LLVM_VERSION_MAJOR < 18
#error "siotrace needs LLVM/Clang >= 18 (CodeGenOptions::PassBuilderCallbacks)"
#endif

namespace sio::compat {

/// Name of the plugin everywhere: -fplugin-arg-<name>-..., -passes=<name>,
/// -Rpass=<name>, DEBUG_TYPE.
inline constexpr const char *PluginName = "siotrace";

} // namespace sio::compat

#endif // SIO_CLANG_PLUGIN_COMPAT_H
