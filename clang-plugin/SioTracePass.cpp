//===- SioTracePass.cpp - Call-site ids and loop markers around I/O -------===//
//
// See SioTracePass.h and docs/plugin.md. The shape follows LLVM's
// SanitizerCoverage: a thin PassInfoMixin, a worker that returns whether it
// changed anything, static descriptor tables in named sections registered by
// one module constructor, runtime entry points declared once per module.
//
//===----------------------------------------------------------------------===//
#include "Compat.h" // first: forces STATISTIC on

#include "AstLocations.h"
#include "SioTracePass.h"
#include "SiteIds.h"

#include "sio/siotrace_abi.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace llvm;

#define DEBUG_TYPE "siotrace"

STATISTIC(NumSites, "Number of I/O call sites instrumented");
STATISTIC(NumLoops, "Number of loops instrumented");
STATISTIC(NumFunctionsSkipped,
          "Number of defined functions skipped (runtime, interposers, naked, "
          "available_externally, allow/deny lists)");
STATISTIC(NumCallsMadeInvokes,
          "Number of may-throw calls in loops given an exit-marker cleanup");
STATISTIC(NumSitesWithoutLocation,
          "Number of sites whose id fell back to function+ordinal");

namespace {

// Runtime entry points (runtime/include/sio/siotrace_abi.h).
constexpr char SiteFnName[] = "__sio_site";
constexpr char LoopEnterFnName[] = "__sio_loop_enter";
constexpr char LoopIterFnName[] = "__sio_loop_iter";
constexpr char LoopExitFnName[] = "__sio_loop_exit";
constexpr char RegisterFnName[] = "__sio_register_tables";
constexpr char CtorName[] = "sio.module_ctor";
constexpr char SitesSection[] = "sio_sites";
constexpr char LoopsSection[] = "sio_loops";
constexpr char DoneMetadata[] = "sio.instrumented";
constexpr int CtorPriority = 1; // before C++ static initializers doing I/O

cl::opt<bool> ClOff("siotrace-off", cl::desc("siotrace: instrument nothing"),
                    cl::Hidden, cl::init(false));
cl::opt<bool> ClVerbose("siotrace-verbose",
                        cl::desc("siotrace: print a summary per module"),
                        cl::Hidden, cl::init(false));
cl::opt<std::string>
    ClAllow("siotrace-allow",
            cl::desc("siotrace: only instrument functions matching one of "
                     "these comma-separated regexes"),
            cl::Hidden);
cl::opt<std::string>
    ClDeny("siotrace-deny",
           cl::desc("siotrace: never instrument functions matching one of "
                    "these comma-separated regexes"),
           cl::Hidden);

static_assert(sizeof(SioSiteDesc) == 48 && sizeof(SioLoopDesc) == 40,
              "descriptor layout below assumes LP64");

/// A warning from the pass; Clang prints it as a backend-plugin diagnostic.
class SioDiagnostic : public DiagnosticInfo {
public:
  SioDiagnostic(const Twine &Msg, DiagnosticSeverity Sev)
      : DiagnosticInfo(kind(), Sev), Msg(Msg.str()) {}
  void print(DiagnosticPrinter &DP) const override { DP << Msg; }

private:
  static int kind() {
    static const int K = getNextAvailablePluginDiagnosticKind();
    return K;
  }
  std::string Msg;
};

enum class Layer { MPIIO, POSIX, STDIO, SYNC };

/// The Fortran bindings of one MPI function of IoCalls.def, as MPICH 4.0's
/// libmpichfort exports them (docs/fortran.md): mpi_file_write_at_ (flang's
/// and gfortran's default), mpi_file_write_at (-fno-underscoring),
/// mpi_file_write_at__ (g77's second underscore) and MPI_FILE_WRITE_AT
/// (upper-case compilers). All four are one function that converts the
/// handles and calls the C function through the PLT, so the runtime's
/// wrapper of the C function sees the call and takes the site marked before
/// it. Not the mpi_f08 link names (mpi_file_write_at_f08ts_, ..._f08_):
/// MPICH 4.0 implements them on PMPI_ and MPIR_ entry points the runtime
/// does not intercept, so a site marked before one would stay pending and
/// be taken by the next intercepted call.
void addFortranBindings(StringMap<Layer> &T, StringRef CName, Layer L) {
  if (!CName.starts_with("MPI_"))
    return; // POSIX and stdio have no Fortran bindings
  std::string Lower = CName.lower();
  T[Lower] = L;
  T[Lower + "_"] = L;
  T[Lower + "__"] = L;
  T[CName.upper()] = L;
}

/// Every name the pass marks: the C symbols of IoCalls.def (the one list)
/// and, derived from them, the profiling names of its MPI functions
/// (PMPI_File_open: the runtime records an application's PMPI_ call like
/// the MPI_ one, docs/runtime.md "Programs that call PMPI_ names") and their
/// Fortran bindings.
const StringMap<Layer> &ioCallTable() {
  static const StringMap<Layer> Table = [] {
    StringMap<Layer> T;
#define SIO_IO_CALL(NAME, LAYER, ...) T[#NAME] = Layer::LAYER;
#include "sio/IoCalls.def"
    SmallVector<std::pair<std::string, Layer>, 128> CNames;
    for (const auto &E : T)
      CNames.push_back({E.getKey().str(), E.getValue()});
    for (const auto &[Name, L] : CNames) {
      addFortranBindings(T, Name, L);
      if (StringRef(Name).starts_with("MPI_"))
        T["P" + Name] = L;
    }
    return T;
  }();
  return Table;
}

StringRef symbolName(const Function &F) {
  StringRef N = F.getName();
  N.consume_front("\1");
  return N;
}

bool isIoFunction(const Function *F) {
  return F && !F->isIntrinsic() && ioCallTable().count(symbolName(*F));
}

/// The module's compile units, including the NoDebug ones of location
/// tracking without DWARF (Module::debug_compile_units() skips those).
SmallVector<const DICompileUnit *, 1> compileUnits(const Module &M) {
  SmallVector<const DICompileUnit *, 1> CUs;
  if (const NamedMDNode *N = M.getNamedMetadata("llvm.dbg.cu"))
    for (const MDNode *Op : N->operands())
      if (const auto *CU = dyn_cast<DICompileUnit>(Op))
        CUs.push_back(CU);
  return CUs;
}

/// A module flang produced: flang 19 names every module "FIRModule"; with
/// locations its compile unit says Fortran too.
bool isFortranModule(const Module &M) {
  if (M.getSourceFileName() == "FIRModule")
    return true;
  for (const DICompileUnit *CU : compileUnits(M))
    switch (CU->getSourceLanguage()) {
    case dwarf::DW_LANG_Fortran77:
    case dwarf::DW_LANG_Fortran90:
    case dwarf::DW_LANG_Fortran95:
    case dwarf::DW_LANG_Fortran03:
    case dwarf::DW_LANG_Fortran08:
      return true;
    default:
      break;
    }
  return false;
}

/// The source file a module comes from, for messages: flang names every
/// module "FIRModule", its compile unit (with line tables) knows the file.
std::string moduleDisplayName(const Module &M) {
  if (M.getSourceFileName() == "FIRModule")
    for (const DICompileUnit *CU : compileUnits(M))
      return CU->getFilename().str();
  return M.getSourceFileName();
}

bool isRuntimeFunction(const Function &F) {
  StringRef N = symbolName(F);
  return N.starts_with("__sio_") || N.starts_with("sio_rt_") ||
         N.starts_with("sio.");
}

Function *calledFunction(const CallBase &CB) {
  return dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
}

/// True for instructions that count as "doing something" when deciding
/// where a loop's condition ends (see chooseIterationBlock).
bool isRealCall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  return CB && !isa<IntrinsicInst>(CB);
}

