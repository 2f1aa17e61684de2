//===- SourceInstrumenter.cpp - The plugin's instrumentation as source edits =//
#include "SourceInstrumenter.h"

#include "AstIoWalker.h"
#include "SiteIds.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace sio {

bool RewriteSet::add(llvm::StringRef File, SourceEdit E) {
  FileRewrite &R = Files[File.str()];
  for (const SourceEdit &Old : R.Edits)
    if (Old.Offset == E.Offset && Old.Order == E.Order) {
      if (Old.Text == E.Text && Old.RemoveLength == E.RemoveLength)
        return true;
      return false;
    }
  R.Edits.push_back(std::move(E));
  return true;
}

void RewriteSet::addFormatRange(llvm::StringRef File, unsigned Begin,
                                unsigned End) {
  Files[File.str()].FormatRanges.emplace_back(Begin, End);
}

void RewriteSet::setTrailer(llvm::StringRef File, std::string Text) {
  Files[File.str()].Trailer = std::move(Text);
}

namespace {

std::string hexId(uint64_t Id) { return "0x" + llvm::utohexstr(Id) + "ULL"; }

/// C string literal for a file or function name.
std::string quoted(llvm::StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

struct SiteInfo {
  uint64_t Id = 0, LoopId = 0;
  std::string File, Function, Callee;
  unsigned Line = 0, Column = 0;
};

struct LoopInfoRec {
  uint64_t Id = 0, ParentId = 0;
  std::string File, Function;
  unsigned Line = 0, Column = 0;
  bool Rewritten = false;
};

/// The functions of the translation unit, their direct callees, and which of
/// them do I/O directly or through other functions defined here (the same
/// fixed point SioTracePass computes over the module).
class FunctionGraph : public RecursiveASTVisitor<FunctionGraph> {
public:
  explicit FunctionGraph(ASTContext &Ctx) : Ctx(Ctx), Gen(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        FD->isInvalidDecl() || !FD->getBody())
      return true;
    Collector C;
    IoBodyWalker(Ctx, Gen, C).walkFunction(FD);
    const FunctionDecl *Key = FD->getCanonicalDecl();
    Functions.push_back(FD);
    Callees[Key] = std::move(C.Callees);
    if (C.DoesIo)
      IoFunctions.insert(Key);
    return true;
  }

  void computeFixedPoint() {
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (auto &[F, Cs] : Callees)
        if (!IoFunctions.count(F))
          for (const FunctionDecl *C : Cs)
            if (IoFunctions.count(C)) {
              IoFunctions.insert(F);
              Changed = true;
              break;
            }
    }
  }

  bool doesIo(const FunctionDecl *FD) const {
    return FD && IoFunctions.count(FD->getCanonicalDecl());
  }

  std::vector<const FunctionDecl *> Functions;

private:
  struct Collector : IoWalkObserver {
    void loop(const Stmt *) override {}
    void ioCall(const CallExpr *, llvm::StringRef) override { DoesIo = true; }
    void call(const Expr *, const FunctionDecl *Callee) override {
      if (Callee)
        Callees.push_back(Callee->getCanonicalDecl());
    }
    bool DoesIo = false;
    std::vector<const FunctionDecl *> Callees;
  };

  ASTContext &Ctx;
  ASTNameGenerator Gen;
  llvm::DenseMap<const FunctionDecl *, std::vector<const FunctionDecl *>>
      Callees;
  llvm::DenseSet<const FunctionDecl *> IoFunctions;
};

/// Whether a statement, walked as CodeGen emits it, calls I/O directly or
/// through a function of the translation unit that does.
class IoFinder : public IoWalkObserver {
public:
  explicit IoFinder(const FunctionGraph &G) : G(G) {}
  void loop(const Stmt *) override {}
  void ioCall(const CallExpr *, llvm::StringRef) override { Found = true; }
  void call(const Expr *, const FunctionDecl *Callee) override {
    if (G.doesIo(Callee))
      Found = true;
  }
  bool Found = false;

private:
  const FunctionGraph &G;
};

