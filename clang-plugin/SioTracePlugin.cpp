//===- SioTracePlugin.cpp - The ways into siotrace.so ---------------------===//
//
// One shared object for the user, three ways in:
//   clang -fplugin=siotrace.so        the library's constructor attaches the
//                                     Clang frontend action (companion
//                                     siotrace-clang.so, see FrontendHooks.h),
//                                     which registers the IR pass through
//                                     CodeGenOptions::PassBuilderCallbacks
//   clang -fpass-plugin=siotrace.so   llvmGetPassPluginInfo below
//   opt -load-pass-plugin siotrace.so -passes=siotrace
// registerSioTrace() is idempotent per PassBuilder, so loading the library
// both ways registers the pass once; the pass does nothing on a module it has
// already instrumented.
//
//===----------------------------------------------------------------------===//
#include "Compat.h" // first: version checks, STATISTIC switch

#include "AstLocations.h"
#include "FrontendHooks.h"
#include "SioTracePass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

#include <cstdio>
#include <dlfcn.h>
#include <string>

#ifndef SIO_CLANG_CPP_SONAME
#define SIO_CLANG_CPP_SONAME "libclang-cpp.so.19.1"
#endif

namespace {

bool applyWord(sio::SioTraceOptions &O, const char *W) {
  return sio::applyOptionWord(O, W);
}

const sio::FrontendHooks TheHooks = {
    sio::FrontendHooksVersion, &sio::frontendOptions, &sio::registerSioTrace,
    &applyWord, &sio::astLocations};

/// Loads siotrace-clang.so from this library's directory when Clang's
/// libraries are already in the process (never in opt).
void attachFrontend() {
  void *Clang = dlopen(SIO_CLANG_CPP_SONAME, RTLD_LAZY | RTLD_NOLOAD);
  if (!Clang)
    return;
  dlclose(Clang);
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&attachFrontend), &Info) ||
      !Info.dli_fname)
    return;
  std::string Path = Info.dli_fname;
  size_t Slash = Path.rfind('/');
  Path =
      (Slash == std::string::npos ? std::string() : Path.substr(0, Slash + 1)) +
      sio::FrontendCompanionName;
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    fprintf(stderr, "siotrace: cannot load %s: %s\n", Path.c_str(), dlerror());
    return;
  }
  auto Attach = reinterpret_cast<SioFrontendAttachFn>(
      dlsym(H, sio::FrontendAttachSymbol));
  if (!Attach || !Attach(&TheHooks))
    fprintf(stderr, "siotrace: %s does not match this siotrace.so\n",
            Path.c_str());
}

struct AttachAtLoad {
  AttachAtLoad() { attachFrontend(); }
} TheAttacher;

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, sio::compat::PluginName, "0.1",
          [](llvm::PassBuilder &PB) { sio::registerSioTrace(PB); }};
}
