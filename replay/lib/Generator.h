// The replay generator's state while it walks a trace once: the replay
// body (EmitBody.cpp, EmitCalls.cpp), what the calls need (RequestSizes.cpp:
// buffers, input files, views), and the program assembled from the parts
// (Assemble.cpp, EmitObjects.cpp). Internal to the replay library.
#pragma once

#include "CppText.h"
#include "Rebuildable.h"

#include "sio/replay/CodeEmitter.h"
#include "sio/replay/ReplayGenerator.h"
#include "sio/trace/Expr.h"
#include "sio/trace/Summary.h"
#include "sio/trace/Trace.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sio::replay::detail {

using sio::trace::Atom;
using sio::trace::ElasticValue;
using sio::trace::Event;
using sio::trace::Expr;
using sio::trace::ExprEnv;
using sio::trace::Layer;
using sio::trace::Loop;
using sio::trace::Node;
using sio::trace::ObjectEntry;
using sio::trace::RankList;
using sio::trace::Rational;
using sio::trace::TimingStats;
using sio::trace::Trace;
using sio::trace::Value;

/// How the generator walks loops: the iteration counts of the enclosing loops.
struct LoopFrame {
  const ElasticValue *iterations;
};

/// Calls `visit` on every event of `nodes`, loop bodies included, in order.
template <class Visit> void forEachEvent(const std::vector<Node> &nodes, Visit &&visit) {
  for (const Node &n : nodes) {
    if (n.isLoop())
      forEachEvent(n.loop().body, visit);
    else
      visit(n.event());
  }
}

class Generator {
public:
  Generator(const Trace &trace, const ReplayOptions &options)
      : trace_(trace), options_(options), types_(trace, kNamedDatatypes) {}

  std::string run() {
    N_ = trace_.header.nranks;
    highestNamedRank_ = -1;
    assignCommunicators();
    body_.open("void replay()");
    emitNodes(trace_.body, RankList::all(N_), 0);
    body_.close();
    return assemble();
  }

private:
  // ---- the body ---------------------------------------------------------

  void emitNodes(const std::vector<Node> &nodes, const RankList &parentRanks, uint32_t depth);

  void emitLoop(const Node &node, uint32_t depth);

  static bool hasReplayedEvent(const std::vector<Node> &nodes);

  /// C++ for an elastic value: inline when one value serves every rank,
  /// otherwise a local variable set under rank guards (emitted now).
  std::string valueText(const ElasticValue &value, const RankList &nodeRanks, const std::string &name, uint32_t depth);

  static std::string valueCpp(const Value &value);

  /// Collects loop-independent values that can fail for the start-up check.
  void noteCheck(const ElasticValue &value, const RankList &nodeRanks, uint32_t, const std::string &what);

  void noteRanks(const RankList &ranks) {
    highestNamedRank_ = std::max(highestNamedRank_, highestNamedRank(ranks, N_));
  }

  static std::string location(const std::string &file, uint32_t line, uint32_t column);

  std::string siteText(const Event &event) const;

  /// The parameters of one event as C++ text, declared locally when elastic.
  class Params {
  public:
    Params(Generator &g, const Node &node, uint32_t depth) : g_(g), node_(node), depth_(depth) {}
    bool has(const std::string &name) const { return node_.event().param(name) != nullptr; }
    std::string operator()(const std::string &name) {
      auto cached = texts_.find(name);
      if (cached != texts_.end())
        return cached->second;
      const sio::trace::Param *param = node_.event().param(name);
      if (!param)
        throw UnsupportedTrace(g_.context_ + ": parameter '" + name + "' is missing");
      g_.noteCheck(param->value, node_.ranks, depth_, "parameter " + name + " of " + g_.context_);
      return texts_[name] = g_.valueText(param->value, node_.ranks, name, depth_);
    }
    /// A constant parameter's value, if it is one.
    std::optional<int64_t> constant(const std::string &name) const {
      const sio::trace::Param *param = node_.event().param(name);
      if (!param || !param->value.isUniform())
        return std::nullopt;
      const Expr *expr = std::get_if<Expr>(&param->value.entries()[0].value);
      return expr ? expr->constantValue() : std::nullopt;
    }
    /// The parameter as a string value (datarep, fopen mode).
    std::string string(const std::string &name) {
      const sio::trace::Param *param = node_.event().param(name);
      if (param && param->value.isUniform())
        if (const auto *text = std::get_if<std::string>(&param->value.entries()[0].value))
          return cppStringLiteral(*text);
      return (*this)(name);
    }

  private:
    Generator &g_;
    const Node &node_;
    uint32_t depth_;
    std::map<std::string, std::string> texts_;
  };

  void emitEvent(const Node &node, uint32_t depth);

