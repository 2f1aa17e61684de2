//===- SioTraceFrontend.cpp - clang -fplugin=siotrace.so ------------------===//
//
// The Clang side of siotrace.so, built as the companion siotrace-clang.so
// (see FrontendHooks.h for why it is a separate file). A PluginASTAction that
// runs before the main action, parses -fplugin-arg-siotrace-... and registers
// the IR pass through CodeGenOptions::PassBuilderCallbacks (Clang >= 18).
//
//===----------------------------------------------------------------------===//
#include "Compat.h" // first: version checks, STATISTIC switch

#include "AstLocations.h"
#include "FrontendHooks.h"
#include "SioTracePass.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"

using namespace clang;

namespace {

const sio::FrontendHooks *Hooks = nullptr;

const llvm::StringSet<> &ioNames() {
  static const llvm::StringSet<> Names = [] {
    llvm::StringSet<> S;
#define SIO_IO_CALL(NAME, LAYER, ...) S.insert(#NAME);
#include "sio/IoCalls.def"
    return S;
  }();
  return Names;
}

std::string symbolName(ASTNameGenerator &Gen, const Decl *D) {
  std::string N = Gen.getName(D);
  if (!N.empty() && N[0] == '\1')
    N.erase(0, 1);
  return N;
}

/// Walks one function body in the order Clang's CodeGen emits it and records
/// I/O calls and loops (see AstLocations.h). Whatever it gets wrong shows up
/// as a sequence mismatch in the pass, which then ignores the function's
/// entry.
class BodyWalker {
public:
  BodyWalker(ASTContext &Ctx, ASTNameGenerator &Gen,
             sio::AstFunctionLocations &Out)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Gen(Gen), Out(Out) {}

  void walk(const Stmt *S) {
    if (!S)
      return;
    if (const auto *LE = dyn_cast<LambdaExpr>(S)) {
      // The body is the call operator, a function of its own.
      for (const Expr *Init : LE->capture_inits())
        walk(Init);
      return;
    }
    if (isa<BlockExpr>(S) || isa<CapturedStmt>(S))
      return; // outlined into functions of their own
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      walk(F->getInit());
      if (!constantFalse(F->getCond(), /*IsDo=*/false))
        record(Out.Loops, F->getBeginLoc(), "");
      walk(F->getConditionVariableDeclStmt());
      walk(F->getCond());
      walk(F->getBody());
      walk(F->getInc());
      return;
    }
    if (const auto *R = dyn_cast<CXXForRangeStmt>(S)) {
      walk(R->getInit());
      walk(R->getRangeStmt());
      walk(R->getBeginStmt());
      walk(R->getEndStmt());
      record(Out.Loops, R->getBeginLoc(), "");
      walk(R->getCond());
      walk(R->getLoopVarStmt());
      walk(R->getBody());
      walk(R->getInc());
      return;
    }
    if (const auto *W = dyn_cast<WhileStmt>(S)) {
      record(Out.Loops, W->getBeginLoc(), "");
      walk(W->getConditionVariableDeclStmt());
      walk(W->getCond());
      walk(W->getBody());
      return;
    }
    if (const auto *D = dyn_cast<DoStmt>(S)) {
      // "do { } while (0)" has no back edge in Clang's IR.
      if (!constantFalse(D->getCond(), /*IsDo=*/true))
        record(Out.Loops, D->getBeginLoc(), "");
      walk(D->getBody());
      walk(D->getCond());
      return;
    }
    if (const auto *I = dyn_cast<IfStmt>(S)) {
      // CodeGen elides the dead arm of a constant condition.
      walk(I->getInit());
      walk(I->getConditionVariableDeclStmt());
      bool C;
      if (!I->isConsteval() && foldsTo(I->getCond(), C)) {
        if (C)
          walk(I->getThen());
        else
          walk(I->getElse());
        return;
      }
      walk(I->getCond());
      walk(I->getThen());
      walk(I->getElse());
      return;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
      bool C;
      if (foldsTo(CO->getCond(), C)) {
        walk(C ? CO->getTrueExpr() : CO->getFalseExpr());
        return;
      }
    }
    for (const Stmt *Child : S->children())
      walk(Child);
    if (const auto *CE = dyn_cast<CallExpr>(S))
      if (!isa<CXXMemberCallExpr>(CE) && !isa<CXXOperatorCallExpr>(CE))
        if (const FunctionDecl *FD = CE->getDirectCallee()) {
          std::string Name = symbolName(Gen, FD);
          if (ioNames().contains(Name))
            record(Out.Sites, CE->getExprLoc(), Name);
        }
  }

private:
  bool foldsTo(const Expr *E, bool &Value) {
    Expr::EvalResult R;
    if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
      return false;
    Value = R.Val.getInt().getBoolValue();
    return true;
  }
  bool constantFalse(const Expr *E, bool IsDo) {
    bool V;
    return IsDo && E && foldsTo(E, V) && !V;
  }
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

  ASTContext &Ctx;
  SourceManager &SM;
  ASTNameGenerator &Gen;
  sio::AstFunctionLocations &Out;
};

class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  FunctionCollector(ASTContext &Ctx, sio::AstLocationTable &Table)
      : Ctx(Ctx), Gen(Ctx), Table(Table) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        FD->isInvalidDecl() || !FD->getBody())
      return true;
    sio::AstFunctionLocations L;
    BodyWalker W(Ctx, Gen, L);
    if (const auto *CD = dyn_cast<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : CD->inits())
        W.walk(Init->getInit());
    W.walk(FD->getBody());
    if (L.Sites.empty() && L.Loops.empty())
      return true;
    std::vector<std::string> Names;
    if (isa<CXXConstructorDecl>(FD) || isa<CXXDestructorDecl>(FD))
      Names = Gen.getAllManglings(FD);
    else
      Names.push_back(Gen.getName(FD));
    for (std::string &N : Names) {
      if (!N.empty() && N[0] == '\1')
        N.erase(0, 1);
      Table.Functions[N] = L;
    }
    return true;
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