std::vector<Regex> parseRegexList(StringRef List, LLVMContext &Ctx,
                                  StringRef What) {
  std::vector<Regex> Out;
  // Split at commas outside (), [] and {} (escaped or not) so that demangled
  // names such as "write_all\(int, char const\*\)" and character classes
  // stay whole; "\," is a comma inside one pattern.
  SmallVector<StringRef, 8> Parts;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < List.size(); ++I) {
    char C = List[I];
    if (C == '\\' && I + 1 < List.size() && List[I + 1] == ',') {
      ++I; // "\," is a literal comma
      continue;
    }
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if ((C == ')' || C == ']' || C == '}') && Depth > 0)
      --Depth;
    else if (C == ',' && Depth == 0) {
      Parts.push_back(List.slice(Start, I));
      Start = I + 1;
    }
  }
  Parts.push_back(List.substr(Start));
  for (StringRef P : Parts) {
    P = P.trim();
    if (P.empty())
      continue;
    Regex R(("^(" + P + ")$").str());
    std::string Err;
    if (!R.isValid(Err)) {
      Ctx.diagnose(SioDiagnostic(Twine("siotrace: invalid ") + What +
                                     " pattern '" + P + "': " + Err,
                                 DS_Warning));
      continue;
    }
    Out.push_back(std::move(R));
  }
  return Out;
}

/// One marker to place on a CFG edge.
struct EdgeMarker {
  enum Kind { Exit = 0, Enter = 1 } K;
  unsigned Depth;
  uint64_t Id;
};

struct LoopRecord {
  Loop *L = nullptr;
  uint64_t Id = 0;
  uint64_t ParentId = 0;
  std::string File;
  unsigned Line = 0, Column = 0;
  BasicBlock *BodyStart = nullptr;
  DebugLoc Loc;
};

struct SiteRecord {
  uint64_t Id, LoopId;
  std::string File, Function, Callee;
  unsigned Line, Column;
};

struct LoopTableEntry {
  uint64_t Id, ParentId;
  std::string File, Function;
  unsigned Line, Column;
};

class SioTraceInstrumenter {
public:
  SioTraceInstrumenter(Module &M, const sio::SioTraceOptions &Opts)
      : M(M), Ctx(M.getContext()), Opts(Opts) {}

  bool instrumentModule();

private:
  void declareRuntime();
  void computeIoFunctions();
  bool shouldSkip(const Function &F) const;
  bool instrumentFunction(Function &F);
  BasicBlock *chooseIterationBlock(Loop *L, DominatorTree &DT, LoopInfo &LI);
  std::string compDirFor(const DILocation *DL) const;
  void insertEdgeMarkers(BasicBlock *From, BasicBlock *To,
                         ArrayRef<EdgeMarker> Markers, const DebugLoc &DL);
  void insertMarkersAt(BasicBlock::iterator IP, ArrayRef<EdgeMarker> Markers,
                       const DebugLoc &DL);
  void handleUnwindExits(
      Function &F,
      MapVector<BasicBlock *,
                MapVector<BasicBlock *, SmallVector<EdgeMarker, 4>>> &PadExits);
  void convertMayThrowCalls(
      Function &F, ArrayRef<std::pair<CallInst *, SmallVector<uint64_t, 4>>>);
  Constant *stringConstant(StringRef S);
  void emitTables();

  Module &M;
  LLVMContext &Ctx;
  const sio::SioTraceOptions &Opts;
  std::vector<Regex> AllowRes, DenyRes;

