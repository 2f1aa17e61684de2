//===- SourceInstrumenter.cpp - The plugin's instrumentation as source edits =//
#include "SourceInstrumenter.h"

#include "AstIoWalker.h"
#include "SiteIds.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "clang/Analysis/CFGStmtMap.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
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
class FunctionGraph : public EmittedFunctionVisitor<FunctionGraph> {
public:
  explicit FunctionGraph(ASTContext &Ctx) : Ctx(Ctx), Gen(Ctx) {}

  void visitDefinition(FunctionDecl *FD) {
    Collector C;
    IoBodyWalker(Ctx, Gen, C).walkFunction(FD);
    const FunctionDecl *Key = FD->getCanonicalDecl();
    Functions.push_back(FD);
    Callees[Key] = std::move(C.Callees);
    if (C.DoesIo)
      IoFunctions.insert(Key);
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

/// The calls in a statement, walked as CodeGen emits it, that do I/O
/// directly or through a function of the translation unit.
class IoFinder : public IoWalkObserver {
public:
  explicit IoFinder(const FunctionGraph &G) : G(G) {}
  void loop(const Stmt *) override {}
  void ioCall(const CallExpr *C, llvm::StringRef) override {
    Calls.push_back(C);
  }
  void call(const Expr *C, const FunctionDecl *Callee) override {
    if (G.doesIo(Callee))
      Calls.push_back(C);
  }
  std::vector<const Expr *> Calls;

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

/// Edits at one offset apply in this order within one AST depth; deeper
/// constructs open after and close before shallower ones (SourceEdit).
enum class EditKind {
  BodyIteration = 0, // `{ __sio_loop_iter(..);` around a loop body
  LoopScope = 1,     // the block around a loop
  LoopExit = 2,      // exits before a way out of a loop
  Site = 3,          // `(__sio_site(..), call)`
};

int openOrder(int Depth, EditKind K) { return 4 * Depth + int(K); }
int closeOrder(int Depth, EditKind K) { return -openOrder(Depth, K); }

const Stmt *loopBody(const Stmt *L) {
  if (const auto *F = dyn_cast<ForStmt>(L))
    return F->getBody();
  if (const auto *R = dyn_cast<CXXForRangeStmt>(L))
    return R->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(L))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(L))
    return D->getBody();
  return nullptr;
}

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
  /// The same for a file; computed once per file.
  const std::string &rewritablePath(FileID FID);
  unsigned offset(SourceLocation Loc) { return SM.getFileOffset(Loc); }
  /// The character range of \p S in its file, with the `;` that ends it if it
  /// has one; invalid if the statement does not lie in one rewritable file.
  bool statementRange(const Stmt *S, SourceLocation &Begin,
                      SourceLocation &End);
  /// Normalized file, line and column of the expansion location of \p Loc,
  /// as the plugin computes them.
  bool idLocation(SourceLocation Loc, std::string &File, unsigned &Line,
                  unsigned &Column);
  /// Whether \p Inner lies within the text of \p Outer.
  bool textContains(const Stmt *Outer, const Stmt *Inner);

  // --- Loops as the IR sees them ---
  /// Whether \p S, inside the text of loop \p L, is inside L's IR loop: its
  /// block can get back to L's condition. A statement that only leads out
  /// of L (`if (e) { write(..); break; }`, `return write(..);`) is not:
  /// the plugin marks L's exit before it and gives its sites no loop.
  bool inIrLoop(const Stmt *S, const Stmt *L);
  const CFGBlock *blockOf(const Stmt *S);
  bool reachesLoopBack(const CFGBlock *Start, const Stmt *L);
  /// The mangled name the plugin sees: constructors and destructors are
  /// emitted as their base-object variant, the complete one an alias.
  std::string irFunctionName(const FunctionDecl *FD);

  // --- Edits ---
  void edit(SourceLocation Loc, std::string Text, int Order,
            unsigned Remove = 0);
  void formatRange(SourceLocation B, SourceLocation E);
  void warn(SourceLocation Loc, llvm::StringRef Msg);

  // --- Per function ---
  void instrumentFunction(const FunctionDecl *FD);
  void rewrite(const Stmt *S, int Depth);
  bool openLoop(const Stmt *L, int Depth);
  void closeLoop(const Stmt *L, int Depth);
  void markIteration(const Stmt *Body, uint64_t Id, int Depth);
  void wrapSite(const CallExpr *CE, uint64_t Id, int Depth);
  /// Exits of \p Leaving (innermost first) before statement \p S.
  void exitBefore(const Stmt *S, llvm::ArrayRef<const Stmt *> Leaving,
                  int Depth);
  std::string exitCalls(llvm::ArrayRef<const Stmt *> Leaving);
  bool callsNoReturnAsStatement(const Stmt *S);
  bool inStatementPosition(const Stmt *S);

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