/// The loops and I/O calls of one function in emission order.
class OrderedItems : public IoWalkObserver {
public:
  void loop(const Stmt *L) override { Loops.push_back(L); }
  void ioCall(const CallExpr *C, llvm::StringRef Callee) override {
    Calls.emplace_back(C, Callee.str());
  }
  std::vector<const Stmt *> Loops;
  std::vector<std::pair<const CallExpr *, std::string>> Calls;
};

class TranslationUnitInstrumenter {
public:
  TranslationUnitInstrumenter(ASTContext &Ctx, llvm::StringRef CompDir,
                              const InstrumentOptions &Opts, RewriteSet &Out)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        Diags(Ctx.getDiagnostics()), Gen(Ctx), Graph(Ctx), CompDir(CompDir),
        Opts(Opts), Out(Out), IsCxx(LO.CPlusPlus) {}

  bool run();

private:
  // --- Locations ---
  /// Absolute path of the file of \p Loc, "" if not rewritable (system
  /// header, outside the root, macro, built-in).
  std::string rewritableFile(SourceLocation Loc);
  bool rewritable(FileID FID);
  unsigned offset(SourceLocation Loc) { return SM.getFileOffset(Loc); }
  /// The character range of \p S in its file, with the `;` that ends it if it
  /// has one; invalid if the statement does not lie in one rewritable file.
  bool statementRange(const Stmt *S, SourceLocation &Begin,
                      SourceLocation &End);
  /// Normalized file, line and column of the expansion location of \p Loc,
  /// as the plugin computes them.
  bool idLocation(SourceLocation Loc, std::string &File, unsigned &Line,
                  unsigned &Column);

  // --- Edits ---
  void edit(SourceLocation Loc, std::string Text, int Order,
            unsigned Remove = 0);
  void formatRange(SourceLocation B, SourceLocation E);
  void warn(SourceLocation Loc, llvm::StringRef Msg);

  // --- Per function ---
  void instrumentFunction(const FunctionDecl *FD);
  void rewrite(const Stmt *S, int Depth);
  void wrapLoop(const Stmt *L, int Depth);
  void markIteration(const Stmt *Body, uint64_t Id, int Depth);
  void wrapSite(const CallExpr *CE, uint64_t Id, int Depth);
  void exitBeforeJump(const Stmt *Jump, llvm::ArrayRef<uint64_t> Exits,
                      int Depth);
  bool loopContains(const Stmt *Loop, const Stmt *Inner);
  bool callsNoReturnAsStatement(const Stmt *S);

  std::string tables();

  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  DiagnosticsEngine &Diags;
  ASTNameGenerator Gen;
  FunctionGraph Graph;
  std::string CompDir;
  const InstrumentOptions &Opts;
  RewriteSet &Out;
  bool IsCxx;

  llvm::DenseMap<FileID, bool> RewritableCache;
  std::set<std::string> EditedFiles;
  std::vector<SiteInfo> Sites;
  std::vector<LoopInfoRec> Loops;

  // State of the function being rewritten.
  const FunctionDecl *CurFn = nullptr;
  std::string CurFnName;
  llvm::DenseMap<const Stmt *, unsigned> LoopIndex;   // -> Loops
  llvm::DenseMap<const CallExpr *, uint64_t> SiteIds;
  llvm::DenseMap<const Stmt *, bool> LoopDoesIo;
  std::vector<const Stmt *> LoopStack; // instrumented loops around the walk
  llvm::DenseSet<SourceLocation::UIntTy> MacroSitesDone;
  unsigned ScopeCounter = 0;
};

bool TranslationUnitInstrumenter::rewritable(FileID FID) {
  auto [It, New] = RewritableCache.try_emplace(FID, false);
  if (!New)
    return It->second;
  if (FID.isInvalid() || SM.isInSystemHeader(SM.getLocForStartOfFile(FID)))
    return false;
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE)
    return false;
  llvm::SmallString<256> Abs(FE->getName());
  SM.getFileManager().makeAbsolutePath(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::StringRef Root = Opts.Root;
  bool Under = Abs.str().starts_with(Root) &&
               (Abs.size() == Root.size() || Root.ends_with("/") ||
                Abs[Root.size()] == '/');
  It->second = Under;
  return Under;
}