  FunctionCallee SiteFn, EnterFn, IterFn, ExitFn;
  SmallPtrSet<const Function *, 32> IoFunctions;
  std::vector<SiteRecord> Sites;
  std::vector<LoopTableEntry> Loops;
  StringMap<Constant *> Strings;
  DenseMap<uint64_t, unsigned> LoopIdUses;
  unsigned FunctionsInstrumented = 0, FunctionsSkipped = 0;
  bool SawMissingLocation = false;
  bool Fortran = false; // flang's module: no exceptions to unwind loops
};

void SioTraceInstrumenter::declareRuntime() {
  Type *VoidTy = Type::getVoidTy(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  AttributeList Attrs =
      AttributeList().addFnAttribute(Ctx, Attribute::NoUnwind);
  SiteFn = M.getOrInsertFunction(SiteFnName, Attrs, VoidTy, I64);
  EnterFn = M.getOrInsertFunction(LoopEnterFnName, Attrs, VoidTy, I64);
  IterFn = M.getOrInsertFunction(LoopIterFnName, Attrs, VoidTy, I64);
  ExitFn = M.getOrInsertFunction(LoopExitFnName, Attrs, VoidTy, I64);
}

bool SioTraceInstrumenter::shouldSkip(const Function &F) const {
  if (isRuntimeFunction(F) || isIoFunction(&F) ||
      F.hasAvailableExternallyLinkage() || F.hasFnAttribute(Attribute::Naked) ||
      F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation))
    return true;
  if (AllowRes.empty() && DenyRes.empty())
    return false;
  std::string Mangled = F.getName().str();
  std::string Demangled = demangle(Mangled);
  auto Matches = [&](const std::vector<Regex> &Res) {
    for (const Regex &R : Res)
      if (R.match(Mangled) || R.match(Demangled))
        return true;
    return false;
  };
  if (!AllowRes.empty() && !Matches(AllowRes))
    return true;
  return Matches(DenyRes);
}

/// Functions of this module that call an I/O function, directly or through
/// other functions of this module (direct calls only; fixed point).
void SioTraceInstrumenter::computeIoFunctions() {
  DenseMap<const Function *, SmallVector<const Function *, 4>> Callers;
  SmallVector<const Function *, 32> Work;
  for (Function &F : M) {
    if (F.isDeclaration() || isRuntimeFunction(F))
      continue;
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      Function *Callee = calledFunction(*CB);
      if (!Callee)
        continue;
      if (isIoFunction(Callee)) {
        if (IoFunctions.insert(&F).second)
          Work.push_back(&F);
      } else if (!Callee->isDeclaration()) {
        Callers[Callee].push_back(&F);
      }
    }
  }
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    for (const Function *C : Callers.lookup(F))
      if (IoFunctions.insert(C).second)
        Work.push_back(C);
  }
}

std::string SioTraceInstrumenter::compDirFor(const DILocation *DL) const {
  if (DL)
    if (DISubprogram *SP = DL->getScope()->getSubprogram())
      if (DICompileUnit *CU = SP->getUnit())
        return CU->getDirectory().str();
  for (DICompileUnit *CU : M.debug_compile_units())
    return CU->getDirectory().str();
  return "";
}

/// Where __sio_loop_iter goes so that it runs once per executed body.
///
///   * A loop with an exiting latch is bottom-tested (do-while, or a loop
///     already rotated): every execution of the header starts a body.
///   * Otherwise the loop is top-tested (for, while): its condition is the
///     dominator-tree path from the header down to the first block that
///     leaves the loop, provided the blocks before that one contain no calls
///     (`while (i < n && ok)` is a phi at -O0 and -O2 pipeline start). The
///     body starts at the next block of that path, so the header runs n+1
///     times and the marker n times. A call in the header belongs to the
///     condition (`while ((n = read(fd, b, s)) > 0)`); `for (;;)` and
///     `while (1)` have no condition block in Clang's IR, so an exit test at
///     the top of their body counts as their condition.
///   * Anything else: the header.
BasicBlock *SioTraceInstrumenter::chooseIterationBlock(Loop *L,
                                                       DominatorTree &DT,
                                                       LoopInfo &LI) {
  BasicBlock *H = L->getHeader();
  SmallVector<BasicBlock *, 4> Latches;
  L->getLoopLatches(Latches);
  if (Latches.empty())
    return H;
  for (BasicBlock *Latch : Latches)
    if (L->isLoopExiting(Latch))
      return H;
  BasicBlock *NCD = Latches.front();
  for (BasicBlock *B : drop_begin(Latches))
    NCD = DT.findNearestCommonDominator(NCD, B);
  SmallVector<BasicBlock *, 8> Chain;
  for (DomTreeNode *N = DT.getNode(NCD); N; N = N->getIDom()) {
    Chain.push_back(N->getBlock());
    if (N->getBlock() == H)
      break;
  }
  if (Chain.empty() || Chain.back() != H)
    return H;
  std::reverse(Chain.begin(), Chain.end());

  auto HasCall = [](BasicBlock *B) { return any_of(*B, isRealCall); };
  int Cond = -1; // index of the block that ends the condition
  for (unsigned I = 0; I < Chain.size(); ++I) {
    if (L->isLoopExiting(Chain[I])) {
      Cond = I;
      break;
    }
    if (HasCall(Chain[I]))
      break;
  }
  if (Cond < 0 || Cond + 1 >= (int)Chain.size())
    return H;
  BasicBlock *Body = Chain[Cond + 1];
  // The body start must execute once per iteration of L: not inside (or the
  // header of) an inner loop.
  if (LI.getLoopFor(Body) != L || Body->isEHPad())
    return H;
  return Body;
}