  /// Refuses a call that uses an object the replay cannot rebuild (a null
  /// handle in the replay): a datatype missing from the table, built on a
  /// type the runtime could not describe, or MPI_DATATYPE_NULL where the
  /// application's call succeeded; a communicator without members. A call
  /// that failed in the application may pass a null handle: the replay
  /// expects the same failure.
  void checkObjects(const Node &node) const;

  std::string gapModel(const TimingStats &compute);

  // ---- calls ------------------------------------------------------------

  std::string comm(Params &p, const std::string &name = "comm") { return "comm[" + p(name) + "]"; }
  std::string type(Params &p, const std::string &name = "datatype") { return "datatype[" + p(name) + "]"; }
  /// The path a file parameter names here. Names with loop-index fields
  /// (`dir.<rank>/file.<i0>`) get the indices of the loops around the call.
  /// Its parent directories are made first (mappedPath), except for a call
  /// that failed in the application (callFailed_, resolvedPath): an open
  /// under a missing directory must fail in the replay too.
  std::string path(Params &p, const std::string &name = "file");
  bool callFailed_ = false; ///< the call callText emits failed in the application

  /// The recorded failure of a call as the arguments of the replay's
  /// expect*Failure helpers: `MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE"`,
  /// `EBADF, "EBADF"` (symbolic where the number has a name, so the replay
  /// compares classes of its own MPI); empty if the call did not fail.
  static std::string expectedOrAny(const std::string &expected);
  std::string expectedError(const Event &e, Params &p);

  std::vector<std::string> callText(const Node &node, Params &p);

  /// A datatype-table entry made by an intercepted constructor (its name is
  /// the constructor): made again by that call in replay().
  static bool madeAtEvent(const ObjectEntry &t) { return t.kind != "named" && t.name.rfind("MPI_Type_", 0) == 0; }

  /// A datatype entry as MPI_Type_get_contents gives its constructor's
  /// arguments: integers, addresses, datatype ids (as C++ expressions).
  struct TypeArgs {
    std::vector<std::string> ints, aints, types;
  };
  TypeArgs typeArgs(const ObjectEntry &t) const;

  /// A datatype constructor of the application, called again with the
  /// arguments of the entry it made (one call site, whichever entry the
  /// `newtype` id names there: a loop may make a new type per iteration).
  std::vector<std::string> typeConstructor(const Node &node, Params &p);

  /// The function that makes the types of one constructor site of the
  /// application. The runtime identifies a made type by its site and
  /// contents (one entry for a helper that makes the same type at every
  /// call); a replay calling the constructor at one place of its body per
  /// call gave its own trace an entry per place. All the calls of one
  /// application site go through one call site of the replay instead.
  std::string typeMaker(const Event &e, const std::string &call);

  /// The comm-table entry a constructor event made on some rank (the
  /// arguments that every caller passes alike: dims, periods, remain_dims).
  const ObjectEntry &madeEntry(const Event &e) const;

  std::string fieldInts(const ObjectEntry &c, const std::string &name) const;

  /// Communicators, like datatypes (typeMaker), are identified by their
  /// constructor's call site and the order of its calls: a loop body the
  /// replay writes once per rank group would give each group's calls a site
  /// of its own (8 entries in the application's comm table, 14 in its
  /// replay's). All the calls of one application site go through one
  /// function of the replay (makeCommSplitAtSite0, ...); `lines` call the
  /// constructor by its MPI name, which becomes the function's.
  std::vector<std::string> throughCommMaker(const Event &e, std::vector<std::string> lines);

  /// The communicator constructors of MPI 4.0 beyond split/dup, made again
  /// the way the application made them.
  template <class IntArg> std::vector<std::string> commConstructor(const Node &node, Params &p, IntArg intArg);

  void noteApproximation(const std::string &what);

  std::string whence(Params &p);

  /// Reads and writes of MPI-IO: blocking, collective, nonblocking, split.
  template <class FhArg, class IntArg, class Mpi>
  std::vector<std::string> dataAccess(const std::string &op, Params &p, FhArg fhArg, IntArg intArg, Mpi mpi);

  // ---- communicators ----------------------------------------------------

  /// New communicators are described in the comm table by rule; the k-th
  /// split (dup) call of the body creates the k-th split (dup) entry.
  void assignCommunicators();

  // ---- request sizes and input files -----------------------------------

  /// Upper bound of an expression over a node's ranks and the first and last
  /// iteration of each enclosing loop (exact for affine values).
  std::optional<int64_t> maxOver(const std::function<std::optional<int64_t>(const ExprEnv &)> &f,
                                 const RankList &ranks) const;