std::string TranslationUnitInstrumenter::rewritableFile(SourceLocation Loc) {
  if (Loc.isInvalid() || !Loc.isFileID())
    return {};
  FileID FID = SM.getFileID(Loc);
  if (!rewritable(FID))
    return {};
  llvm::SmallString<256> Abs(SM.getFileEntryRefForID(FID)->getName());
  SM.getFileManager().makeAbsolutePath(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs.str());
}

/// Whether a statement's text ends before its terminating `;`.
bool endsBeforeSemicolon(const Stmt *S) {
  if (!S)
    return false;
  if (isa<CompoundStmt>(S) || isa<NullStmt>(S) || isa<DeclStmt>(S) ||
      isa<CXXTryStmt>(S))
    return false;
  if (const auto *I = dyn_cast<IfStmt>(S))
    return endsBeforeSemicolon(I->getElse() ? I->getElse() : I->getThen());
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return endsBeforeSemicolon(W->getBody());
  if (const auto *F = dyn_cast<ForStmt>(S))
    return endsBeforeSemicolon(F->getBody());
  if (const auto *R = dyn_cast<CXXForRangeStmt>(S))
    return endsBeforeSemicolon(R->getBody());
  if (const auto *Sw = dyn_cast<SwitchStmt>(S))
    return endsBeforeSemicolon(Sw->getBody());
  if (const auto *L = dyn_cast<LabelStmt>(S))
    return endsBeforeSemicolon(L->getSubStmt());
  if (const auto *A = dyn_cast<AttributedStmt>(S))
    return endsBeforeSemicolon(A->getSubStmt());
  if (const auto *C = dyn_cast<SwitchCase>(S))
    return endsBeforeSemicolon(C->getSubStmt());
  return true; // expressions, do-while, return, break, continue, goto
}

bool TranslationUnitInstrumenter::statementRange(const Stmt *S,
                                                 SourceLocation &Begin,
                                                 SourceLocation &End) {
  Begin = SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation Last = SM.getExpansionRange(S->getEndLoc()).getEnd();
  if (Begin.isInvalid() || Last.isInvalid() ||
      SM.getFileID(Begin) != SM.getFileID(Last) ||
      rewritableFile(Begin).empty())
    return false;
  if (endsBeforeSemicolon(S)) {
    std::optional<Token> Semi = Lexer::findNextToken(Last, SM, LO);
    if (!Semi || !Semi->is(tok::semi) || !Semi->getLocation().isFileID())
      return false;
    End = Semi->getEndLoc();
  } else {
    End = Lexer::getLocForEndOfToken(Last, 0, SM, LO);
  }
  return End.isValid();
}

bool TranslationUnitInstrumenter::idLocation(SourceLocation Loc,
                                             std::string &File, unsigned &Line,
                                             unsigned &Column) {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return false;
  File = normalizeSourcePath(P.getFilename(), CompDir, CompDir);
  Line = P.getLine();
  Column = P.getColumn();
  return true;
}

void TranslationUnitInstrumenter::edit(SourceLocation Loc, std::string Text,
                                       int Order, unsigned Remove) {
  std::string File = rewritableFile(Loc);
  if (File.empty())
    return;
  EditedFiles.insert(File);
  if (!Out.add(File, {offset(Loc), Remove, std::move(Text), Order}))
    warn(Loc, "instrumented differently by two instantiations of one "
              "template; the ids follow the first");
}

void TranslationUnitInstrumenter::formatRange(SourceLocation B,
                                              SourceLocation E) {
  std::string File = rewritableFile(B);
  if (!File.empty())
    Out.addFormatRange(File, offset(B), offset(E));
}

void TranslationUnitInstrumenter::warn(SourceLocation Loc,
                                       llvm::StringRef Msg) {
  unsigned ID = Diags.getCustomDiagID(DiagnosticsEngine::Warning,
                                      "sio-instrument: %0");
  Diags.Report(Loc, ID) << Msg;
}

bool TranslationUnitInstrumenter::loopContains(const Stmt *Loop,
                                               const Stmt *Inner) {
  SourceLocation LB, LE;
  if (!statementRange(Loop, LB, LE))
    return false;
  SourceLocation I = SM.getExpansionLoc(Inner->getBeginLoc());
  return SM.getFileID(I) == SM.getFileID(LB) && offset(LB) <= offset(I) &&
         offset(I) < offset(LE);
}

