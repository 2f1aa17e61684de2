//===- AstIoWalker.cpp - I/O calls and loops of a function body -----------===//
#include "AstIoWalker.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace sio {

bool isIoCallName(llvm::StringRef Symbol) {
  static const llvm::StringSet<> Names = [] {
    llvm::StringSet<> S;
#define SIO_IO_CALL(NAME, LAYER, ...) S.insert(#NAME);
#include "sio/IoCalls.def"
    // The profiling names of the MPI functions, which the runtime records
    // like the MPI_ ones (SioTracePass.cpp's table has them too).
    llvm::SmallVector<std::string, 128> Mpi;
    for (const auto &E : S)
      if (E.getKey().starts_with("MPI_"))
        Mpi.push_back("P" + E.getKey().str());
    for (const std::string &N : Mpi)
      S.insert(N);
    return S;
  }();
  return Names.contains(Symbol);
}

std::string symbolName(ASTNameGenerator &Gen, const Decl *D) {
  std::string N = Gen.getName(D);
  if (!N.empty() && N[0] == '\1')
    N.erase(0, 1);
  return N;
}

std::vector<std::string> allSymbolNames(ASTNameGenerator &Gen,
                                        const FunctionDecl *FD) {
  std::vector<std::string> Names;
  if (isa<CXXConstructorDecl>(FD) || isa<CXXDestructorDecl>(FD))
    Names = Gen.getAllManglings(FD);
  else
    Names.push_back(Gen.getName(FD));
  for (std::string &N : Names)
    if (!N.empty() && N[0] == '\1')
      N.erase(0, 1);
  return Names;
}

std::string ioCallee(ASTNameGenerator &Gen, const CallExpr *CE) {
  if (isa<CXXMemberCallExpr>(CE) || isa<CXXOperatorCallExpr>(CE))
    return {};
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return {};
  std::string Name = symbolName(Gen, FD);
  return isIoCallName(Name) ? Name : std::string();
}

IoWalkObserver::~IoWalkObserver() = default;

bool IoBodyWalker::foldsTo(const Expr *E, const ASTContext &Ctx, bool &Value) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return false;
  Value = R.Val.getInt().getBoolValue();
  return true;
}

void IoBodyWalker::walkFunction(const FunctionDecl *FD) {
  if (const auto *CD = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : CD->inits())
      walk(Init->getInit());
  walk(FD->getBody());
}

void IoBodyWalker::walk(const Stmt *S) {
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
    // `for (;;)` has no condition; a constant-false one is no loop in the IR
    // only for do-while, so every `for` is a loop.
    Observer.loop(F);
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
    Observer.loop(R);
    walk(R->getCond());
    walk(R->getLoopVarStmt());
    walk(R->getBody());
    walk(R->getInc());
    return;
  }
  if (const auto *W = dyn_cast<WhileStmt>(S)) {
    Observer.loop(W);
    walk(W->getConditionVariableDeclStmt());
    walk(W->getCond());
    walk(W->getBody());
    return;
  }
  if (const auto *D = dyn_cast<DoStmt>(S)) {
    // "do { } while (0)" has no back edge in Clang's IR.
    if (!constantFalse(D->getCond()))
      Observer.loop(D);
    walk(D->getBody());
    walk(D->getCond());
    return;
  }
  if (const auto *I = dyn_cast<IfStmt>(S)) {
    // CodeGen elides the dead arm of a constant condition.
    walk(I->getInit());
    walk(I->getConditionVariableDeclStmt());
    bool C;
    if (!I->isConsteval() && foldsTo(I->getCond(), Ctx, C)) {
      walk(C ? I->getThen() : I->getElse());
      return;
    }
    walk(I->getCond());
    walk(I->getThen());
    walk(I->getElse());
    return;
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
    bool C;
    if (foldsTo(CO->getCond(), Ctx, C)) {
      walk(C ? CO->getTrueExpr() : CO->getFalseExpr());
      return;
    }
  }
  for (const Stmt *Child : S->children())
    walk(Child);
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    if (const FunctionDecl *FD = CE->getDirectCallee())
      Observer.call(CE, FD);
    std::string Callee = ioCallee(Gen, CE);
    if (!Callee.empty())
      Observer.ioCall(CE, Callee);
  } else if (const auto *CC = dyn_cast<CXXConstructExpr>(S)) {
    Observer.call(CC, CC->getConstructor());
  }
}

} // namespace sio