  llvm::DenseMap<FileID, std::string> RewritablePaths; // "" = not rewritable
  std::set<std::string> EditedFiles;
  std::vector<SiteInfo> Sites;
  std::vector<LoopInfoRec> Loops;

  // State of the function being rewritten.
  const FunctionDecl *CurFn = nullptr;
  std::string CurFnName;
  std::unique_ptr<CFG> Cfg;
  std::unique_ptr<ParentMap> Parents;
  std::unique_ptr<CFGStmtMap> StmtBlocks;
  llvm::DenseMap<std::pair<const CFGBlock *, const Stmt *>, bool> InLoopCache;
  llvm::DenseMap<const Stmt *, unsigned> LoopIndex;    // instrumented -> Loops
  llvm::DenseMap<const Stmt *, std::string> ScopeName; // C++ scope objects
  llvm::DenseSet<const Stmt *> NeedsDoneLabel;         // C: see rewrite()
  llvm::DenseMap<const CallExpr *, uint64_t> SiteIds;
  std::vector<const Stmt *> LoopStack;    // instrumented loops around the walk
  std::vector<const Stmt *> BreakTargets; // loops and switches around it
  llvm::DenseSet<const Stmt *> Exited;    // loops already marked as left
  llvm::DenseSet<SourceLocation::UIntTy> MacroSitesDone;
  unsigned ScopeCounter = 0;
};

const std::string &TranslationUnitInstrumenter::rewritablePath(FileID FID) {
  auto [It, New] = RewritablePaths.try_emplace(FID);
  if (!New || FID.isInvalid() ||
      SM.isInSystemHeader(SM.getLocForStartOfFile(FID)))
    return It->second;
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE)
    return It->second;
  llvm::SmallString<256> Abs(FE->getName());
  SM.getFileManager().makeAbsolutePath(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::StringRef Root = Opts.Root;
  if (Abs.str().starts_with(Root) &&
      (Abs.size() == Root.size() || Root.ends_with("/") ||
       Abs[Root.size()] == '/'))
    It->second = std::string(Abs.str());
  return It->second;
}

std::string TranslationUnitInstrumenter::rewritableFile(SourceLocation Loc) {
  if (Loc.isInvalid() || !Loc.isFileID())
    return {};
  return rewritablePath(SM.getFileID(Loc));
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

bool TranslationUnitInstrumenter::textContains(const Stmt *Outer,
                                               const Stmt *Inner) {
  SourceLocation OB = SM.getExpansionLoc(Outer->getBeginLoc());
  SourceLocation OE = SM.getExpansionRange(Outer->getEndLoc()).getEnd();
  SourceLocation I = SM.getExpansionLoc(Inner->getBeginLoc());
  if (OB.isInvalid() || OE.isInvalid() || I.isInvalid() ||
      SM.getFileID(OB) != SM.getFileID(I) ||
      SM.getFileID(OE) != SM.getFileID(I))
    return false;
  return offset(OB) <= offset(I) && offset(I) <= offset(OE);
}

std::string
TranslationUnitInstrumenter::irFunctionName(const FunctionDecl *FD) {
  std::unique_ptr<MangleContext> MC;
  GlobalDecl GD;
  if (const auto *CD = dyn_cast<CXXConstructorDecl>(FD))
    GD = GlobalDecl(CD, Ctor_Base);
  else if (const auto *DD = dyn_cast<CXXDestructorDecl>(FD))
    GD = GlobalDecl(DD, Dtor_Base);
  else
    return symbolName(Gen, FD);
  MC.reset(Ctx.createMangleContext());
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  MC->mangleName(GD, OS);
  return OS.str();
}

const CFGBlock *TranslationUnitInstrumenter::blockOf(const Stmt *S) {
  // Compound statements are not CFG elements: their first statement is
  // where control enters them.
  while (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    if (CS->body_empty())
      break;
    S = CS->body_front();
  }
  if (const auto *L = dyn_cast<LabelStmt>(S))
    S = L->getSubStmt();
  return StmtBlocks ? StmtBlocks->getBlock(S) : nullptr;
}

bool TranslationUnitInstrumenter::inIrLoop(const Stmt *S, const Stmt *L) {
  if (!textContains(L, S))
    return false;
  const Stmt *Body = loopBody(L);
  // The condition, increment and loop variable run on every iteration.
  if (!Body || !textContains(Body, S))
    return true;
  const CFGBlock *Start = blockOf(S);
  if (!Cfg || !Start)
    return true; // no CFG: fall back to the text
  auto [Cached, New] = InLoopCache.try_emplace({Start, L}, false);
  if (!New)
    return Cached->second;
  bool Result = reachesLoopBack(Start, L);
  InLoopCache[{Start, L}] = Result;
  return Result;
}

bool TranslationUnitInstrumenter::reachesLoopBack(const CFGBlock *Start,
                                                  const Stmt *L) {
  // Search forward for L's loop-back or condition block, through blocks of
  // L only: leaving L and coming back means passing its entry, which is no
  // way back in the IR loop.
  auto IsTarget = [&](const CFGBlock *B) {
    return B->getLoopTarget() == L || B->getTerminatorStmt() == L;
  };
  auto InsideL = [&](const CFGBlock *B) {
    if (const Stmt *Target = B->getLoopTarget()) // L's or a nested loop's
      return Target == L || textContains(L, Target);
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>())
        return textContains(L, CS->getStmt());
    if (const Stmt *T = B->getTerminatorStmt())
      return textContains(L, T);
    return B != &Cfg->getExit(); // an empty join block
  };
  llvm::SmallPtrSet<const CFGBlock *, 32> Seen;
  llvm::SmallVector<const CFGBlock *, 32> Work{Start};
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (!B || !Seen.insert(B).second)
      continue;
    if (IsTarget(B))
      return true;
    if (B != Start && !InsideL(B))
      continue;
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      if (const CFGBlock *N = Succ.getReachableBlock())
        Work.push_back(N);
  }
  return false;
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
  unsigned ID =
      Diags.getCustomDiagID(DiagnosticsEngine::Warning, "sio-instrument: %0");
  Diags.Report(Loc, ID) << Msg;
}