void SioTraceInstrumenter::insertMarkersAt(BasicBlock::iterator IP,
                                           ArrayRef<EdgeMarker> Markers,
                                           const DebugLoc &DL) {
  IRBuilder<> B(IP->getParent(), IP);
  B.SetCurrentDebugLocation(DL);
  for (const EdgeMarker &EM : Markers)
    B.CreateCall(EM.K == EdgeMarker::Exit ? ExitFn : EnterFn,
                 {B.getInt64(EM.Id)});
}

void SioTraceInstrumenter::insertEdgeMarkers(BasicBlock *From, BasicBlock *To,
                                             ArrayRef<EdgeMarker> Markers,
                                             const DebugLoc &DL) {
  Instruction *TI = From->getTerminator();
  if (isa<BranchInst>(TI) || isa<SwitchInst>(TI)) {
    if (From->getUniqueSuccessor() == To) {
      insertMarkersAt(TI->getIterator(), Markers, DL);
      return;
    }
  }
  if (To->getUniquePredecessor() == From && !To->isEHPad()) {
    insertMarkersAt(To->getFirstInsertionPt(), Markers, DL);
    return;
  }
  unsigned SuccNum = 0;
  for (unsigned E = TI->getNumSuccessors(); SuccNum < E; ++SuccNum)
    if (TI->getSuccessor(SuccNum) == To)
      break;
  BasicBlock *NewBB = SplitCriticalEdge(
      TI, SuccNum, CriticalEdgeSplittingOptions().setMergeIdenticalEdges(),
      "sio.edge");
  if (!NewBB) {
    Ctx.diagnose(SioDiagnostic(
        "siotrace: cannot split an edge in '" + From->getParent()->getName() +
            "' (indirect branch?); a loop marker is missing there",
        DS_Warning));
    return;
  }
  insertMarkersAt(NewBB->getFirstInsertionPt(), Markers, DL);
}

/// Exit markers on unwind edges: the landing pad is shared by several
/// invokes, possibly from different loops, so give each group of invokes with
/// the same exit sequence its own copy of the pad.
void SioTraceInstrumenter::handleUnwindExits(
    Function &F,
    MapVector<BasicBlock *, MapVector<BasicBlock *, SmallVector<EdgeMarker, 4>>>
        &PadExits) {
  for (auto &[Pad, PredMarkers] : PadExits) {
    if (!isa<LandingPadInst>(Pad->getFirstNonPHI())) {
      Ctx.diagnose(SioDiagnostic(
          "siotrace: funclet-based exception handling in '" + F.getName() +
              "' is not supported; loop exits by unwinding are not marked",
          DS_Warning));
      continue;
    }
    // Group predecessors by their marker sequence.
    auto Key = [](ArrayRef<EdgeMarker> Ms) {
      SmallVector<uint64_t, 8> K;
      for (const EdgeMarker &EM : Ms)
        K.push_back(EM.Id);
      return K;
    };
    SmallVector<
        std::pair<SmallVector<uint64_t, 8>, SmallVector<BasicBlock *, 4>>, 4>
        Groups;
    SmallVector<BasicBlock *, 8> AllPreds(predecessors(Pad));
    // Deduplicate while keeping order.
    SmallVector<BasicBlock *, 8> Preds;
    SmallPtrSet<BasicBlock *, 8> Seen;
    for (BasicBlock *P : AllPreds)
      if (Seen.insert(P).second)
        Preds.push_back(P);
    for (BasicBlock *P : Preds) {
      SmallVector<uint64_t, 8> K;
      auto It = PredMarkers.find(P);
      if (It != PredMarkers.end())
        K = Key(It->second);
      auto G = find_if(Groups, [&](auto &Gr) { return Gr.first == K; });
      if (G == Groups.end())
        Groups.push_back({K, {P}});
      else
        G->second.push_back(P);
    }
    BasicBlock *CurPad = Pad;
    size_t Remaining = Preds.size();
    for (auto &[K, GPreds] : Groups) {
      if (K.empty())
        continue;
      SmallVector<EdgeMarker, 4> Ms = PredMarkers.find(GPreds.front())->second;
      DebugLoc DL = GPreds.front()->getTerminator()->getDebugLoc();
      if (Remaining == GPreds.size()) {
        // Every predecessor still on CurPad has this sequence.
        insertMarkersAt(CurPad->getFirstInsertionPt(), Ms, DL);
        break;
      }
      SmallVector<BasicBlock *, 2> NewBBs;
      SplitLandingPadPredecessors(CurPad, GPreds, ".sio", ".sio.rest", NewBBs);
      insertMarkersAt(NewBBs[0]->getFirstInsertionPt(), Ms, DL);
      Remaining -= GPreds.size();
      if (NewBBs.size() > 1)
        CurPad = NewBBs[1];
    }
  }
}

