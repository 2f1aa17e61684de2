//===- SioTraceFrontend.cpp - clang -fplugin=siotrace.so ------------------===//
//
// The Clang side of siotrace.so, built as the companion siotrace-clang.so
// (see FrontendHooks.h for why it is a separate file). A PluginASTAction that
// runs before the main action, parses -fplugin-arg-siotrace-... and registers
// the IR pass through CodeGenOptions::PassBuilderCallbacks (Clang >= 18).
//
//===----------------------------------------------------------------------===//
#include "Compat.h" // first: version checks, STATISTIC switch

#include "AstIoWalker.h"
#include "AstLocations.h"
#include "FrontendHooks.h"
#include "SioTracePass.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"

using namespace clang;

namespace {

const sio::FrontendHooks *Hooks = nullptr;

/// Records a function's loops and I/O calls with their locations.
class LocationRecorder : public sio::IoWalkObserver {
public:
  LocationRecorder(const SourceManager &SM, sio::AstFunctionLocations &Out)
      : SM(SM), Out(Out) {}
  void loop(const Stmt *Loop) override {
    record(Out.Loops, Loop->getBeginLoc(), "");
  }
  void ioCall(const CallExpr *Call, llvm::StringRef Callee) override {
    record(Out.Sites, Call->getExprLoc(), Callee);
  }

private:
  void record(std::vector<sio::AstLocation> &V, SourceLocation L,
              llvm::StringRef Callee) {
    sio::AstLocation A;
    A.Callee = Callee.str();
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
    if (P.isValid()) {
      A.File = P.getFilename();
      A.Line = P.getLine();
      A.Column = P.getColumn();
    }
    V.push_back(std::move(A));
  }

  const SourceManager &SM;
  sio::AstFunctionLocations &Out;
};

class FunctionCollector
    : public sio::EmittedFunctionVisitor<FunctionCollector> {
public:
  FunctionCollector(ASTContext &Ctx, sio::AstLocationTable &Table)
      : Ctx(Ctx), Gen(Ctx), Table(Table) {}

  void visitDefinition(FunctionDecl *FD) {
    sio::AstFunctionLocations L;
    LocationRecorder R(Ctx.getSourceManager(), L);
    sio::IoBodyWalker(Ctx, Gen, R).walkFunction(FD);
    if (L.Sites.empty() && L.Loops.empty())
      return;
    for (const std::string &N : sio::allSymbolNames(Gen, FD))
      Table.Functions[N] = L;
  }

private:
  ASTContext &Ctx;
  ASTNameGenerator Gen;
  sio::AstLocationTable &Table;
};

/// Records AST locations for the pass; runs before CodeGen's consumer, so the
/// table is complete when the pass runs from EmitBackendOutput.
class LocationConsumer : public ASTConsumer {
public:
  explicit LocationConsumer(std::string CompDir)
      : CompDir(std::move(CompDir)) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    sio::AstLocationTable &T = Hooks->AstLocations();
    T.clear();
    T.CompDir = CompDir;
    FunctionCollector(Ctx, T).TraverseAST(Ctx);
    T.Valid = true;
  }

private:
  std::string CompDir;
};

class SioTraceAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    if (!Hooks || Hooks->Options().Off)
      return std::make_unique<ASTConsumer>();
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [](llvm::PassBuilder &PB) { Hooks->RegisterPass(PB); });
    Hooks->AstLocations().clear();
    // With debug info the IR has its own locations.
    if (CI.getCodeGenOpts().getDebugInfo() != llvm::codegenoptions::NoDebugInfo)
      return std::make_unique<ASTConsumer>();
    std::string CompDir = CI.getCodeGenOpts().DebugCompilationDir;
    if (CompDir.empty()) {
      llvm::SmallString<256> Cwd;
      if (!llvm::sys::fs::current_path(Cwd))
        CompDir = std::string(Cwd.str());
    }
    return std::make_unique<LocationConsumer>(std::move(CompDir));
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    if (!Hooks)
      return false;
    sio::SioTraceOptions &O = Hooks->Options();
    O = sio::SioTraceOptions();
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &A : Args) {
      if (!Hooks->ApplyOptionWord(O, A.c_str())) {
        unsigned ID = D.getCustomDiagID(
            DiagnosticsEngine::Error,
            "siotrace: unknown plugin argument '%0' (expected off, on, "
            "verbose, allow=<regexes>, deny=<regexes>)");
        D.Report(ID) << A;
        return false;
      }
    }
    return true;
  }

  // Run alongside code generation, without -add-plugin.
  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_VISIBILITY_DEFAULT int
sio_frontend_attach(const sio::FrontendHooks *H) {
  if (!H || H->Version != sio::FrontendHooksVersion)
    return 0;
  if (Hooks) // attached once per process
    return 1;
  Hooks = H;
  static FrontendPluginRegistry::Add<SioTraceAction> X(
      sio::compat::PluginName,
      "sio: call-site ids and loop markers around I/O calls");
  return 1;
}