void TranslationUnitInstrumenter::wrapSite(const CallExpr *CE, uint64_t Id,
                                           int Depth) {
  std::string Open = "(__sio_site(" + hexId(Id) + "), ";
  // The call spelled in the file, possibly as a macro argument.
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(CE->getSourceRange()), SM, LO);
  if (R.isValid() && !rewritableFile(R.getBegin()).empty()) {
    edit(R.getBegin(), Open, openOrder(Depth, EditKind::Site));
    edit(R.getEnd(), ")", closeOrder(Depth, EditKind::Site));
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
    DynTypedNodeList Ps = Ctx.getParents(*Top);
    if (Ps.empty())
      break;
    const Stmt *P = Ps[0].get<Stmt>();
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
    edit(B, Open, openOrder(TopDepth, EditKind::Site));
    edit(E, ")", closeOrder(TopDepth, EditKind::Site));
  } else if (statementRange(Top, B, E)) {
    edit(B, "{ __sio_site(" + hexId(Id) + "); ",
         openOrder(TopDepth, EditKind::Site));
    edit(E, " }", closeOrder(TopDepth, EditKind::Site));
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
           openOrder(Depth, EditKind::BodyIteration));
      return;
    }
  }
  SourceLocation B, E;
  if (statementRange(Body, B, E)) {
    edit(B, "{ " + Iter + " ", openOrder(Depth, EditKind::BodyIteration));
    edit(E, " }", closeOrder(Depth, EditKind::BodyIteration));
    formatRange(B, E);
  }
}

bool TranslationUnitInstrumenter::openLoop(const Stmt *L, int Depth) {
  LoopInfoRec &Rec = Loops[LoopIndex.lookup(L)];
  const Stmt *Body = loopBody(L);
  SourceLocation B, E;
  if (!L->getBeginLoc().isFileID() || !Body || !statementRange(L, B, E)) {
    warn(L->getBeginLoc(), "loop in a macro expansion is not instrumented "
                           "(the plugin's trace has markers for it)");
    return false;
  }
  std::string Id = hexId(Rec.Id);
  if (IsCxx) {
    std::string Name = "sio_loop" + std::to_string(++ScopeCounter);
    ScopeName[L] = Name;
    edit(B, "{ SioLoopScope " + Name + "(" + Id + "); ",
         openOrder(Depth, EditKind::LoopScope));
  } else {
    edit(B, "{ __sio_loop_enter(" + Id + "); ",
         openOrder(Depth, EditKind::LoopScope));
  }
  formatRange(B, E);
  markIteration(Body, Rec.Id, Depth + 1);
  Rec.Rewritten = true;
  return true;
}