/// In a function that may unwind, a call that throws inside an instrumented
/// loop leaves the loop without passing an exit edge. Turn such calls into
/// invokes whose cleanup pad emits the exit markers and resumes unwinding.
void SioTraceInstrumenter::convertMayThrowCalls(
    Function &F,
    ArrayRef<std::pair<CallInst *, SmallVector<uint64_t, 4>>> Calls) {
  if (Calls.empty())
    return;
  Type *LPadTy =
      StructType::get(PointerType::getUnqual(Ctx), Type::getInt32Ty(Ctx));
  if (!F.hasPersonalityFn()) {
    Function *Pers = nullptr;
    for (Function &G : M)
      if (G.hasPersonalityFn()) {
        Pers = dyn_cast<Function>(G.getPersonalityFn()->stripPointerCasts());
        if (Pers)
          break;
      }
    if (!Pers) {
      bool IsCxx =
          any_of(M, [](Function &G) { return G.getName().starts_with("_Z"); });
      FunctionCallee PC = M.getOrInsertFunction(
          IsCxx ? "__gxx_personality_v0" : "__gcc_personality_v0",
          FunctionType::get(Type::getInt32Ty(Ctx), true));
      Pers = dyn_cast<Function>(PC.getCallee());
    }
    if (!Pers)
      return;
    F.setPersonalityFn(Pers);
  } else {
    // Use the type of an existing landing pad, if any.
    for (BasicBlock &BB : F)
      if (auto *LP = dyn_cast<LandingPadInst>(BB.getFirstNonPHI())) {
        LPadTy = LP->getType();
        break;
      }
  }
  std::map<SmallVector<uint64_t, 4>, BasicBlock *> Pads;
  for (auto &[CI, Exits] : Calls) {
    BasicBlock *&Pad = Pads[Exits];
    if (!Pad) {
      Pad = BasicBlock::Create(Ctx, "sio.unwind", &F);
      IRBuilder<> B(Pad);
      B.SetCurrentDebugLocation(CI->getDebugLoc());
      LandingPadInst *LP = B.CreateLandingPad(LPadTy, 0);
      LP->setCleanup(true);
      for (uint64_t Id : Exits)
        B.CreateCall(ExitFn, {B.getInt64(Id)});
      B.CreateResume(LP);
    }
    changeToInvokeAndSplitBasicBlock(CI, Pad);
    ++NumCallsMadeInvokes;
  }
}