  static std::optional<int64_t> evalParam(const Event &e, const std::string &name, const ExprEnv &env);

  std::optional<int64_t> typeExtent(int64_t id, int64_t rank) const;

  /// Bytes one call moves (count x extent for MPI-IO), for the buffer size
  /// and the size of input files.
  std::optional<int64_t> requestBytes(const Event &e, const ExprEnv &env) const;

  /// The trace library's classification, shared with `sio-trace stats`:
  /// stdio's character, line and formatted input (fgetc, fgets, getline,
  /// fscanf, ...) read their `result` bytes.
  static bool isRead(const Event &e) { return sio::trace::direction(e.op) == sio::trace::Direction::Read; }

  /// Where an fseek left a stream (SEEK_SET, or SEEK_CUR from a known
  /// place), so that the reads after it size the input file from there.
  void noteSeek(const Event &e, Params &p);

  /// Tracks which file each constant handle refers to, the largest request
  /// (the buffer) and how far reads reach into each file.
  void noteRequestSizes(const Node &node, Params &p, uint32_t);

  int64_t viewUnit(int64_t fh, const std::string &handle, int64_t) const;

  void noteView(Params &p);

  /// What an open says about its file: created, truncated or write-only
  /// (Writing); read and write (ReadWrite: written only if something then
  /// writes it, as gfortran opens its input files O_RDWR); read only.
  enum class OpenIntent { Reading, ReadWrite, Writing };

  /// fopen/freopen: what the mode says (a mode that differs between ranks
  /// or iterations counts as writing: the overwrite check stays on).
  static OpenIntent streamOpenIntent(const Event &e);

  /// dup (dup, fcntl F_DUPFD) and dup2 (dup2, dup3): the new code `fd`
  /// names the source's (`oldfd`) file; dup2 replaces its target (`newfd`).
  /// Codes of -1 (descriptors the trace does not know) are resolved by the
  /// prelude's dup2Codes and storeDescriptor, since they may differ between
  /// iterations and ranks.
  std::vector<std::string> duplicate(const std::string &op, Params &p, const std::string &expected,
                                     const std::function<std::string(const std::string &)> &posix);

  /// `mustExist`: the open neither creates its file (no O_CREAT, fopen "r"
  /// or "r+", no MPI_MODE_CREATE), so where it is the trace's first open of
  /// the file, the file existed before the program: the replay provides it
  /// even if it then writes it (preexisting_).
  void noteOpen(Params &p, const std::string &handle, OpenIntent intent, bool mustExist);
  /// fopen/freopen: the mode is the same everywhere and starts with 'r'.
  static bool streamMustExist(const Event &e);

  /// A call that writes or resizes through a handle makes its file written
  /// (not an input the replay provides). A handle that differs between
  /// ranks cannot be traced to one file: every read-write file counts.
  void noteWrites(const Node &node, Params &p);

  // ---- assembly ---------------------------------------------------------

  std::string assemble();

  void emitGaps(CodeEmitter &out);

  void emitFileNames(CodeEmitter &out);

  std::vector<std::string> fieldCpp(const ObjectEntry &object, const std::string &name, bool required = true) const;

  /// True when `value` is a decimal literal within [lo, hi].
  static bool isLiteralWithin(const std::string &value, int64_t lo, int64_t hi);
  static bool isIntLiteral(const std::string &v) { return isLiteralWithin(v, INT32_MIN, INT32_MAX); }
  static bool isAintLiteral(const std::string &v) { return isLiteralWithin(v, INT64_MIN + 1, INT64_MAX); }

  /// Array elements: literals as they are, models checked at run time
  /// (toInt fails on a value that does not fit). Datatype tables of real
  /// programs are long lists of literals: as 100,000 `toInt(...)` calls one
  /// replay spent over 10 minutes in gcc -O2 (bench/replay-compile.sh).
  static std::string intList(const std::vector<std::string> &values);
  static std::string aintList(const std::vector<std::string> &values);
  /// `target = {...};` for a std::vector argument list; a long list of
  /// literals goes through a static array (one copy, no initializer_list
  /// of 100,000 temporaries for the compiler to build).
  static std::string vectorAssign(const std::string &target, const std::string &elementType,
                                  const std::vector<std::string> &values,
                                  std::string (*array)(const std::string &, const std::vector<std::string> &));
  /// `const T name[] = {...};`, static (read-only data, not built on the
  /// stack at every call) when every element is a literal.
  static std::string intArray(const std::string &name, const std::vector<std::string> &values);
  static std::string aintArray(const std::string &name, const std::vector<std::string> &values);
  /// ndims of a darray entry whose envelope is complete (3 + 4*ndims + 1 ints).
  static std::optional<size_t> darrayDims(const ObjectEntry &t);