void TranslationUnitInstrumenter::closeLoop(const Stmt *L, int Depth) {
  SourceLocation B, E;
  if (!statementRange(L, B, E))
    return;
  std::string Close = " }";
  if (!IsCxx) {
    Close = " __sio_loop_exit(" + hexId(Loops[LoopIndex.lookup(L)].Id) + ");";
    // A `break` after this loop's exit was marked early jumps past the
    // normal exit marker (see rewrite()), to a label inside the block so
    // that the block stays one statement (`if (c) LOOP else ...`).
    if (NeedsDoneLabel.count(L))
      Close += " sio_loop" + std::to_string(LoopIndex.lookup(L)) + "_done:;";
    Close += " }";
  }
  edit(E, Close, closeOrder(Depth, EditKind::LoopScope));
}

std::string
TranslationUnitInstrumenter::exitCalls(llvm::ArrayRef<const Stmt *> Leaving) {
  std::string Calls;
  for (const Stmt *L : Leaving)
    Calls += IsCxx ? ScopeName.lookup(L) + ".exit(); "
                   : "__sio_loop_exit(" + hexId(Loops[LoopIndex.lookup(L)].Id) +
                         "); ";
  return Calls;
}

void TranslationUnitInstrumenter::exitBefore(
    const Stmt *S, llvm::ArrayRef<const Stmt *> Leaving, int Depth) {
  SourceLocation B, E;
  if (Leaving.empty() || !statementRange(S, B, E))
    return;
  edit(B, "{ " + exitCalls(Leaving), openOrder(Depth, EditKind::LoopExit));
  edit(E, " }", closeOrder(Depth, EditKind::LoopExit));
  formatRange(B, E);
}

bool TranslationUnitInstrumenter::inStatementPosition(const Stmt *S) {
  if (const Stmt *P = Parents ? Parents->getParent(S) : nullptr)
    return !isa<Expr>(P);
  return false;
}

bool TranslationUnitInstrumenter::callsNoReturnAsStatement(const Stmt *S) {
  const auto *CE = dyn_cast<CallExpr>(S);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  return FD && FD->isNoReturn() && inStatementPosition(S);
}

