//===- AstIoWalker.h - I/O calls and loops of a function body, in AST form ===//
//
// One definition of "an I/O call" and "a loop" at the AST level, shared by the
// plugin's frontend (which records locations for IR without debug info) and
// sio-instrument (which rewrites the source). The walk visits a body in the
// order Clang's CodeGen emits it, so the n-th call it reports is the n-th
// call in the IR; both users rely on that order for disambiguation ordinals.
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_ASTIOWALKER_H
#define SIO_CLANG_PLUGIN_ASTIOWALKER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace sio {

/// True if \p Symbol is one of the I/O functions of sio/IoCalls.def.
bool isIoCallName(llvm::StringRef Symbol);

/// The symbol a declaration is emitted as (asm labels without their '\1').
std::string symbolName(clang::ASTNameGenerator &Gen, const clang::Decl *D);

/// Every symbol of \p FD: constructors and destructors have several.
std::vector<std::string> allSymbolNames(clang::ASTNameGenerator &Gen,
                                        const clang::FunctionDecl *FD);

/// The I/O function a call expression calls directly, or "" (member and
/// operator calls are never I/O calls).
std::string ioCallee(clang::ASTNameGenerator &Gen, const clang::CallExpr *CE);

/// Receives a function body's loops and I/O calls in emission order.
class IoWalkObserver {
public:
  virtual ~IoWalkObserver();
  /// A loop statement that becomes a loop in the IR (for, range-for, while,
  /// do-while without a constant-false condition).
  virtual void loop(const clang::Stmt *Loop) = 0;
  virtual void ioCall(const clang::CallExpr *Call, llvm::StringRef Callee) = 0;
  /// Any direct call (or constructor call) to a function \p Callee, I/O or
  /// not, reported after its arguments.
  virtual void call(const clang::Expr *, const clang::FunctionDecl *Callee) {
    (void)Callee;
  }
};

/// Walks one function body the way CodeGen emits it: lambda, block and
/// captured-statement bodies are functions of their own and are skipped; the
/// dead arm of a constant `if` or `?:` is skipped as CodeGen elides it.
class IoBodyWalker {
public:
  IoBodyWalker(clang::ASTContext &Ctx, clang::ASTNameGenerator &Gen,
               IoWalkObserver &Observer)
      : Ctx(Ctx), Gen(Gen), Observer(Observer) {}

  /// The whole function: constructor initializers, then the body.
  void walkFunction(const clang::FunctionDecl *FD);
  void walk(const clang::Stmt *S);

  /// Whether \p E folds to a constant, and to which truth value.
  static bool foldsTo(const clang::Expr *E, const clang::ASTContext &Ctx,
                      bool &Value);

private:
  bool constantFalse(const clang::Expr *E) {
    bool V;
    return E && foldsTo(E, Ctx, V) && !V;
  }

  clang::ASTContext &Ctx;
  clang::ASTNameGenerator &Gen;
  IoWalkObserver &Observer;
};

/// Calls `Derived::visitDefinition(FD)` for every function of a translation
/// unit that CodeGen emits a body for: template instantiations and implicit
/// code included, template patterns and invalid declarations not.
template <typename Derived>
class EmittedFunctionVisitor : public clang::RecursiveASTVisitor<Derived> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() &&
        !FD->isInvalidDecl() && FD->getBody())
      static_cast<Derived *>(this)->visitDefinition(FD);
    return true;
  }
};

} // namespace sio

#endif // SIO_CLANG_PLUGIN_ASTIOWALKER_H