void TranslationUnitInstrumenter::wrapSite(const CallExpr *CE, uint64_t Id,
                                           int Depth) {
  std::string Open = "(__sio_site(" + hexId(Id) + "), ";
  // The call spelled in the file, possibly as a macro argument.
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(CE->getSourceRange()), SM, LO);
  if (R.isValid() && !rewritableFile(R.getBegin()).empty()) {
    edit(R.getBegin(), Open, 2 * Depth);
    edit(R.getEnd(), ")", -2 * Depth);
    return;
  }
  // The call comes from a macro body: mark the macro's expansion, at the
  // outermost node that spans exactly that expansion.
  CharSourceRange Exp = SM.getExpansionRange(CE->getBeginLoc());
  if (!MacroSitesDone.insert(Exp.getBegin().getRawEncoding()).second) {
    warn(Exp.getBegin(), "this macro expands to several I/O calls; only the "
                         "first gets its site id");
    return;
  }
  const Stmt *Top = CE;
  int TopDepth = Depth;
  for (;;) {
    DynTypedNodeList Parents = Ctx.getParents(*Top);
    if (Parents.empty())
      break;
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P || SM.getExpansionRange(P->getSourceRange()).getAsRange() !=
                  Exp.getAsRange())
      break;
    Top = P;
    --TopDepth;
  }
  SourceLocation B, E;
  if (isa<Expr>(Top)) {
    B = Exp.getBegin();
    E = Lexer::getLocForEndOfToken(Exp.getEnd(), 0, SM, LO);
    if (rewritableFile(B).empty() || E.isInvalid())
      return;
    edit(B, Open, 2 * TopDepth);
    edit(E, ")", -2 * TopDepth);
  } else if (statementRange(Top, B, E)) {
    edit(B, "{ __sio_site(" + hexId(Id) + "); ", 2 * TopDepth);
    edit(E, " }", -2 * TopDepth);
    formatRange(B, E);
  }
}

void TranslationUnitInstrumenter::markIteration(const Stmt *Body, uint64_t Id,
                                                int Depth) {
  std::string Iter = "__sio_loop_iter(" + hexId(Id) + ");";
  if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
    SourceLocation L = CS->getLBracLoc();
    if (L.isFileID()) {
      edit(Lexer::getLocForEndOfToken(L, 0, SM, LO), " " + Iter,
           2 * Depth + 1);
      return;
    }
  }
  SourceLocation B, E;
  if (statementRange(Body, B, E)) {
    edit(B, "{ " + Iter + " ", 2 * Depth + 1);
    edit(E, " }", -2 * Depth - 1);
    formatRange(B, E);
  }
}

void TranslationUnitInstrumenter::wrapLoop(const Stmt *L, int Depth) {
  LoopInfoRec &Rec = Loops[LoopIndex.lookup(L)];
  const Stmt *Body = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(L))
    Body = F->getBody();
  else if (const auto *R = dyn_cast<CXXForRangeStmt>(L))
    Body = R->getBody();
  else if (const auto *W = dyn_cast<WhileStmt>(L))
    Body = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(L))
    Body = D->getBody();
  SourceLocation B, E;
  if (!L->getBeginLoc().isFileID() || !Body || !statementRange(L, B, E)) {
    warn(L->getBeginLoc(), "loop in a macro expansion is not instrumented "
                           "(the plugin's trace has markers for it)");
    return;
  }
  std::string Id = hexId(Rec.Id);
  if (IsCxx) {
    edit(B,
         "{ SioLoopScope sio_loop" + std::to_string(++ScopeCounter) + "(" + Id +
             "); ",
         2 * Depth);
    edit(E, " }", -2 * Depth);
  } else {
    edit(B, "{ __sio_loop_enter(" + Id + "); ", 2 * Depth);
    edit(E, " __sio_loop_exit(" + Id + "); }", -2 * Depth);
  }
  formatRange(B, E);
  markIteration(Body, Rec.Id, Depth);
  Rec.Rewritten = true;
}