  void emitDatatype(CodeEmitter &out, const ObjectEntry &t, std::set<int64_t> &done);

  /// The world ranks of a communicator entry as one C++ expression of type
  /// std::vector<i64> (`blockRanks({start, stride, count, ...})` for
  /// strided blocks); empty if the trace has none.
  std::string members(const ObjectEntry &c) const;

  /// A communicator the application used but the runtime did not see made:
  /// rebuilt from its recorded membership (never MPI_COMM_NULL), by PMPI so
  /// that a trace of the replay does not record the set-up.
  void emitMembershipComm(CodeEmitter &out, const ObjectEntry &c);

  void emitMemberGroups(CodeEmitter &out);

  void emitObjects(CodeEmitter &out);

  void emitChecks(CodeEmitter &out);

  void emitInputFiles(CodeEmitter &out);

  /// The environment variables that changed the application's MPI-IO,
  /// recorded by the runtime as `env.NAME` metadata (docs/runtime.md,
  /// "MPI-IO environment"): set again before the replay's first MPI-IO
  /// call. ROMIO_HINTS names a file, which ROMIO opens and reads at every
  /// MPI_File_open (inner events of the trace): it is mapped like every
  /// other recorded name, so it names the copy provideInputFiles() made.
  /// A trace without them (an older runtime) sets nothing.
  void emitMpiIoEnvironment(CodeEmitter &out);

  /// The constant values a parameter takes on any rank.
  static std::vector<int64_t> constantsOf(const Event &e, const char *name);

  /// The file ROMIO_HINTS names (env.ROMIO_HINTS metadata) is opened and
  /// read by ROMIO alone, underneath each MPI_File_open: inner events,
  /// which the replay does not make, so it was no input the replay
  /// provided. It is one now: with the contents the runtime recorded
  /// (romio_hints.contents metadata), so the replay's MPI-IO gets the same
  /// hints; without them (a file too large, or an older runtime) as long as
  /// ROMIO's reads of it went, zero-filled, listed as an approximation.
  void noteHintsFile();
  /// The runtime keeps the lowest rank's MPI-IO environment and lists the
  /// keys other ranks had other values of (mpi_io_env_differs metadata):
  /// an approximation of the replay, which sets one environment everywhere.
  void noteDifferingEnvironment();

  bool hasMpiIoEnvironment() const;

  void emitOverwriteCheck(CodeEmitter &out);

  void emitMain(CodeEmitter &out);

  struct Check {
    std::string guard, value, what;
  };
  struct View {
    int64_t etype = 1, ratio = 1, disp = 0;
  };
  struct InputFile {
    int64_t reach = 0, sequential = 0;
  };

  const Trace &trace_;
  const ReplayOptions &options_;
  int64_t N_ = 1;
  int64_t highestNamedRank_ = -1;
  int64_t largestRequest_ = 0;
  CodeEmitter body_;
  CodeEmitter siteFunctionDefs_; ///< one function per object constructor site of the application
  std::map<std::pair<std::string, uint64_t>, std::string> typeMakers_;
  std::map<std::pair<std::string, uint64_t>, std::string> commMakers_;
  std::string context_;
  std::vector<LoopFrame> loops_;
  std::vector<std::pair<std::string, std::string>> gaps_;
  std::vector<Check> checks_;
  std::set<int64_t> usedFiles_, writtenFiles_, readWriteFiles_;
  /// Files named by a call that did not fail: only these can be written (a
  /// failed open of "." or of an existing file with O_EXCL writes nothing,
  /// and the overwrite check must not refuse to start for them).
  std::set<int64_t> namedBySucceededCalls_;
  std::map<std::pair<std::string, int64_t>, int64_t> handleFile_;
  std::map<int64_t, View> views_;
  std::map<int64_t, InputFile> reads_;
  /// Files whose first open in the trace required them to exist, and the
  /// files opened so far (the first open decides).
  std::set<int64_t> preexisting_, openedFiles_;
  std::map<int64_t, int64_t> streamPos_; ///< stream code -> byte position an fseek gave it
  std::map<const Event *, int64_t> newComms_;
  std::vector<int64_t> derivedTypes_;
  std::vector<std::string> approximations_; ///< objects not rebuilt exactly: header comment, start-up note
  /// The ROMIO_HINTS file to provide, by noteHintsFile(): its recorded
  /// contents, or (without them) its size read, zero-filled.
  struct HintsInput {
    std::string name;
    std::optional<std::string> contents;
    int64_t zeroBytes = 0;
  };
  std::optional<HintsInput> hintsInput_;
  DatatypeGraph types_; ///< which datatypes can be rebuilt (Rebuildable.h)
};

} // namespace sio::replay::detail