bool SioTraceInstrumenter::instrumentFunction(Function &F) {
  // I/O sites and calls into I/O-doing functions.
  SmallVector<CallBase *, 16> IoSites;
  SmallPtrSet<BasicBlock *, 16> IoBlocks;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        Function *Callee = calledFunction(*CB);
        if (isIoFunction(Callee)) {
          IoSites.push_back(CB);
          IoBlocks.insert(&BB);
        } else if (Callee && IoFunctions.count(Callee)) {
          IoBlocks.insert(&BB);
        }
      }
  if (IoBlocks.empty())
    return false;

  OptimizationRemarkEmitter ORE(&F);
  DominatorTree DT(F);
  LoopInfo LI(DT);
  StringRef FnName = F.getName();

  // Loops to instrument: those containing an I/O block, at every level.
  SmallPtrSet<Loop *, 8> Instr;
  for (BasicBlock *BB : IoBlocks)
    for (Loop *L = LI.getLoopFor(BB); L; L = L->getParentLoop())
      Instr.insert(L);

  // Locations recorded by the frontend for IR without debug locations
  // (clang -fplugin without -g), used only when the function's I/O calls and
  // loops line up exactly with the AST's (AstLocations.h).
  const sio::AstLocationTable &AstTable = sio::astLocations();
  const sio::AstFunctionLocations *Ast = nullptr;
  if (AstTable.Valid) {
    auto It = AstTable.Functions.find(FnName);
    if (It != AstTable.Functions.end())
      Ast = &It->second;
  }
  bool AstSitesMatch = false;
  DenseMap<Loop *, const sio::AstLocation *> AstLoopFor;
  if (Ast) {
    AstSitesMatch = Ast->Sites.size() == IoSites.size();
    for (unsigned I = 0; AstSitesMatch && I < IoSites.size(); ++I)
      AstSitesMatch =
          Ast->Sites[I].Callee == symbolName(*calledFunction(*IoSites[I]));
    // Clang creates a loop's header block when it emits the loop statement,
    // so header order in the function is the statements' emission order.
    DenseMap<const BasicBlock *, unsigned> BlockIndex;
    for (BasicBlock &BB : F)
      BlockIndex[&BB] = BlockIndex.size();
    SmallVector<Loop *, 8> ByHeader(LI.getLoopsInPreorder());
    llvm::sort(ByHeader, [&](Loop *A, Loop *B) {
      return BlockIndex[A->getHeader()] < BlockIndex[B->getHeader()];
    });
    if (ByHeader.size() == Ast->Loops.size())
      for (unsigned I = 0; I < ByHeader.size(); ++I)
        AstLoopFor[ByHeader[I]] = &Ast->Loops[I];
  }

  DenseMap<Loop *, LoopRecord> Recs;
  unsigned LoopOrdinal = 0;
  for (Loop *L : LI.getLoopsInPreorder()) {
    ++LoopOrdinal;
    if (!Instr.count(L))
      continue;
    if (L->getHeader()->isEHPad()) {
      Instr.erase(L);
      continue;
    }
    LoopRecord R;
    R.L = L;
    R.Loc = L->getStartLoc();
    if (const DILocation *DL = R.Loc.get()) {
      R.File = sio::normalizeSourcePath(DL->getFilename(), DL->getDirectory(),
                                        compDirFor(DL));
      R.Line = DL->getLine();
      R.Column = DL->getColumn();
      R.Id = sio::loopId(R.File, R.Line, R.Column, FnName);
    } else if (const sio::AstLocation *A = AstLoopFor.lookup(L); A && A->Line) {
      R.File =
          sio::normalizeSourcePath(A->File, AstTable.CompDir, AstTable.CompDir);
      R.Line = A->Line;
      R.Column = A->Column;
      R.Id = sio::loopId(R.File, R.Line, R.Column, FnName);
    } else {
      SawMissingLocation = true;
      R.File = sio::normalizeSourcePath(M.getSourceFileName(), "", "");
      R.Id = sio::fallbackLoopId(FnName, LoopOrdinal);
    }
    if (unsigned N = LoopIdUses[R.Id]++)
      R.Id = sio::disambiguate(R.Id, N);
    R.BodyStart = chooseIterationBlock(L, DT, LI);
    Recs[L] = R;
  }
  for (auto &[L, R] : Recs)
    if (Loop *P = L->getParentLoop())
      R.ParentId = Recs.lookup(P).Id;

  // Markers on CFG edges (exits then enters), unwind exits per landing pad,
  // and may-throw calls that need a cleanup.
  MapVector<std::pair<BasicBlock *, BasicBlock *>, SmallVector<EdgeMarker, 4>>
      EdgeMarkers;
  MapVector<BasicBlock *, MapVector<BasicBlock *, SmallVector<EdgeMarker, 4>>>
      PadExits;
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!Instr.count(L))
      continue;
    const LoopRecord &R = Recs[L];
    SmallVector<Loop::Edge, 8> Exits;
    L->getExitEdges(Exits);
    // getExitEdges lists a switch's repeated successor once per case.
    SmallSet<std::pair<const BasicBlock *, const BasicBlock *>, 8> SeenExit;
    for (auto [From, To] : Exits) {
      if (!SeenExit.insert({From, To}).second)
        continue;
      auto *FromBB = const_cast<BasicBlock *>(From);
      auto *ToBB = const_cast<BasicBlock *>(To);
      EdgeMarker EM{EdgeMarker::Exit, L->getLoopDepth(), R.Id};
      if (ToBB->isEHPad())
        PadExits[ToBB][FromBB].push_back(EM);
      else
        EdgeMarkers[{FromBB, ToBB}].push_back(EM);
    }
    BasicBlock *H = L->getHeader();
    SmallPtrSet<BasicBlock *, 4> SeenPred;
    for (BasicBlock *P : predecessors(H))
      if (!L->contains(P) && SeenPred.insert(P).second)
        EdgeMarkers[{P, H}].push_back(
            {EdgeMarker::Enter, L->getLoopDepth(), R.Id});
  }
  for (auto &[E, Ms] : EdgeMarkers)
    llvm::sort(Ms, [](const EdgeMarker &A, const EdgeMarker &B) {
      if (A.K != B.K)
        return A.K < B.K; // exits first
      return A.K == EdgeMarker::Exit ? A.Depth > B.Depth : A.Depth < B.Depth;
    });
  for (auto &[Pad, PM] : PadExits)
    for (auto &[P, Ms] : PM)
      llvm::sort(Ms, [](const EdgeMarker &A, const EdgeMarker &B) {
        return A.Depth > B.Depth;
      });

  auto InnermostInstr = [&](BasicBlock *BB) -> Loop * {
    Loop *L = LI.getLoopFor(BB);
    while (L && !Instr.count(L))
      L = L->getParentLoop();
    return L;
  };
  SmallVector<std::pair<CallInst *, SmallVector<uint64_t, 4>>, 8> MayThrow;
  // Fortran has no exceptions: flang leaves its functions without nounwind,
  // but no call unwinds out of a Fortran loop, so none needs a cleanup.
  if (!F.doesNotThrow() && !Fortran) {
    for (BasicBlock &BB : F) {
      Loop *L = InnermostInstr(&BB);
      if (!L)
        continue;
      for (Instruction &I : BB) {
        auto *CI = dyn_cast<CallInst>(&I);
        if (!CI || CI->doesNotThrow() || isa<IntrinsicInst>(CI) ||
            CI->isInlineAsm() || CI->isMustTailCall())
          continue;
        SmallVector<uint64_t, 4> Ids;
        for (Loop *A = L; A; A = A->getParentLoop())
          Ids.push_back(Recs[A].Id);
        MayThrow.push_back({CI, Ids});
      }
    }
  }

  // --- From here on the CFG changes; LI and DT are stale. ---

  // 1. Site ids immediately before each I/O call.
  DenseMap<std::pair<uint64_t, const Function *>, unsigned> SiteUses;
  StringMap<unsigned> NoLocOrdinal;
  for (auto [SiteIndex, CB] : enumerate(IoSites)) {
    StringRef Callee = symbolName(*calledFunction(*CB));
    Loop *L = InnermostInstr(CB->getParent());
    SiteRecord S;
    S.LoopId = L ? Recs[L].Id : 0;
    S.Function = FnName.str();
    S.Callee = Callee.str();
    if (const DILocation *DL = CB->getDebugLoc().get()) {
      S.File = sio::normalizeSourcePath(DL->getFilename(), DL->getDirectory(),
                                        compDirFor(DL));
      S.Line = DL->getLine();
      S.Column = DL->getColumn();
      S.Id = sio::siteId(S.File, S.Line, S.Column, Callee);
    } else if (AstSitesMatch && Ast->Sites[SiteIndex].Line) {
      const sio::AstLocation &A = Ast->Sites[SiteIndex];
      S.File =
          sio::normalizeSourcePath(A.File, AstTable.CompDir, AstTable.CompDir);
      S.Line = A.Line;
      S.Column = A.Column;
      S.Id = sio::siteId(S.File, S.Line, S.Column, Callee);
    } else {
      SawMissingLocation = true;
      ++NumSitesWithoutLocation;
      S.File = sio::normalizeSourcePath(M.getSourceFileName(), "", "");
      S.Line = 0;
      S.Column = 0;
      S.Id = sio::fallbackSiteId(FnName, Callee, NoLocOrdinal[Callee]++);
    }
    // Two calls of one function at one location (one macro expansion).
    if (unsigned N = SiteUses[{S.Id, &F}]++)
      S.Id = sio::disambiguate(S.Id, N);
    IRBuilder<> B(CB);
    B.SetCurrentDebugLocation(CB->getDebugLoc());
    B.CreateCall(SiteFn, {B.getInt64(S.Id)});
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "IOSite", CB)
             << "I/O call to " << ore::NV("Callee", Callee) << " gets site id "
             << ore::NV("SiteId", ("0x" + utohexstr(S.Id)))
             << (S.LoopId ? " (in an instrumented loop)" : "");
    });
    Sites.push_back(std::move(S));
    ++NumSites;
  }

  // 2. Iteration markers at the start of each body.
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!Instr.count(L))
      continue;
    const LoopRecord &R = Recs[L];
    IRBuilder<> B(R.BodyStart, R.BodyStart->getFirstInsertionPt());
    B.SetCurrentDebugLocation(R.Loc);
    B.CreateCall(IterFn, {B.getInt64(R.Id)});
  }

  // 3. Enter/exit markers on edges.
  for (auto &[E, Ms] : EdgeMarkers)
    insertEdgeMarkers(E.first, E.second, Ms,
                      E.first->getTerminator()->getDebugLoc());

  // 4. Exits by unwinding through existing landing pads.
  handleUnwindExits(F, PadExits);

  // 5. Exits by unwinding out of the function.
  convertMayThrowCalls(F, MayThrow);

  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!Instr.count(L))
      continue;
    const LoopRecord &R = Recs[L];
    Loops.push_back({R.Id, R.ParentId, R.File, FnName.str(), R.Line, R.Column});
    ++NumLoops;
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "IOLoop", R.Loc, L->getHeader())
             << "loop gets enter/iter/exit markers, loop id "
             << ore::NV("LoopId", ("0x" + utohexstr(R.Id)))
             << (R.ParentId ? " (nested)" : "");
    });
  }
  return true;
}