/// C only: exits of the loops a return or goto leaves, innermost first,
/// after a return value is computed (it may do I/O itself).
void TranslationUnitInstrumenter::exitBeforeJump(const Stmt *Jump,
                                                 llvm::ArrayRef<uint64_t> Exits,
                                                 int Depth) {
  SourceLocation B, E;
  if (Exits.empty() || !statementRange(Jump, B, E))
    return;
  std::string ExitCalls;
  for (uint64_t Id : Exits)
    ExitCalls += "__sio_loop_exit(" + hexId(Id) + "); ";
  const auto *Ret = dyn_cast<ReturnStmt>(Jump);
  const Expr *Value = Ret ? Ret->getRetValue() : nullptr;
  IoFinder F(Graph);
  if (Value)
    IoBodyWalker(Ctx, Gen, F).walk(Value);
  if (Value && F.Found && !CurFn->getReturnType()->isVoidType()) {
    // `return v;` -> `{ T sio_ret = v; exits; return sio_ret; }`
    SourceLocation VEnd =
        Lexer::getLocForEndOfToken(SM.getExpansionRange(Value->getEndLoc()).getEnd(),
                                   0, SM, LO);
    PrintingPolicy PP(LO);
    std::string T = CurFn->getReturnType().getAsString(PP);
    edit(B, "{ " + T + " sio_ret =", 2 * Depth, /*Remove=*/6);
    edit(VEnd, "; " + ExitCalls + "return sio_ret", -2 * Depth);
  } else {
    edit(B, "{ " + ExitCalls, 2 * Depth);
  }
  edit(E, " }", -2 * Depth);
  formatRange(B, E);
}

bool TranslationUnitInstrumenter::callsNoReturnAsStatement(const Stmt *S) {
  const auto *CE = dyn_cast<CallExpr>(S);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->isNoReturn())
    return false;
  DynTypedNodeList Parents = Ctx.getParents(*CE);
  return !Parents.empty() && Parents[0].get<Stmt>() &&
         !isa<Expr>(Parents[0].get<Stmt>());
}

void TranslationUnitInstrumenter::rewrite(const Stmt *S, int Depth) {
  if (!S)
    return;
  if (const auto *LE = dyn_cast<LambdaExpr>(S)) {
    for (const Expr *Init : LE->capture_inits())
      rewrite(Init, Depth + 1);
    return; // the body is a function of its own
  }
  if (isa<BlockExpr>(S) || isa<CapturedStmt>(S))
    return;
  bool Pushed = false;
  if (LoopIndex.count(S) && LoopDoesIo.lookup(S)) {
    wrapLoop(S, Depth);
    LoopStack.push_back(S);
    Pushed = true;
  }
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (auto It = SiteIds.find(CE); It != SiteIds.end())
      wrapSite(CE, It->second, Depth);
  if (!LoopStack.empty() && callsNoReturnAsStatement(S)) {
    // `exit(1);` in a loop: its block is outside the loop in the IR, so the
    // plugin marks the exits before it; no destructor runs after it.
    std::vector<uint64_t> Exits;
    for (auto It = LoopStack.rbegin(); It != LoopStack.rend(); ++It)
      Exits.push_back(Loops[LoopIndex.lookup(*It)].Id);
    exitBeforeJump(S, Exits, Depth);
  } else if (!IsCxx && !LoopStack.empty()) {
    std::vector<uint64_t> Exits;
    if (isa<ReturnStmt>(S)) {
      for (auto It = LoopStack.rbegin(); It != LoopStack.rend(); ++It)
        Exits.push_back(Loops[LoopIndex.lookup(*It)].Id);
    } else if (const auto *G = dyn_cast<GotoStmt>(S)) {
      const LabelStmt *Target = G->getLabel()->getStmt();
      for (auto It = LoopStack.rbegin(); It != LoopStack.rend(); ++It)
        if (!Target || !loopContains(*It, Target))
          Exits.push_back(Loops[LoopIndex.lookup(*It)].Id);
    }
    exitBeforeJump(S, Exits, Depth);
  }
  for (const Stmt *Child : S->children())
    rewrite(Child, Depth + 1);
  if (Pushed)
    LoopStack.pop_back();
}