/// Rewrites \p S and below. Exits are marked where the plugin marks them:
///   * after a loop, for leaving it normally or by `break`;
///   * before a statement that leaves the IR loop and does I/O on its way
///     out (its I/O happens outside the loop in the plugin's trace); such a
///     `break` then jumps past the normal exit marker (C) or finds the scope
///     already exited (C++);
///   * in C, before a `return` or `goto` that leaves loops (C++ scopes mark
///     those on destruction), and in both
///     languages before a call to a noreturn function such as exit().
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

  // Loops this statement leaves early with I/O on the way out.
  std::vector<const Stmt *> LeftEarly;
  if (!LoopStack.empty() && (!isa<Expr>(S) || inStatementPosition(S))) {
    for (auto It = LoopStack.rbegin(); It != LoopStack.rend(); ++It) {
      if (Exited.count(*It) || inIrLoop(S, *It))
        break;
      LeftEarly.push_back(*It);
    }
    if (!LeftEarly.empty()) {
      IoFinder F(Graph);
      IoBodyWalker(Ctx, Gen, F).walk(S);
      if (F.Calls.empty())
        LeftEarly.clear(); // the exit marker after the loop is as good
    }
  }
  std::vector<const Stmt *> Active; // loops not yet marked as left
  for (auto It = LoopStack.rbegin(); It != LoopStack.rend(); ++It)
    if (!Exited.count(*It) &&
        std::find(LeftEarly.begin(), LeftEarly.end(), *It) == LeftEarly.end())
      Active.push_back(*It);

  if (!LeftEarly.empty()) {
    exitBefore(S, LeftEarly, Depth);
  } else if (!Active.empty() && callsNoReturnAsStatement(S)) {
    exitBefore(S, Active, Depth);
  } else if (!IsCxx && !Active.empty()) {
    // A return's value is computed outside the IR loop (the return block),
    // so exits come first; with I/O in the value it was LeftEarly above.
    if (isa<ReturnStmt>(S)) {
      exitBefore(S, Active, Depth);
    } else if (const auto *G = dyn_cast<GotoStmt>(S)) {
      const LabelStmt *Target = G->getLabel()->getStmt();
      std::vector<const Stmt *> Leaving;
      for (const Stmt *L : Active)
        if (!Target || !textContains(L, Target))
          Leaving.push_back(L);
      exitBefore(S, Leaving, Depth);
    }
  }
  if (!IsCxx && isa<BreakStmt>(S) && !BreakTargets.empty() &&
      Exited.count(BreakTargets.back())) {
    const Stmt *L = BreakTargets.back();
    SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
    if (B.isFileID()) {
      NeedsDoneLabel.insert(L);
      edit(B, "goto sio_loop" + std::to_string(LoopIndex.lookup(L)) + "_done",
           openOrder(Depth, EditKind::LoopExit), /*Remove=*/5);
    }
  }

  bool Opened = false;
  if (LoopIndex.count(S)) {
    Opened = openLoop(S, Depth);
    if (Opened)
      LoopStack.push_back(S);
  }
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (auto It = SiteIds.find(CE); It != SiteIds.end())
      wrapSite(CE, It->second, Depth);

  bool IsBreakTarget = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
                       isa<CXXForRangeStmt>(S) || isa<SwitchStmt>(S);
  if (IsBreakTarget)
    BreakTargets.push_back(S);
  for (const Stmt *L : LeftEarly)
    Exited.insert(L);
  for (const Stmt *Child : S->children())
    rewrite(Child, Depth + 1);
  for (const Stmt *L : LeftEarly)
    Exited.erase(L);
  if (IsBreakTarget)
    BreakTargets.pop_back();
  if (Opened) {
    LoopStack.pop_back();
    closeLoop(S, Depth);
  }
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
  CurFnName = irFunctionName(FD);
  LoopIndex.clear();
  ScopeName.clear();
  NeedsDoneLabel.clear();
  SiteIds.clear();
  LoopStack.clear();
  BreakTargets.clear();
  Exited.clear();
  InLoopCache.clear();
  StmtBlocks.reset();
  Cfg.reset();
  Parents = std::make_unique<ParentMap>(FD->getBody());
  if (!Items.Loops.empty()) {
    CFG::BuildOptions BO;
    Cfg = CFG::buildCFG(FD, FD->getBody(), &Ctx, BO);
    if (Cfg)
      StmtBlocks.reset(CFGStmtMap::Build(Cfg.get(), Parents.get()));
  }

  // Loops with I/O inside their IR loop: in the condition, the increment or
  // a part of the body from which the next iteration can be reached.
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
    bool DoesIo =
        llvm::any_of(F.Calls, [&](const Expr *C) { return inIrLoop(C, L); });
    if (!DoesIo)
      continue;
    LoopInfoRec Rec;
    Rec.Function = CurFnName;
    if (!idLocation(L->getBeginLoc(), Rec.File, Rec.Line, Rec.Column))
      continue;
    Rec.Id = loopId(Rec.File, Rec.Line, Rec.Column, CurFnName);
    if (unsigned N = LoopIdUses[Rec.Id]++)
      Rec.Id = disambiguate(Rec.Id, N);
    LoopIndex[L] = Loops.size();
    Loops.push_back(std::move(Rec));
  }
  // Parents: the nearest enclosing instrumented loop whose IR loop holds it.
  for (const Stmt *L : Items.Loops) {
    if (!LoopIndex.count(L))
      continue;
    const Stmt *Best = nullptr;
    for (const Stmt *P : Items.Loops)
      if (P != L && LoopIndex.count(P) && inIrLoop(L, P) &&
          (!Best || textContains(Best, P)))
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
    // The innermost instrumented loop whose IR loop holds the call: those
    // loops are nested, so it is the one inside all the others.
    const Stmt *Inner = nullptr;
    for (const Stmt *L : Items.Loops)
      if (LoopIndex.count(L) && inIrLoop(CE, L) &&
          (!Inner || textContains(Inner, L)))
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
    const std::string &Path = rewritablePath(SM.translateFile(It->first));
    if (!Path.empty())
      Out.addUnchanged(Path);
  }
  EditedFiles.insert(MainPath);
  for (const std::string &File : EditedFiles) {
    FileID FID =
        SM.translateFile(*SM.getFileManager().getOptionalFileRef(File));
    llvm::StringRef Code = SM.getBufferData(FID);
    if (Code.contains("sio/instrument.h")) {
      unsigned ID = Diags.getCustomDiagID(
          DiagnosticsEngine::Error,
          "sio-instrument: %0 is already instrumented (it includes "
          "sio/instrument.h); instrument the original source");
      Diags.Report(ID) << File;
      return false;
    }
    Out.add(File,
            {firstIncludeOffset(SM, FID, LO), 0,
             "#include <sio/instrument.h> /* sio-instrument */\n", -1000000});
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