Constant *SioTraceInstrumenter::stringConstant(StringRef S) {
  Constant *&C = Strings[S];
  if (!C) {
    Constant *Init = ConstantDataArray::getString(Ctx, S);
    auto *GV =
        new GlobalVariable(M, Init->getType(), true,
                           GlobalValue::PrivateLinkage, Init, ".sio.str");
    GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    GV->setAlignment(Align(1));
    C = GV;
  }
  return C;
}

void SioTraceInstrumenter::emitTables() {
  Type *I64 = Type::getInt64Ty(Ctx), *I32 = Type::getInt32Ty(Ctx);
  Type *Ptr = PointerType::getUnqual(Ctx);
  StructType *SiteTy =
      StructType::get(Ctx, {I64, I64, Ptr, Ptr, Ptr, I32, I32});
  StructType *LoopTy = StructType::get(Ctx, {I64, I64, Ptr, Ptr, I32, I32});

  auto MakeTable = [&](StructType *Ty, std::vector<Constant *> &Elems,
                       StringRef Name,
                       StringRef Section) -> std::pair<Constant *, Constant *> {
    if (Elems.empty()) {
      Constant *Null = ConstantPointerNull::get(PointerType::getUnqual(Ctx));
      return {Null, Null};
    }
    ArrayType *ATy = ArrayType::get(Ty, Elems.size());
    auto *GV = new GlobalVariable(M, ATy, true, GlobalValue::PrivateLinkage,
                                  ConstantArray::get(ATy, Elems), Name);
    GV->setSection(Section);
    GV->setAlignment(Align(8));
    Constant *Zero = ConstantInt::get(I64, 0);
    Constant *End = ConstantExpr::getInBoundsGetElementPtr(
        ATy, GV,
        ArrayRef<Constant *>{Zero, ConstantInt::get(I64, Elems.size())});
    appendToCompilerUsed(M, {GV});
    return {GV, End};
  };

  std::vector<Constant *> SiteElems, LoopElems;
  for (const SiteRecord &S : Sites)
    SiteElems.push_back(ConstantStruct::get(
        SiteTy, {ConstantInt::get(I64, S.Id), ConstantInt::get(I64, S.LoopId),
                 stringConstant(S.File), stringConstant(S.Function),
                 stringConstant(S.Callee), ConstantInt::get(I32, S.Line),
                 ConstantInt::get(I32, S.Column)}));
  for (const LoopTableEntry &L : Loops)
    LoopElems.push_back(ConstantStruct::get(
        LoopTy,
        {ConstantInt::get(I64, L.Id), ConstantInt::get(I64, L.ParentId),
         stringConstant(L.File), stringConstant(L.Function),
         ConstantInt::get(I32, L.Line), ConstantInt::get(I32, L.Column)}));
  auto [SB, SE] =
      MakeTable(SiteTy, SiteElems, "__sio_site_table", SitesSection);
  auto [LB, LE] =
      MakeTable(LoopTy, LoopElems, "__sio_loop_table", LoopsSection);

  FunctionCallee Register = M.getOrInsertFunction(
      RegisterFnName, AttributeList().addFnAttribute(Ctx, Attribute::NoUnwind),
      Type::getVoidTy(Ctx), I32, Ptr, Ptr, Ptr, Ptr);
  Function *Ctor =
      Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                       GlobalValue::InternalLinkage, CtorName, M);
  Ctor->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Ctor));
  B.CreateCall(Register, {B.getInt32(SIO_ABI_VERSION), SB, SE, LB, LE});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, CtorPriority);
}