void TranslationUnitInstrumenter::instrumentFunction(const FunctionDecl *FD) {
  if (!FD->getBody() ||
      rewritableFile(SM.getExpansionLoc(FD->getBody()->getBeginLoc())).empty())
    return;
  OrderedItems Items;
  IoBodyWalker(Ctx, Gen, Items).walkFunction(FD);
  if (Items.Loops.empty() && Items.Calls.empty())
    return;
  CurFn = FD;
  CurFnName = symbolName(Gen, FD);
  LoopIndex.clear();
  SiteIds.clear();
  LoopDoesIo.clear();
  LoopStack.clear();

  // Loops doing I/O in the parts the IR puts inside the loop (not a for's
  // init, nor a range-for's range and iterators).
  llvm::DenseMap<uint64_t, unsigned> LoopIdUses;
  for (const Stmt *L : Items.Loops) {
    IoFinder F(Graph);
    IoBodyWalker W(Ctx, Gen, F);
    if (const auto *For = dyn_cast<ForStmt>(L)) {
      W.walk(For->getConditionVariableDeclStmt());
      W.walk(For->getCond());
      W.walk(For->getBody());
      W.walk(For->getInc());
    } else if (const auto *R = dyn_cast<CXXForRangeStmt>(L)) {
      W.walk(R->getCond());
      W.walk(R->getLoopVarStmt());
      W.walk(R->getBody());
      W.walk(R->getInc());
    } else if (const auto *Wh = dyn_cast<WhileStmt>(L)) {
      W.walk(Wh->getConditionVariableDeclStmt());
      W.walk(Wh->getCond());
      W.walk(Wh->getBody());
    } else if (const auto *D = dyn_cast<DoStmt>(L)) {
      W.walk(D->getBody());
      W.walk(D->getCond());
    }
    if (!F.Found)
      continue;
    LoopInfoRec Rec;
    Rec.Function = CurFnName;
    if (!idLocation(L->getBeginLoc(), Rec.File, Rec.Line, Rec.Column))
      continue;
    Rec.Id = loopId(Rec.File, Rec.Line, Rec.Column, CurFnName);
    if (unsigned N = LoopIdUses[Rec.Id]++)
      Rec.Id = disambiguate(Rec.Id, N);
    LoopIndex[L] = Loops.size();
    LoopDoesIo[L] = true;
    Loops.push_back(std::move(Rec));
  }
  // Parents: the nearest enclosing instrumented loop, by source containment.
  for (const Stmt *L : Items.Loops) {
    if (!LoopIndex.count(L))
      continue;
    const Stmt *Best = nullptr;
    for (const Stmt *P : Items.Loops)
      if (P != L && LoopIndex.count(P) && loopContains(P, L) &&
          (!Best || loopContains(Best, P)))
        Best = P;
    if (Best)
      Loops[LoopIndex[L]].ParentId = Loops[LoopIndex[Best]].Id;
  }

  llvm::DenseMap<uint64_t, unsigned> SiteIdUses;
  for (auto &[CE, Callee] : Items.Calls) {
    SiteInfo S;
    S.Function = CurFnName;
    S.Callee = Callee;
    if (!idLocation(CE->getExprLoc(), S.File, S.Line, S.Column))
      continue;
    S.Id = siteId(S.File, S.Line, S.Column, Callee);
    if (unsigned N = SiteIdUses[S.Id]++)
      S.Id = disambiguate(S.Id, N);
    // The innermost instrumented loop around the call: the loops containing
    // it are nested, so it is the one inside all the others.
    const Stmt *Inner = nullptr;
    for (const Stmt *L : Items.Loops)
      if (LoopIndex.count(L) && loopContains(L, CE) &&
          (!Inner || loopContains(Inner, L)))
        Inner = L;
    if (Inner)
      S.LoopId = Loops[LoopIndex[Inner]].Id;
    SiteIds[CE] = S.Id;
    Sites.push_back(std::move(S));
  }

  MacroSitesDone.clear();
  if (const auto *CD = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : CD->inits())
      rewrite(Init->getInit(), 1);
  rewrite(FD->getBody(), 1);
}

std::string TranslationUnitInstrumenter::tables() {
  std::string T;
  llvm::raw_string_ostream OS(T);
  OS << "\n/* sio-instrument: the call sites and loops instrumented above, "
        "registered\n   with the sio runtime at start-up (what siotrace.so "
        "emits as sections\n   sio_sites and sio_loops). */\n";
  std::vector<const LoopInfoRec *> Done;
  for (const LoopInfoRec &L : Loops)
    if (L.Rewritten)
      Done.push_back(&L);
  // A template instantiated twice has its sites twice.
  std::vector<const SiteInfo *> UniqueSites;
  std::set<uint64_t> SeenSites;
  for (const SiteInfo &S : Sites)
    if (SeenSites.insert(S.Id).second)
      UniqueSites.push_back(&S);
  OS << "static const SioSiteDesc sio_sites[] = {\n";
  for (const SiteInfo *SP : UniqueSites) {
    const SiteInfo &S = *SP;
    OS << "    {" << hexId(S.Id) << ", " << hexId(S.LoopId) << ", "
       << quoted(S.File) << ", " << quoted(S.Function) << ", "
       << quoted(S.Callee) << ", " << S.Line << ", " << S.Column << "},\n";
  }
  if (UniqueSites.empty())
    OS << "    {0, 0, \"\", \"\", \"\", 0, 0},\n";
  OS << "};\n";
  OS << "static const SioLoopDesc sio_loops[] = {\n";
  for (const LoopInfoRec *L : Done)
    OS << "    {" << hexId(L->Id) << ", " << hexId(L->ParentId) << ", "
       << quoted(L->File) << ", " << quoted(L->Function) << ", " << L->Line
       << ", " << L->Column << "},\n";
  if (Done.empty())
    OS << "    {0, 0, \"\", \"\", 0, 0},\n";
  OS << "};\n";
  std::string Call = "__sio_register_tables(SIO_ABI_VERSION, sio_sites, "
                     "sio_sites + " +
                     std::to_string(UniqueSites.size()) +
                     ", sio_loops, sio_loops + " + std::to_string(Done.size()) +
                     ")";
  if (IsCxx)
    OS << "static const int sio_tables_registered = (" << Call << ", 0);\n";
  else
    OS << "__attribute__((constructor)) static void sio_register(void) {\n  "
       << Call << ";\n}\n";
  return T;
}

/// Offset of the first `#include` of a file (where instrument.h goes: after
/// feature-test macros such as _GNU_SOURCE, which must precede every system
/// header), or 0.
unsigned firstIncludeOffset(const SourceManager &SM, FileID FID,
                            const LangOptions &LO) {
  llvm::StringRef Code = SM.getBufferData(FID);
  Lexer L(SM.getLocForStartOfFile(FID), LO, Code.begin(), Code.begin(),
          Code.end());
  Token T;
  while (!L.LexFromRawLexer(T)) {
    if (!T.is(tok::hash) || !T.isAtStartOfLine())
      continue;
    Token Name;
    L.LexFromRawLexer(Name);
    if (Name.is(tok::raw_identifier) && Name.getRawIdentifier() == "include")
      return SM.getFileOffset(T.getLocation());
  }
  return 0;
}