bool SioTraceInstrumenter::instrumentModule() {
  if (Opts.Off || M.getNamedMetadata(DoneMetadata))
    return false;
  AllowRes = parseRegexList(Opts.Allow, Ctx, "allow");
  DenyRes = parseRegexList(Opts.Deny, Ctx, "deny");
  Fortran = isFortranModule(M);
  computeIoFunctions();
  declareRuntime();

  SmallVector<Function *, 32> Work;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (shouldSkip(F)) {
      ++NumFunctionsSkipped;
      ++FunctionsSkipped;
      if (!isRuntimeFunction(F) && !F.empty()) {
        OptimizationRemarkEmitter ORE(&F);
        ORE.emit([&] {
          return OptimizationRemarkMissed(DEBUG_TYPE, "Skipped",
                                          DiagnosticLocation(F.getSubprogram()),
                                          &F.getEntryBlock())
                 << "function " << ore::NV("Function", F.getName())
                 << " not instrumented";
        });
      }
      continue;
    }
    Work.push_back(&F);
  }
  bool Changed = false;
  for (Function *F : Work)
    if (instrumentFunction(*F)) {
      Changed = true;
      ++FunctionsInstrumented;
    }

  if (SawMissingLocation) {
    // Remark once per module: ids fall back to function + ordinal.
    for (Function &F : M)
      if (!F.isDeclaration() && !isRuntimeFunction(F)) {
        OptimizationRemarkEmitter ORE(&F);
        ORE.emit([&] {
          return OptimizationRemarkMissed(DEBUG_TYPE, "NoSourceLocations",
                                          DiagnosticLocation(),
                                          &F.getEntryBlock())
                 << "no source locations in the IR (compile with -g, "
                    "-gline-tables-only or through sio-cc/sio-cxx); site and "
                    "loop ids use function name + ordinal";
        });
        break;
      }
  }

  if (Opts.Verbose)
    errs() << "siotrace: " << moduleDisplayName(M) << ": " << Sites.size()
           << " I/O sites, " << Loops.size() << " loops in "
           << FunctionsInstrumented << " functions; " << FunctionsSkipped
           << " functions skipped"
           << (SawMissingLocation ? "; no source locations, fallback ids" : "")
           << "\n";

  // libLLVM on Debian is built without statistics reporting ("Statistics are
  // disabled"), so -stats / -mllvm -stats get ours printed here.
  if (AreStatisticsEnabled())
    for (const TrackingStatistic *S :
         {&NumSites, &NumLoops, &NumFunctionsSkipped, &NumCallsMadeInvokes,
          &NumSitesWithoutLocation})
      errs() << format("%8u %s - %s\n", S->getValue(), S->getDebugType(),
                       S->getDesc());

  // Drop the declarations of entry points nobody calls.
  for (const char *Name :
       {SiteFnName, LoopEnterFnName, LoopIterFnName, LoopExitFnName})
    if (Function *Fn = M.getFunction(Name))
      if (Fn->use_empty() && Fn->isDeclaration())
        Fn->eraseFromParent();
  if (!Changed)
    return false;
  emitTables();
  M.getOrInsertNamedMetadata(DoneMetadata);
  return true;
}

} // namespace

namespace sio {

AstLocationTable &astLocations() {
  static AstLocationTable Table;
  return Table;
}

SioTraceOptions &frontendOptions() {
  static SioTraceOptions Opts;
  return Opts;
}

bool applyOptionWord(SioTraceOptions &O, StringRef A) {
  if (A == "off")
    O.Off = true;
  else if (A == "on")
    O.Off = false;
  else if (A == "verbose")
    O.Verbose = true;
  else if (A.consume_front("allow="))
    O.Allow = O.Allow.empty() ? A.str() : O.Allow + "," + A.str();
  else if (A.consume_front("deny="))
    O.Deny = O.Deny.empty() ? A.str() : O.Deny + "," + A.str();
  else
    return false;
  return true;
}

SioTraceOptions effectiveOptions() {
  SioTraceOptions O = frontendOptions();
  if (const char *Env = getenv("SIOTRACE_OPTIONS")) {
    SmallVector<StringRef, 4> Words;
    StringRef(Env).split(Words, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef W : Words)
      if (!applyOptionWord(O, W))
        errs() << "siotrace: ignoring unknown word '" << W
               << "' in SIOTRACE_OPTIONS\n";
  }
  if (ClOff.getNumOccurrences())
    O.Off = ClOff;
  if (ClVerbose.getNumOccurrences())
    O.Verbose = ClVerbose;
  if (ClAllow.getNumOccurrences())
    O.Allow = ClAllow;
  if (ClDeny.getNumOccurrences())
    O.Deny = ClDeny;
  return O;
}

PreservedAnalyses SioTracePass::run(Module &M, ModuleAnalysisManager &) {
  SioTraceInstrumenter I(M, Opts);
  return I.instrumentModule() ? PreservedAnalyses::none()
                              : PreservedAnalyses::all();
}

void registerSioTrace(PassBuilder &PB) {
  // Idempotent per PassBuilder: if "siotrace" already parses, a previous load
  // (the -fplugin frontend action or -fpass-plugin) registered us. Checking
  // the PassBuilder itself, not its address, stays right when one process
  // compiles several translation units.
  static std::mutex Mu;
  std::lock_guard<std::mutex> Lock(Mu);
  {
    ModulePassManager Probe;
    if (Error E = PB.parsePassPipeline(Probe, compat::PluginName))
      consumeError(std::move(E));
    else
      return;
  }
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != compat::PluginName)
          return false;
        MPM.addPass(SioTracePass());
        return true;
      });
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(SioTracePass());
      });
}

} // namespace sio