bool TranslationUnitInstrumenter::run() {
  Graph.TraverseAST(Ctx);
  Graph.computeFixedPoint();
  for (const FunctionDecl *FD : Graph.Functions)
    instrumentFunction(FD);

  FileID Main = SM.getMainFileID();
  std::string MainPath = rewritableFile(SM.getLocForStartOfFile(Main));
  if (MainPath.empty()) {
    unsigned ID = Diags.getCustomDiagID(
        DiagnosticsEngine::Error,
        "sio-instrument: %0 is not below the root directory %1 (see --root)");
    Diags.Report(ID) << SM.getFileEntryRefForID(Main)->getName() << Opts.Root;
    return false;
  }
  // Every rewritable file of the translation unit goes to the output, so
  // that rewritten sources find the headers they include.
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    FileID FID = SM.translateFile(It->first);
    if (FID.isValid() && rewritable(FID)) {
      llvm::SmallString<256> Abs(It->first.getName());
      SM.getFileManager().makeAbsolutePath(Abs);
      llvm::sys::path::remove_dots(Abs, true);
      Out.addUnchanged(Abs);
    }
  }
  EditedFiles.insert(MainPath);
  for (const std::string &File : EditedFiles) {
    FileID FID = SM.translateFile(*SM.getFileManager().getOptionalFileRef(File));
    llvm::StringRef Code = SM.getBufferData(FID);
    if (Code.contains("sio/instrument.h")) {
      unsigned ID = Diags.getCustomDiagID(
          DiagnosticsEngine::Error,
          "sio-instrument: %0 is already instrumented (it includes "
          "sio/instrument.h); instrument the original source");
      Diags.Report(ID) << File;
      return false;
    }
    Out.add(File, {firstIncludeOffset(SM, FID, LO), 0,
                   "#include <sio/instrument.h> /* sio-instrument */\n",
                   -1000000});
  }
  Out.setTrailer(MainPath, tables());
  if (Opts.Verbose) {
    for (const SiteInfo &S : Sites)
      llvm::errs() << "sio-instrument: site " << S.File << ":" << S.Line << ":"
                   << S.Column << " " << S.Callee << " in " << S.Function
                   << " id " << hexId(S.Id) << "\n";
    for (const LoopInfoRec &L : Loops)
      llvm::errs() << "sio-instrument: loop " << L.File << ":" << L.Line << ":"
                   << L.Column << " in " << L.Function << " id " << hexId(L.Id)
                   << (L.Rewritten ? "" : " (not rewritten)") << "\n";
  }
  return true;
}

} // namespace

bool instrumentTranslationUnit(ASTContext &Ctx, llvm::StringRef CompDir,
                               const InstrumentOptions &Opts, RewriteSet &Out) {
  return TranslationUnitInstrumenter(Ctx, CompDir, Opts, Out).run();
}

std::string applyRewrite(llvm::StringRef Path, llvm::StringRef Original,
                         const FileRewrite &R) {
  std::vector<SourceEdit> Edits = R.Edits;
  std::stable_sort(Edits.begin(), Edits.end());
  std::string Code;
  Code.reserve(Original.size() + 64 * Edits.size() + R.Trailer.size());
  unsigned Pos = 0;
  for (const SourceEdit &E : Edits) {
    if (E.Offset < Pos)
      continue; // inside text an earlier edit removed
    Code.append(Original.substr(Pos, E.Offset - Pos));
    Code += E.Text;
    Pos = E.Offset + E.RemoveLength;
  }
  Code.append(Original.substr(Pos));
  auto NewOffset = [&](unsigned Orig, bool AfterEdits) {
    // Where an original offset lands, before or after the edits made there.
    int64_t Shift = 0;
    for (const SourceEdit &E : Edits) {
      if (E.Offset > Orig || (E.Offset == Orig && !AfterEdits))
        break;
      Shift += static_cast<int64_t>(E.Text.size()) - E.RemoveLength;
    }
    return static_cast<unsigned>(Orig + Shift);
  };
  std::vector<tooling::Range> Ranges;
  for (const SourceEdit &E : Edits)
    Ranges.emplace_back(NewOffset(E.Offset, false),
                        static_cast<unsigned>(E.Text.size()));
  for (auto [B, E] : R.FormatRanges) {
    unsigned NB = NewOffset(B, false), NE = NewOffset(E, true);
    if (NE > NB)
      Ranges.emplace_back(NB, NE - NB);
  }
  if (!R.Trailer.empty()) {
    if (!Code.empty() && Code.back() != '\n')
      Code += '\n';
    Ranges.emplace_back(Code.size(), R.Trailer.size());
    Code += R.Trailer;
  }
  if (Ranges.empty())
    return Code;
  llvm::Expected<format::FormatStyle> Style =
      format::getStyle("file", Path, "LLVM", Code);
  format::FormatStyle S = format::getLLVMStyle();
  if (Style)
    S = *Style;
  else
    llvm::consumeError(Style.takeError());
  tooling::Replacements Fmt = format::reformat(S, Code, Ranges, Path);
  llvm::Expected<std::string> Formatted =
      tooling::applyAllReplacements(Code, Fmt);
  if (!Formatted) {
    llvm::consumeError(Formatted.takeError());
    return Code;
  }
  return *Formatted;
}

} // namespace sio
