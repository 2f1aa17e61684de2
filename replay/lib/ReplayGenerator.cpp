// Generates the replay program. The program is assembled from parts that are
// produced while walking the trace once: the replay body (loops, guards,
// calls), and the tables it needs (computation-gap models, file names, MPI
// objects, start-up model checks, input files, buffer size).
#include "sio/replay/ReplayGenerator.h"

#include "Rebuildable.h"
#include "sio/replay/CodeEmitter.h"
#include "sio/trace/Handles.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

namespace sio::replay {

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

namespace {

const char *const kPrelude =
#include "Prelude.inc"
    ;

std::string join(const std::vector<std::string> &parts, const std::string &separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? separator : "") + parts[i];
  return out;
}

int64_t lcm64(int64_t a, int64_t b) { return a / std::gcd(a, b) * b; }

std::string atomToCpp(const Atom &atom) {
  switch (atom.kind) {
  case Atom::Kind::Rank: return "rank";
  case Atom::Kind::NRanks: return "nranks";
  case Atom::Kind::Loop: return "i" + std::to_string(atom.loopDepth);
  case Atom::Kind::Mod: return "cmod(" + exprToCpp(*atom.lhs) + ", " + exprToCpp(*atom.rhs) + ")";
  case Atom::Kind::Table: {
    std::vector<std::string> values;
    values.reserve(atom.table->size());
    atom.table->forEach([&](int64_t v) { values.push_back(std::to_string(v)); });
    if (atom.table->size() < Expr::kPackedTableMin)
      return "pick({" + join(values, ", ") + "}, " + exprToCpp(*atom.rhs) + ")";
    // A long table (a stream the runtime stored as a column) becomes a
    // static array: built once, in read-only data, never on the stack. In
    // parentheses: as a subscript (`stream[...]`) a bare lambda would open
    // with `[[`, C++ attribute syntax.
    return "([](i64 index) { static constexpr i64 t[] = {" + join(values, ", ") +
           "}; return pickArray(t, sizeof t / sizeof t[0], index); }(" + exprToCpp(*atom.rhs) + "))";
  }
  }
  return "0";
}

bool usesOpaqueAtoms(const Expr &expr) {
  for (const auto &[monomial, coefficient] : expr.terms())
    for (const auto &[atom, power] : monomial)
      if (atom.kind == Atom::Kind::Mod || atom.kind == Atom::Kind::Table)
        return true;
  return false;
}

/// True when evaluating the expression can fail (division or table/mod).
bool canFail(const Expr &expr) {
  for (const auto &[monomial, coefficient] : expr.terms()) {
    if (!coefficient.isInteger())
      return true;
    for (const auto &[atom, power] : monomial)
      if (power < 0)
        return true;
  }
  return usesOpaqueAtoms(expr);
}

/// A strided block that runs up to the end of the traced run in a regular
/// way (`1..N-1`, every other rank, every 4th): it stays open-ended, so the
/// program runs at other rank counts. `{0, 5}` of 8 ranks does not.
bool reachesLastRank(const sio::trace::RankBlock &block, int64_t tracedRanks) {
  if (block.dims.size() != 1 || block.size() < 2)
    return false;
  const int64_t stride = block.dims[0].stride;
  return block.last() >= tracedRanks - stride && (stride == 1 || tracedRanks % stride == 0);
}

} // namespace

std::string exprToCpp(const Expr &expr) {
  const auto &terms = expr.terms();
  if (terms.empty())
    return "0";
  // Common denominator D * nranks^K turns the value into one exact division.
  int64_t denominator = 1;
  int32_t nranksShift = 0;
  for (const auto &[monomial, coefficient] : terms) {
    denominator = lcm64(denominator, coefficient.den());
    for (const auto &[atom, power] : monomial)
      if (atom.kind == Atom::Kind::NRanks && power < 0)
        nranksShift = std::max(nranksShift, -power);
  }
  std::vector<std::pair<std::string, int64_t>> products; // (factors, integer coefficient)
  std::optional<int64_t> constant;
  for (const auto &[monomial, coefficient] : terms) {
    int64_t scaled = (coefficient * Rational(denominator)).asInteger().value();
    std::vector<std::string> factors;
    bool sawNRanks = false;
    for (const auto &[atom, power] : monomial) {
      int32_t exponent = power;
      if (atom.kind == Atom::Kind::NRanks) {
        exponent += nranksShift;
        sawNRanks = true;
      }
      for (int32_t k = 0; k < exponent; ++k)
        factors.push_back(atomToCpp(atom));
    }
    if (!sawNRanks)
      for (int32_t k = 0; k < nranksShift; ++k)
        factors.push_back("nranks");
    if (factors.empty())
      constant = scaled;
    else
      products.emplace_back(join(factors, "*"), scaled);
  }
  std::string sum;
  auto append = [&](int64_t coefficient, const std::string &factors) {
    bool negative = coefficient < 0;
    uint64_t magnitude = negative ? uint64_t(0) - uint64_t(coefficient) : uint64_t(coefficient);
    std::string term = factors.empty() ? std::to_string(magnitude)
                       : magnitude == 1 ? factors
                                        : std::to_string(magnitude) + "*" + factors;
    if (sum.empty())
      sum = (negative ? "-" : "") + term;
    else
      sum += (negative ? " - " : " + ") + term;
  };
  for (const auto &[factors, coefficient] : products)
    append(coefficient, factors);
  if (constant)
    append(*constant, "");
  if (denominator == 1 && nranksShift == 0)
    return sum;
  std::vector<std::string> divisor;
  if (denominator != 1)
    divisor.push_back(std::to_string(denominator));
  for (int32_t k = 0; k < nranksShift; ++k)
    divisor.push_back("nranks");
  return "exactDiv(" + sum + ", " + join(divisor, "*") + ")";
}

std::string rankGuard(const RankList &ranks, int64_t tracedRanks) {
  if (ranks.isAll(tracedRanks))
    return "";
  std::vector<std::string> conditions;
  for (const auto &block : ranks.blocks()) {
    const int64_t start = block.start;
    if (block.dims.empty() || block.size() == 1) {
      conditions.push_back("rank == " + std::to_string(start));
    } else if (block.dims.size() == 1) {
      const auto [stride, count] = block.dims[0];
      if (reachesLastRank(block, tracedRanks))
        conditions.push_back(stride == 1 ? "rank >= " + std::to_string(start)
                                         : "fromRank(rank, " + std::to_string(start) + ", " +
                                               std::to_string(stride) + ")");
      else
        conditions.push_back("inBlock(rank, " + std::to_string(start) + ", " + std::to_string(stride) + ", " +
                             std::to_string(count) + ")");
    } else {
      std::vector<std::string> dims;
      for (const auto &dim : block.dims)
        dims.push_back("{" + std::to_string(dim.stride) + ", " + std::to_string(dim.count) + "}");
      conditions.push_back("inGrid(rank, " + std::to_string(start) + ", {" + join(dims, ", ") + "})");
    }
  }
  if (conditions.size() == 1)
    return conditions[0];
  return join(conditions, " || ");
}

namespace {

/// The highest rank a rank list names explicitly (open-ended blocks excluded).
int64_t highestNamedRank(const RankList &ranks, int64_t tracedRanks) {
  int64_t highest = -1;
  if (ranks.isAll(tracedRanks))
    return highest;
  for (const auto &block : ranks.blocks()) {
    bool openEnded = block.dims.size() == 1 && block.size() > 1 && reachesLastRank(block, tracedRanks);
    highest = std::max(highest, openEnded ? block.start : block.last());
  }
  return highest;
}

std::string decodeFlags(int64_t value, const std::vector<std::pair<int64_t, const char *>> &flags,
                        const char *zeroName) {
  if (value == 0 && zeroName)
    return zeroName;
  std::vector<std::string> names;
  int64_t rest = value;
  for (const auto &[bit, name] : flags)
    if (bit && (rest & bit) == bit) {
      names.push_back(name);
      rest &= ~bit;
    }
  if (rest != 0 || names.empty())
    return std::to_string(value);
  return join(names, " | ");
}

// MPICH's values, which the runtime records (the replay is built against MPICH).
const std::vector<std::pair<int64_t, const char *>> kAmodes = {
    {1, "MPI_MODE_CREATE"},   {2, "MPI_MODE_RDONLY"},        {4, "MPI_MODE_WRONLY"},
    {8, "MPI_MODE_RDWR"},     {16, "MPI_MODE_DELETE_ON_CLOSE"}, {32, "MPI_MODE_UNIQUE_OPEN"},
    {64, "MPI_MODE_EXCL"},    {128, "MPI_MODE_APPEND"},      {256, "MPI_MODE_SEQUENTIAL"}};
// Linux x86-64/aarch64 values.
const std::vector<std::pair<int64_t, const char *>> kOpenFlags = {
    {01, "O_WRONLY"},   {02, "O_RDWR"},     {0100, "O_CREAT"},  {0200, "O_EXCL"},   {0400, "O_NOCTTY"},
    {01000, "O_TRUNC"}, {02000, "O_APPEND"}, {04000, "O_NONBLOCK"}, {04010000, "O_SYNC"}, {010000, "O_DSYNC"},
    {040000, "O_DIRECT"}, {02000000, "O_CLOEXEC"}};

const std::set<std::string> kNamedDatatypes = {
    "MPI_BYTE", "MPI_CHAR", "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_INT",
    "MPI_UNSIGNED", "MPI_LONG", "MPI_UNSIGNED_LONG", "MPI_LONG_LONG", "MPI_LONG_LONG_INT", "MPI_UNSIGNED_LONG_LONG",
    "MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_WCHAR", "MPI_PACKED", "MPI_INT8_T", "MPI_INT16_T",
    "MPI_INT32_T", "MPI_INT64_T", "MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T", "MPI_C_BOOL",
    "MPI_CXX_BOOL", "MPI_AINT", "MPI_OFFSET", "MPI_COUNT", "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX",
    "MPI_2INT", "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT",
    "MPI_CHARACTER", "MPI_INTEGER", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_LOGICAL", "MPI_COMPLEX",
    // MPI-1's bound markers: gone from MPI-3, still in MPICH, and in the
    // struct types of legacy codes (a zero-byte stand-in drops the bounds).
    "MPI_LB", "MPI_UB"};

/// "w", "a" and their "+" forms create or truncate; "r+" reads and may
/// write (isReadWriteMode).
bool isWriteMode(const std::string &fopenMode) { return fopenMode.find_first_of("wa") != std::string::npos; }
bool isReadWriteMode(const std::string &fopenMode) { return fopenMode.find('+') != std::string::npos; }

/// How the generator walks loops: the iteration counts of the enclosing loops.
struct LoopFrame {
  const ElasticValue *iterations;
};

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

  void emitNodes(const std::vector<Node> &nodes, const RankList &parentRanks, uint32_t depth) {
    for (const Node &node : nodes) {
      noteRanks(node.ranks);
      std::string guard = node.ranks == parentRanks ? "" : rankGuard(node.ranks, N_);
      if (node.isEvent() && node.event().inner)
        continue; // POSIX under MPI-IO: the replayed MPI-IO call does it again
      if (!guard.empty())
        body_.open("if (" + guard + ")");
      if (node.isLoop())
        emitLoop(node, depth);
      else
        emitEvent(node, depth);
      if (!guard.empty())
        body_.close();
    }
  }

  void emitLoop(const Node &node, uint32_t depth) {
    const Loop &loop = node.loop();
    if (!hasReplayedEvent(loop.body))
      return; // only inner events: nothing to replay, and no loop in the replay's trace either
    std::string index = "i" + std::to_string(depth);
    const sio::trace::LoopInfo *info = loop.id ? trace_.loopInfo(loop.id) : nullptr;
    body_.comment(info ? "loop at " + location(info->file, info->line, info->column)
                       : std::string("loop found by the runtime (no source location)"));
    context_ = "iteration count of the loop" + (info ? " at " + location(info->file, info->line, info->column) : "");
    // A count that differs between ranks becomes a local: keep it in a block,
    // so that sibling loops (a choice run's guards) can each have one.
    const bool elastic = !loop.iterations.isUniform();
    if (elastic)
      body_.open("");
    std::string count = valueText(loop.iterations, node.ranks, "iterations" + std::to_string(depth), depth);
    noteCheck(loop.iterations, node.ranks, depth, context_);
    body_.open("for (i64 " + index + " = 0, n" + std::to_string(depth) + " = iterations(" + count + "); " + index +
               " < n" + std::to_string(depth) + "; ++" + index + ")");
    loops_.push_back({&loop.iterations});
    emitNodes(loop.body, node.ranks, depth + 1);
    loops_.pop_back();
    body_.close();
    if (elastic)
      body_.close();
  }

  static bool hasReplayedEvent(const std::vector<Node> &nodes) {
    for (const Node &n : nodes)
      if (n.isLoop() ? hasReplayedEvent(n.loop().body) : !n.event().inner)
        return true;
    return false;
  }

  /// C++ for an elastic value: inline when one value serves every rank,
  /// otherwise a local variable set under rank guards (emitted now).
  std::string valueText(const ElasticValue &value, const RankList &nodeRanks, const std::string &name,
                        uint32_t depth) {
    (void)depth;
    if (value.entries().empty())
      throw UnsupportedTrace(context_ + ": value " + name + " has no entries");
    for (const auto &entry : value.entries())
      noteRanks(entry.ranks);
    if (value.isUniform() || value.entries().size() == 1)
      return valueCpp(value.entries()[0].value);
    bool isString = std::holds_alternative<std::string>(value.entries()[0].value);
    std::string local = name + "Value";
    body_.line((isString ? "std::string " : "i64 ") + local + (isString ? ";" : " = 0;"));
    bool first = true;
    for (const auto &entry : value.entries()) {
      std::string guard = rankGuard(entry.ranks, N_);
      if (guard.empty())
        guard = "true";
      body_.line(std::string(first ? "if (" : "else if (") + guard + ")");
      body_.line("  " + local + " = " + valueCpp(entry.value) + ";");
      first = false;
    }
    body_.line("else");
    std::string failure = "modelFailure(\"no value of " + name + " for this rank\")";
    body_.line("  " + local + " = " + (isString ? "(" + failure + ", std::string())" : failure) + ";");
    (void)nodeRanks;
    return isString ? local + ".c_str()" : local;
  }

  static std::string valueCpp(const Value &value) {
    if (const auto *text = std::get_if<std::string>(&value))
      return cppStringLiteral(*text);
    return exprToCpp(std::get<Expr>(value));
  }

  /// Collects loop-independent values that can fail for the start-up check.
  void noteCheck(const ElasticValue &value, const RankList &nodeRanks, uint32_t, const std::string &what) {
    for (const auto &entry : value.entries()) {
      const Expr *expr = std::get_if<Expr>(&entry.value);
      if (!expr || expr->loopDepthUsed() > 0 || !canFail(*expr))
        continue;
      std::string guard = rankGuard(value.isUniform() ? nodeRanks : entry.ranks, N_);
      checks_.push_back({guard, exprToCpp(*expr), what});
    }
  }

  void noteRanks(const RankList &ranks) { highestNamedRank_ = std::max(highestNamedRank_, highestNamedRank(ranks, N_)); }

  static std::string location(const std::string &file, uint32_t line, uint32_t column) {
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }

  std::string siteText(const Event &event) const {
    const sio::trace::SiteInfo *site = event.site ? trace_.site(event.site) : nullptr;
    return site ? location(site->file, site->line, site->column) : "";
  }

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

  void emitEvent(const Node &node, uint32_t depth) {
    const Event &event = node.event();
    std::string site = siteText(event);
    context_ = event.op + (site.empty() ? "" : " at " + site);
    // Parameters that differ between ranks become locals: keep them in a block.
    bool elastic = false;
    for (const auto &param : event.params)
      elastic |= !param.value.isUniform();
    if (elastic)
      body_.open("");
    body_.comment(site.empty() ? event.op + " (no source location)" : site);
    Params p(*this, node, depth);
    checkObjects(node);
    std::vector<std::string> call = callText(node, p);
    noteRequestSizes(node, p, depth);
    noteSeek(event, p);
    noteWrites(node, p);
    std::string gap = gapModel(event.compute);
    body_.line("beforeCall(" + cppStringLiteral(context_) + ", " + gap + ");");
    for (const auto &line : call)
      body_.line(line);
    body_.line("afterCall();");
    if (elastic)
      body_.close();
  }

  /// Refuses a call that uses an object the replay cannot rebuild (a null
  /// handle in the replay): a datatype missing from the table, built on a
  /// type the runtime could not describe, or MPI_DATATYPE_NULL where the
  /// application's call succeeded; a communicator without members. A call
  /// that failed in the application may pass a null handle: the replay
  /// expects the same failure.
  void checkObjects(const Node &node) const {
    const Event &e = node.event();
    const bool failed = e.param("error") != nullptr;
    auto refuse = [&](const std::string &what, const std::string &why) {
      throw UnsupportedTrace(context_ + ": " + what + ", which the replay cannot rebuild: " + why);
    };
    for (const auto &param : e.params) {
      if (namesDatatype(param.name)) {
        auto ids = possibleIds(param.value);
        if (!ids) {
          for (const auto &t : trace_.datatypes)
            if (types_.status(t.id).kind == Rebuild::Kind::Impossible)
              refuse("its " + param.name + " is a formula, which may name datatype " + std::to_string(t.id),
                     types_.status(t.id).why);
          continue;
        }
        for (int64_t id : *ids) {
          const Rebuild &r = types_.status(id);
          if (r.kind == Rebuild::Kind::Impossible || (r.kind == Rebuild::Kind::Null && !failed))
            refuse("its " + param.name + " is datatype " + std::to_string(id), r.why);
        }
      } else if (param.name == "newtype") {
        // A constructor: the entries it made must be buildable.
        for (const auto &t : trace_.datatypes)
          if (madeAtEvent(t) && t.name == e.op && t.site == e.site) {
            const Rebuild &r = types_.status(t.id);
            if (r.kind == Rebuild::Kind::Impossible)
              refuse("it made datatype " + std::to_string(t.id), r.why);
          }
      } else if ((param.name == "comm" || param.name == "peer_comm") && !failed) {
        auto ids = possibleIds(param.value);
        for (const auto &c : trace_.comms)
          if (c.kind == "other" && members(c).empty() && (!ids || ids->count(c.id)))
            refuse("its " + param.name + " is communicator " + std::to_string(c.id),
                   "made by a call sio does not intercept, and the trace does not record its members");
      }
    }
  }

  std::string gapModel(const TimingStats &compute) {
    if (compute.count() == 0)
      return "nullptr";
    std::vector<std::string> bins;
    double expected = 0;
    for (int b = 0; b < TimingStats::kBins; ++b) {
      uint64_t n = compute.histogram()[size_t(b)];
      if (!n)
        continue;
      bins.push_back("{" + std::to_string(b) + ", " + std::to_string(n) + "}");
      double low = b == 0 ? 0.0 : std::ldexp(1.0, b - 1), high = b == 0 ? 0.0 : std::ldexp(1.0, b);
      low = std::max(low, double(compute.min()));
      high = std::min(high, double(compute.max()));
      expected += double(n) / double(compute.count()) * (high > low ? (low + high) / 2 : low);
    }
    double scale = expected > 0 && compute.min() != compute.max() ? compute.mean() / expected : 1.0;
    std::ostringstream model;
    model.precision(17);
    model << "{" << compute.min() << ", " << compute.max() << ", " << scale << ", {" << join(bins, ", ") << "}}";
    std::ostringstream comment;
    comment.precision(3);
    comment << "[" << gaps_.size() << "] " << context_ << ": mean " << compute.mean() / 1e6 << " ms over "
            << compute.count() << " samples";
    gaps_.push_back({model.str(), comment.str()});
    return "&gaps[" + std::to_string(gaps_.size() - 1) + "]";
  }

  // ---- calls ------------------------------------------------------------

  std::string comm(Params &p, const std::string &name = "comm") { return "comm[" + p(name) + "]"; }
  std::string type(Params &p, const std::string &name = "datatype") { return "datatype[" + p(name) + "]"; }
  /// The path a file parameter names here. Names with loop-index fields
  /// (`dir.<rank>/file.<i0>`) get the indices of the loops around the call.
  std::string path(Params &p, const std::string &name = "file") {
    if (auto id = p.constant(name)) {
      usedFiles_.insert(*id);
    } else {
      // An id that is itself a function of rank or the indices: any file may be meant.
      for (const auto &file : trace_.files)
        usedFiles_.insert(file.id);
    }
    std::vector<std::string> indices;
    for (size_t d = 0; d < loops_.size(); ++d)
      indices.push_back("i" + std::to_string(d));
    return "mappedPath(fileName(" + p(name) + (indices.empty() ? "" : ", {" + join(indices, ", ") + "}") +
           ")).c_str()";
  }

  /// The recorded failure of a call as the arguments of the replay's
  /// expect*Failure helpers: `MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE"`,
  /// `EBADF, "EBADF"` (symbolic where the number has a name, so the replay
  /// compares classes of its own MPI); empty if the call did not fail.
  static std::string expectedOrAny(const std::string &expected) {
    return expected.empty() ? "-1, \"a failure\"" : expected;
  }
  std::string expectedError(const Event &e, Params &p) {
    if (!p.has("error"))
      return "";
    auto code = p.constant("error");
    if (code)
      if (auto name = sio::trace::errorName(e.layer, *code); name && *code > 0)
        return *name + ", " + cppStringLiteral(*name);
    std::string value = code ? std::to_string(*code) : "toInt(" + p("error") + ")";
    std::string what = e.layer == Layer::MPIIO || e.layer == Layer::SYNC ? "MPI error class " : "errno ";
    return value + ", " + cppStringLiteral(what + (code ? std::to_string(*code) : "of the trace"));
  }

  std::vector<std::string> callText(const Node &node, Params &p) {
    const Event &e = node.event();
    const std::string &op = e.op;
    // A call that failed in the application is an attempt expected to fail
    // the same way (docs/replay.md, Failed calls).
    const std::string expected = expectedError(e, p);
    auto mpi = [&](const std::string &call) {
      return expected.empty() ? "countMpi(" + call + ");" : "expectMpiFailure(" + call + ", " + expected + ");";
    };
    auto posix = [&](const std::string &call) {
      return expected.empty() ? "countPosix(" + call + ");" : "expectPosixFailure(" + call + ", " + expected + ");";
    };
    // A file handle the application never got (its open failed) is MPI_FILE_NULL.
    auto fhArg = [&] { return p.constant("fh") == -1 ? std::string("failedFile") : "fh[" + p("fh") + "]"; };
    auto intArg = [&](const std::string &name) {
      auto c = p.constant(name);
      return c && *c >= INT32_MIN && *c <= INT32_MAX ? std::to_string(*c) : "toInt(" + p(name) + ")";
    };

    switch (e.layer) {
    case Layer::MPIIO: {
      if (op == "MPI_File_open") {
        std::string amode = p.constant("amode") ? decodeFlags(*p.constant("amode"), kAmodes, nullptr) : intArg("amode");
        std::string head = "MPI_File_open(" + comm(p) + ", " + path(p) + ", " + amode + ", info[" + p("info") + "], &";
        auto recorded = p.constant("fh");
        if (recorded && *recorded < 0) // it failed in the application: the fh table skips it
          return {"expectMpiOpenFailure(" + head + "failedFile), " + expectedOrAny(expected) + ");"};
        // An amode that differs between ranks or iterations counts as writing
        // (MPI_MODE_WRONLY as the default), as POSIX flags do: the overwrite
        // check stays on.
        const int64_t amodeBits = p.constant("amode").value_or(4);
        noteOpen(p, "fh", amodeBits & (1 | 4) ? OpenIntent::Writing : amodeBits & 8 ? OpenIntent::ReadWrite : OpenIntent::Reading);
        return {"mustSucceedMpi(" + head + fhArg() + "));"};
      }
      if (op == "MPI_File_close")
        return {mpi("MPI_File_close(&" + fhArg() + ")")};
      if (op == "MPI_File_delete")
        return {mpi("MPI_File_delete(" + path(p) + ", info[" + p("info") + "])")};
      if (op == "MPI_File_set_size" || op == "MPI_File_preallocate")
        return {mpi(op + "(" + fhArg() + ", " + p("size") + ")")};
      if (op == "MPI_File_get_size" || op == "MPI_File_get_position" || op == "MPI_File_get_position_shared")
        return {mpi(op + "(" + fhArg() + ", &scratchOffset)")};
      if (op == "MPI_File_get_byte_offset")
        return {mpi(op + "(" + fhArg() + ", " + p("offset") + ", &scratchOffset)")};
      if (op == "MPI_File_set_view") {
        noteView(p);
        return {mpi("MPI_File_set_view(" + fhArg() + ", " + p("disp") + ", " + type(p, "etype") + ", " +
                    type(p, "filetype") + ", " + p.string("datarep") + ", info[" + p("info") + "])")};
      }
      if (op == "MPI_File_get_view")
        return {mpi("MPI_File_get_view(" + fhArg() + ", &scratchOffset, &scratchEtype, &scratchFiletype, scratchDatarep)")};
      if (op == "MPI_File_seek" || op == "MPI_File_seek_shared")
        return {mpi(op + "(" + fhArg() + ", " + p("offset") + ", " + intArg("whence") + ")")};
      if (op == "MPI_File_sync")
        return {mpi(op + "(" + fhArg() + ")")};
      if (op == "MPI_File_set_atomicity")
        return {mpi(op + "(" + fhArg() + ", " + intArg("flag") + ")")};
      if (op == "MPI_File_get_atomicity" || op == "MPI_File_get_amode")
        return {mpi(op + "(" + fhArg() + ", &scratchInt)")};
      if (op == "MPI_File_set_info")
        return {mpi(op + "(" + fhArg() + ", info[" + p("info") + "])")};
      if (op == "MPI_File_get_info")
        return {mpi(op + "(" + fhArg() + ", &scratchInfo)"), "MPI_Info_free(&scratchInfo);"};
      if (op == "MPI_File_get_group")
        return {mpi(op + "(" + fhArg() + ", &scratchGroup)"), "MPI_Group_free(&scratchGroup);"};
      if (op == "MPI_File_get_type_extent")
        return {mpi(op + "(" + fhArg() + ", " + type(p) + ", &scratchAint)")};
      if (op == "MPI_Wait")
        return {mpi("MPI_Wait(&request[" + p("request") + "], MPI_STATUS_IGNORE)")};
      if (op == "MPI_Test")
        return {mpi("MPI_Test(&request[" + p("request") + "], &scratchInt, MPI_STATUS_IGNORE)")};
      if (op == "MPI_Waitall" || op == "MPI_Waitany" || op == "MPI_Waitsome" || op == "MPI_Testall" ||
          op == "MPI_Testany" || op == "MPI_Testsome") {
        std::string count = p("count"), first = p("request");
        std::string tail = op == "MPI_Waitall"    ? "MPI_STATUSES_IGNORE"
                           : op == "MPI_Waitany"  ? "&scratchIndex, MPI_STATUS_IGNORE"
                           : op == "MPI_Waitsome" ? "&scratchIndex, indices(" + count + "), MPI_STATUSES_IGNORE"
                           : op == "MPI_Testall"  ? "&scratchInt, MPI_STATUSES_IGNORE"
                           : op == "MPI_Testany"  ? "&scratchIndex, &scratchInt, MPI_STATUS_IGNORE"
                                                  : "&scratchIndex, indices(" + count + "), MPI_STATUSES_IGNORE";
        return {"{",
                "  std::vector<MPI_Request> requests = requestArray(" + count + ", " + first + ");",
                "  " + mpi(op + "(toInt(" + count + "), requests.data(), " + tail + ")"),
                "  storeRequests(requests, " + first + ");",
                "}"};
      }
      return dataAccess(op, p, fhArg, intArg, mpi);
    }
    case Layer::POSIX: {
      auto fdArg = [&] { return "fd[" + p("fd") + "]"; };
      auto bytes = [&](const std::string &name) { return "buffer.bytes(" + p(name) + "), size_t(" + p(name) + ")"; };
      if (op == "open" || op == "openat" || op == "creat") {
        std::string flags = op == "creat" ? "" : (p.constant("flags") ? decodeFlags(*p.constant("flags"), kOpenFlags, "O_RDONLY") : intArg("flags"));
        std::string mode;
        if (p.has("mode")) {
          auto m = p.constant("mode");
          char octal[32];
          std::snprintf(octal, sizeof octal, "0%llo", static_cast<unsigned long long>(m ? *m : 0));
          mode = m ? std::string(octal) : "mode_t(" + p("mode") + ")";
        }
        int64_t flagBits = op == "creat" ? 01 : p.constant("flags").value_or(02);
        auto recorded = p.constant("fd");
        const bool failed = recorded && *recorded < 0;
        if (!failed)
          noteOpen(p, "fd", (flagBits & 03) == 01 || (flagBits & (0100 | 01000 | 02000)) ? OpenIntent::Writing
                            : (flagBits & 03) == 02                                          ? OpenIntent::ReadWrite
                                                                                             : OpenIntent::Reading);
        std::string args = op == "openat" ? "AT_FDCWD, " : "";
        args += path(p);
        if (!flags.empty())
          args += ", " + flags;
        if (!mode.empty())
          args += ", " + mode;
        if (failed) // it failed in the application: the fd table skips it
          return {"expectOpenFailure(" + op + "(" + args + "), " + expectedOrAny(expected) + ");"};
        return {fdArg() + " = " + op + "(" + args + ");", "mustSucceedPosix(" + fdArg() + " >= 0);"};
      }
      if (op == "close" || op == "fsync" || op == "fdatasync")
        return {posix(op + "(" + fdArg() + ")")};
      if (op == "dup" || op == "dup2")
        return duplicate(op, p, expected, posix);
      if (op == "read" || op == "write")
        return {posix(op + "(" + fdArg() + ", " + bytes("count") + ")")};
      if (op == "pread" || op == "pwrite")
        return {posix(op + "(" + fdArg() + ", " + bytes("count") + ", off_t(" + p("offset") + "))")};
      // `bytes` is recorded for successful calls only (a failed call's iovec
      // array may not be readable): a failed one gets an empty array.
      auto iov = [&] { return "buffer.iov(" + p("iovcnt") + ", " + (p.has("bytes") ? p("bytes") : "0") + ")"; };
      if (op == "readv" || op == "writev")
        return {posix(op + "(" + fdArg() + ", " + iov() + ", " + intArg("iovcnt") + ")")};
      if (op == "preadv" || op == "pwritev")
        return {posix(op + "(" + fdArg() + ", " + iov() + ", " + intArg("iovcnt") + ", off_t(" + p("offset") + "))")};
      if (op == "lseek")
        return {posix("lseek(" + fdArg() + ", off_t(" + p("offset") + "), " + whence(p) + ")")};
      if (op == "ftruncate")
        return {posix("ftruncate(" + fdArg() + ", off_t(" + p("length") + "))")};
      if (op == "unlink")
        return {posix("unlink(" + path(p) + ")")};
      // Metadata calls (issue 15): paths through the same file table.
      if (op == "unlinkat")
        return {posix("unlinkat(AT_FDCWD, " + path(p) + ", " + intArg("flags") + ")")};
      if (op == "mkdir" || op == "mkdirat") {
        auto m = p.constant("mode");
        char octal[32];
        std::snprintf(octal, sizeof octal, "0%llo", static_cast<unsigned long long>(m ? *m : 0));
        return {posix("mkdir(" + path(p) + ", " + (m ? std::string(octal) : "mode_t(" + p("mode") + ")") + ")")};
      }
      if (op == "rmdir" || op == "stat" || op == "lstat")
        return {posix(op + "(" + path(p) + (op == "rmdir" ? "" : ", &scratchStat") + ")")};
      if (op == "rename" || op == "renameat")
        return {posix("rename(" + path(p) + ", " + path(p, "newfile") + ")")};
      if (op == "access")
        return {posix("access(" + path(p) + ", " + intArg("mode") + ")")};
      if (op == "faccessat")
        return {posix("faccessat(AT_FDCWD, " + path(p) + ", " + intArg("mode") + ", " + intArg("flags") + ")")};
      if (op == "fstat")
        return {posix("fstat(" + fdArg() + ", &scratchStat)")};
      if (op == "fstatat")
        return {posix("fstatat(AT_FDCWD, " + path(p) + ", &scratchStat, " + intArg("flags") + ")")};
      if (op == "statx")
        return {posix("statx(AT_FDCWD, " + path(p) + ", " + intArg("flags") + ", unsigned(" + p("mask") +
                      "), &scratchStatx)")};
      if (op == "truncate")
        return {posix("truncate(" + path(p) + ", off_t(" + p("length") + "))")};
      if (op == "opendir") {
        auto recorded = p.constant("dir");
        if (recorded && *recorded < 0) // it failed in the application too
          return {"if (DIR *failed = opendir(" + path(p) + "))", "  closedir(failed);"};
        std::string dirArg = "dir[" + p("dir") + "]";
        return {dirArg + " = opendir(" + path(p) + ");", "mustSucceedPosix(" + dirArg + " != nullptr);"};
      }
      if (op == "readdir")
        return {"readdir(dir[" + p("dir") + "]);"};
      if (op == "closedir")
        return {posix("closedir(dir[" + p("dir") + "])")};
      break;
    }
    case Layer::STDIO: {
      auto streamArg = [&] { return "stream[" + p("stream") + "]"; };
      if (op == "fopen") {
        std::string mode = p.string("mode");
        const OpenIntent intent = streamOpenIntent(e);
        auto recorded = p.constant("stream");
        if (recorded && *recorded < 0) // it failed in the application: the stream table skips it
          return {"expectFopenFailure(fopen(" + path(p) + ", " + mode + "), " + expectedOrAny(expected) + ");"};
        noteOpen(p, "stream", intent);
        return {streamArg() + " = fopen(" + path(p) + ", " + mode + ");", "mustSucceedPosix(" + streamArg() + " != nullptr);"};
      }
      if (op == "fclose" || op == "fflush")
        return {posix(op + "(" + streamArg() + ")")};
      // A stream on a recorded descriptor (fclose releases both).
      if (op == "fdopen") {
        auto recorded = p.constant("stream");
        if (recorded && *recorded < 0)
          return {"expectFopenFailure(fdopen(fd[" + p("fd") + "], " + p.string("mode") + "), " +
                  expectedOrAny(expected) + ");"};
        return {streamArg() + " = fdopen(fd[" + p("fd") + "], " + p.string("mode") + ");",
                "mustSucceedPosix(" + streamArg() + " != nullptr);"};
      }
      // The stream now names another file: a recorded stream, a standard
      // stream (`oldfd` 0-2), or one the replay does not have (opened before
      // the runtime), for which a scratch stream on /dev/null stands in.
      if (op == "freopen") {
        std::string old;
        if (p.constant("oldstream").value_or(0) >= 0)
          old = "stream[" + p("oldstream") + "]";
        else if (auto fdNo = p.constant("oldfd"); fdNo && *fdNo >= 0 && *fdNo <= 2)
          old = *fdNo == 0 ? "stdin" : *fdNo == 1 ? "stdout" : "stderr";
        else
          old = "std::fopen(\"/dev/null\", \"r\")";
        const OpenIntent intent = streamOpenIntent(e);
        auto recorded = p.constant("stream");
        std::string call = "freopen(" + path(p) + ", " + p.string("mode") + ", " + old + ")";
        if (recorded && *recorded < 0)
          return {"expectFopenFailure(" + call + ", " + expectedOrAny(expected) + ");"};
        noteOpen(p, "stream", intent);
        return {streamArg() + " = " + call + ";", "mustSucceedPosix(" + streamArg() + " != nullptr);"};
      }
      // Character, string and formatted output: `result` bytes through the
      // same kind of call (content is not kept), so tracing the replay
      // records the same operation and bytes.
      if (op == "fputc")
        return {p.constant("result") == 0 ? "// fputc: nothing written in the application"
                                          : posix("fputc('r', " + streamArg() + ")")};
      if (op == "fputs")
        return {posix("fputs(buffer.text(" + p("result") + "), " + streamArg() + ")")};
      if (op == "fprintf")
        return {posix("fprintf(" + streamArg() + ", \"%.*s\", toInt(" + p("result") + "), buffer.text(" + p("result") +
                      "))")};
      if (op == "dprintf")
        return {posix("dprintf(fd[" + p("fd") + "], \"%.*s\", toInt(" + p("result") + "), buffer.text(" + p("result") +
                      "))")};
      if (op == "fputws")
        return {posix("fputws(buffer.wideText(" + p("result") + "), " + streamArg() + ")")};
      // Input: `result` bytes (the input file is made long enough and holds
      // no line ends, so each call reads what it read in the application).
      if (op == "fgetc")
        return {"fgetc(" + streamArg() + ");"};
      if (op == "fgets")
        return {"fgets(static_cast<char *>(buffer.bytes(" + p("result") + " + 1)), toInt(" + p("result") + " + 1), " +
                streamArg() + ");"};
      if (op == "getline" || op == "getdelim")
        return {"readLine(" + streamArg() + ", " + (op == "getdelim" ? intArg("delim") : std::string("'\\n'")) + ", " +
                p("result") + ", " + (op == "getdelim" ? "true" : "false") + ");"};
      if (op == "fscanf")
        return {"fscanf(" + streamArg() + ", scanChars(" + p("result") + "));"};
      if (op == "fgetws")
        return {"fgetws(static_cast<wchar_t *>(buffer.bytes((" + p("result") +
                " + 1) * i64(sizeof(wchar_t)))), toInt(" + p("result") + " + 1), " + streamArg() + ");"};
      if (op == "fwscanf")
        return {"fwscanf(" + streamArg() + ", wideScanChars(" + p("result") + "));"};
      if (op == "fread" || op == "fwrite")
        return {posix(op + "(buffer.bytes(" + p("size") + " * " + p("nmemb") + "), size_t(" + p("size") + "), size_t(" +
                      p("nmemb") + "), " + streamArg() + ")")};
      if (op == "fseek")
        return {posix("fseeko(" + streamArg() + ", off_t(" + p("offset") + "), " + whence(p) + ")")};
      if (op == "ftell")
        return {posix("ftello(" + streamArg() + ")")};
      break;
    }
    case Layer::SYNC: {
      auto root = [&] { return intArg("root"); };
      if (op == "MPI_Barrier")
        return {mpi("MPI_Barrier(" + comm(p) + ")")};
      if (op == "MPI_Bcast")
        return {mpi("MPI_Bcast(&syncSend, 1, MPI_INT, " + root() + ", " + comm(p) + ")")};
      if (op == "MPI_Reduce")
        return {mpi("MPI_Reduce(&syncSend, &syncReceive, 1, MPI_INT, MPI_SUM, " + root() + ", " + comm(p) + ")")};
      if (op == "MPI_Allreduce")
        return {mpi("MPI_Allreduce(&syncSend, &syncReceive, 1, MPI_INT, MPI_SUM, " + comm(p) + ")")};
      if (op == "MPI_Gather")
        return {mpi("MPI_Gather(&syncSend, 1, MPI_INT, perRank(syncReceiveAll, " + comm(p) + "), 1, MPI_INT, " + root() +
                    ", " + comm(p) + ")")};
      if (op == "MPI_Allgather")
        return {mpi("MPI_Allgather(&syncSend, 1, MPI_INT, perRank(syncReceiveAll, " + comm(p) + "), 1, MPI_INT, " +
                    comm(p) + ")")};
      if (op == "MPI_Scatter")
        return {mpi("MPI_Scatter(perRank(syncSendAll, " + comm(p) + "), 1, MPI_INT, &syncReceive, 1, MPI_INT, " + root() +
                    ", " + comm(p) + ")")};
      if (op == "MPI_Alltoall")
        return {mpi("MPI_Alltoall(perRank(syncSendAll, " + comm(p) + "), 1, MPI_INT, perRank(syncReceiveAll, " + comm(p) +
                    "), 1, MPI_INT, " + comm(p) + ")")};
      if (op == "MPI_Comm_split" || op == "MPI_Comm_dup") {
        std::string out;
        if (p.has("newcomm")) {
          out = "newComm(" + p("newcomm") + ")"; // its comm-table id; -1: MPI_COMM_NULL
        } else { // traces before `newcomm` was recorded: the k-th call makes the k-th entry
          auto slot = newComms_.find(&e);
          if (slot == newComms_.end())
            throw UnsupportedTrace(context_ + ": no " + (op == "MPI_Comm_split" ? "split" : "dup") +
                                   " communicator in the trace's comm table for it");
          out = "&comm[" + std::to_string(slot->second) + "]";
        }
        if (op == "MPI_Comm_dup")
          return throughCommMaker(e, {mpi("MPI_Comm_dup(" + comm(p) + ", " + out + ")")});
        return throughCommMaker(
            e, {mpi("MPI_Comm_split(" + comm(p) + ", " + intArg("color") + ", " + intArg("key") + ", " + out + ")")});
      }
      if (op == "MPI_Comm_split_type" || op == "MPI_Comm_dup_with_info" || op == "MPI_Comm_idup" ||
          op == "MPI_Comm_create" || op == "MPI_Comm_create_group" || op == "MPI_Cart_create" ||
          op == "MPI_Cart_sub" || op == "MPI_Intercomm_create" || op == "MPI_Intercomm_merge")
        return throughCommMaker(e, commConstructor(node, p, intArg));
      if (op == "MPI_Dims_create") {
        // The recorded grid as the input: MPI keeps a complete grid, so the
        // replay's trace records the same output whatever constraints the
        // application passed.
        std::vector<std::string> dims;
        for (int k = 0; p.has("dims" + std::to_string(k)); ++k)
          dims.push_back("toInt(" + p("dims" + std::to_string(k)) + ")");
        return {"{",
                "  std::vector<int> dims = {" + join(dims, ", ") + "};",
                "  dims.resize(size_t(" + intArg("ndims") + " > 0 ? " + intArg("ndims") + " : 1));",
                "  " + mpi("MPI_Dims_create(" + intArg("nnodes") + ", " + intArg("ndims") + ", dims.data())"),
                "}"};
      }
      if (op == "MPI_Comm_free")
        return {mpi("MPI_Comm_free(&" + comm(p) + ")")};
      if (op == "MPI_Type_commit")
        return {mpi("MPI_Type_commit(&" + type(p) + ")")};
      if (op == "MPI_Type_free")
        return {mpi("MPI_Type_free(&" + type(p) + ")"), "typeFreed(" + p("datatype") + ");"};
      if (op.rfind("MPI_Type_", 0) == 0 && p.has("newtype"))
        return typeConstructor(node, p);
      break;
    }
    }
    throw UnsupportedTrace(context_ + ": the replay generator does not support " + std::string(sio::trace::layerName(e.layer)) +
                           " operation '" + op + "'");
  }

  /// A datatype-table entry made by an intercepted constructor (its name is
  /// the constructor): made again by that call in replay().
  static bool madeAtEvent(const ObjectEntry &t) { return t.kind != "named" && t.name.rfind("MPI_Type_", 0) == 0; }

  /// A datatype entry as MPI_Type_get_contents gives its constructor's
  /// arguments: integers, addresses, datatype ids (as C++ expressions).
  struct TypeArgs {
    std::vector<std::string> ints, aints, types;
  };
  TypeArgs typeArgs(const ObjectEntry &t) const {
    TypeArgs a;
    auto field = [&](const char *name) { return fieldCpp(t, name, false); };
    auto append = [](std::vector<std::string> &to, const std::vector<std::string> &from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    const std::string &k = t.kind;
    if (k == "contiguous") {
      a.ints = fieldCpp(t, "count");
    } else if (k == "vector") {
      a.ints = fieldCpp(t, "count");
      append(a.ints, fieldCpp(t, "blocklength"));
      append(a.ints, fieldCpp(t, "stride"));
    } else if (k == "hvector") {
      a.ints = fieldCpp(t, "count");
      append(a.ints, fieldCpp(t, "blocklength"));
      a.aints = fieldCpp(t, "stride");
    } else if (k == "indexed") {
      auto lengths = fieldCpp(t, "blocklengths");
      a.ints = {std::to_string(lengths.size())};
      append(a.ints, lengths);
      append(a.ints, fieldCpp(t, "displacements"));
    } else if (k == "subarray") {
      auto sizes = fieldCpp(t, "sizes");
      a.ints = {std::to_string(sizes.size())};
      append(a.ints, sizes);
      append(a.ints, fieldCpp(t, "subsizes"));
      append(a.ints, fieldCpp(t, "starts"));
      append(a.ints, fieldCpp(t, "order"));
    } else if (k != "dup") {
      a.ints = field("ints");
      a.aints = field("aints");
    }
    if (auto it = t.fields.find("types"); it != t.fields.end() && k == "struct")
      for (const Expr &x : it->second)
        a.types.push_back(exprToCpp(x));
    else
      a.types = fieldCpp(t, "oldtype");
    return a;
  }

  /// A datatype constructor of the application, called again with the
  /// arguments of the entry it made (one call site, whichever entry the
  /// `newtype` id names there: a loop may make a new type per iteration).
  std::vector<std::string> typeConstructor(const Node &node, Params &p) {
    const Event &e = node.event();
    const std::string &op = e.op;
    static const std::map<std::string, std::string> kCalls = {
        {"MPI_Type_contiguous", "MPI_Type_contiguous(I[0], T[0], out)"},
        {"MPI_Type_vector", "MPI_Type_vector(I[0], I[1], I[2], T[0], out)"},
        {"MPI_Type_create_hvector", "MPI_Type_create_hvector(I[0], I[1], A[0], T[0], out)"},
        {"MPI_Type_indexed", "MPI_Type_indexed(I[0], &I[1], &I[size_t(1 + I[0])], T[0], out)"},
        {"MPI_Type_create_hindexed", "MPI_Type_create_hindexed(I[0], &I[1], A.data(), T[0], out)"},
        {"MPI_Type_create_indexed_block", "MPI_Type_create_indexed_block(I[0], I[1], &I[2], T[0], out)"},
        {"MPI_Type_create_hindexed_block", "MPI_Type_create_hindexed_block(I[0], I[1], A.data(), T[0], out)"},
        {"MPI_Type_create_struct", "MPI_Type_create_struct(I[0], &I[1], A.data(), T.data(), out)"},
        {"MPI_Type_create_subarray",
         "MPI_Type_create_subarray(I[0], &I[1], &I[size_t(1 + I[0])], &I[size_t(1 + 2 * I[0])], "
         "I[size_t(1 + 3 * I[0])], T[0], out)"},
        {"MPI_Type_create_darray",
         "MPI_Type_create_darray(I[0], I[1], I[2], &I[3], &I[size_t(3 + I[2])], &I[size_t(3 + 2 * I[2])], "
         "&I[size_t(3 + 3 * I[2])], I[size_t(3 + 4 * I[2])], T[0], out)"},
        {"MPI_Type_create_resized", "MPI_Type_create_resized(T[0], A[0], A[1], out)"},
        {"MPI_Type_dup", "MPI_Type_dup(T[0], out)"},
    };
    auto call = kCalls.find(op);
    if (call == kCalls.end())
      throw UnsupportedTrace(context_ + ": the replay generator does not support datatype constructor '" + op + "'");
    std::vector<const ObjectEntry *> made;
    for (const auto &t : trace_.datatypes)
      if (madeAtEvent(t) && t.name == op && t.site == e.site)
        made.push_back(&t);
    if (made.empty()) {
      // It failed on every rank (newtype -1): nothing of its arguments is in
      // the trace.
      noteApproximation(op + " at " + siteText(e) + " failed in the application and is not replayed");
      return {"// " + op + ": failed in the application, not replayed"};
    }
    std::vector<std::string> lines = {"{",
                                      "  const i64 madeId = " + p("newtype") + ";",
                                      "  std::vector<int> I;",
                                      "  std::vector<MPI_Aint> A;",
                                      "  std::vector<MPI_Datatype> T;",
                                      "  switch (madeId) {"};
    for (const ObjectEntry *t : made) {
      TypeArgs a = typeArgs(*t);
      std::vector<std::string> types;
      for (const std::string &id : a.types)
        types.push_back("datatype[" + id + "]");
      lines.push_back("  case " + std::to_string(t->id) + ":");
      lines.push_back("    " + vectorAssign("I", "int", a.ints, intArray));
      lines.push_back("    " + vectorAssign("A", "MPI_Aint", a.aints, aintArray));
      lines.push_back("    T = {" + join(types, ", ") + "};");
      lines.push_back("    break;");
    }
    lines.push_back("  default:");
    lines.push_back("    fail(std::string(currentCall) + \": no datatype \" + std::to_string(madeId) + \" made here in "
                    "the trace\");");
    lines.push_back("  }");
    lines.push_back("  MPI_Datatype *out = newType(madeId);");
    lines.push_back("  countMpi(" + typeMaker(e, call->second) + "(I, A, T, out));");
    lines.push_back("}");
    return lines;
  }

  /// The function that makes the types of one constructor site of the
  /// application. The runtime identifies a made type by its site and
  /// contents (one entry for a helper that makes the same type at every
  /// call); a replay calling the constructor at one place of its body per
  /// call gave its own trace an entry per place. All the calls of one
  /// application site go through one call site of the replay instead.
  std::string typeMaker(const Event &e, const std::string &call) {
    const auto key = std::make_pair(e.op, e.site);
    auto it = typeMakers_.find(key);
    if (it != typeMakers_.end())
      return it->second;
    const std::string name = "makeDatatypeAtSite" + std::to_string(typeMakers_.size());
    typeMakers_.emplace(key, name);
    siteFunctionDefs_.comment(e.op + " at " + siteText(e) + ": every type the application made there.");
    siteFunctionDefs_.open(
        "int " + name +
        "(const std::vector<int> &I, const std::vector<MPI_Aint> &A, const std::vector<MPI_Datatype> &T, "
        "MPI_Datatype *out)");
    siteFunctionDefs_.line("(void)I, (void)A, (void)T;");
    siteFunctionDefs_.line("return " + call + ";");
    siteFunctionDefs_.close();
    siteFunctionDefs_.blank();
    return name;
  }

  /// The comm-table entry a constructor event made on some rank (the
  /// arguments that every caller passes alike: dims, periods, remain_dims).
  const ObjectEntry &madeEntry(const Event &e) const {
    if (const auto *param = e.param("newcomm"))
      for (const auto &entry : param->value.entries())
        if (const Expr *x = std::get_if<Expr>(&entry.value))
          if (auto id = x->constantValue(); id && *id >= 0)
            for (const auto &c : trace_.comms)
              if (c.id == *id)
                return c;
    throw UnsupportedTrace(context_ + ": no rank got a communicator from it, so its arguments are not in the trace");
  }

  std::string fieldInts(const ObjectEntry &c, const std::string &name) const {
    auto it = c.fields.find(name);
    if (it == c.fields.end() || it->second.empty())
      throw UnsupportedTrace(context_ + ": communicator " + std::to_string(c.id) + " has no field '" + name + "'");
    std::vector<std::string> v;
    for (const Expr &x : it->second)
      v.push_back("toInt(" + exprToCpp(x) + ")");
    return join(v, ", ");
  }

  /// Communicators, like datatypes (typeMaker), are identified by their
  /// constructor's call site and the order of its calls: a loop body the
  /// replay writes once per rank group would give each group's calls a site
  /// of its own (8 entries in the application's comm table, 14 in its
  /// replay's). All the calls of one application site go through one
  /// function of the replay (makeCommSplitAtSite0, ...); `lines` call the
  /// constructor by its MPI name, which becomes the function's.
  std::vector<std::string> throughCommMaker(const Event &e, std::vector<std::string> lines) {
    static const std::map<std::string, std::pair<std::string, std::string>> kSignatures = {
        {"MPI_Comm_split", {"MPI_Comm comm, int color, int key, MPI_Comm *newcomm", "comm, color, key, newcomm"}},
        {"MPI_Comm_dup", {"MPI_Comm comm, MPI_Comm *newcomm", "comm, newcomm"}},
        {"MPI_Comm_split_type",
         {"MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm",
          "comm, split_type, key, info, newcomm"}},
        {"MPI_Comm_dup_with_info", {"MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm", "comm, info, newcomm"}},
        {"MPI_Comm_idup", {"MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request", "comm, newcomm, request"}},
        {"MPI_Comm_create", {"MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm", "comm, group, newcomm"}},
        {"MPI_Comm_create_group",
         {"MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm", "comm, group, tag, newcomm"}},
        {"MPI_Cart_create",
         {"MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *newcomm",
          "comm, ndims, dims, periods, reorder, newcomm"}},
        {"MPI_Cart_sub", {"MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm", "comm, remain_dims, newcomm"}},
        {"MPI_Intercomm_create",
         {"MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newcomm",
          "local_comm, local_leader, peer_comm, remote_leader, tag, newcomm"}},
        {"MPI_Intercomm_merge", {"MPI_Comm intercomm, int high, MPI_Comm *newcomm", "intercomm, high, newcomm"}},
    };
    auto signature = kSignatures.find(e.op);
    if (signature == kSignatures.end())
      return lines;
    const auto key = std::make_pair(e.op, e.site);
    auto it = commMakers_.find(key);
    if (it == commMakers_.end()) {
      // MPI_Cart_create -> makeCartCreateAtSite2: the body still says which
      // constructor it calls.
      std::string name = "make";
      for (size_t k = 4; k < e.op.size(); ++k)
        if (e.op[k] != '_')
          name += e.op[k - 1] == '_' ? char(std::toupper(static_cast<unsigned char>(e.op[k]))) : e.op[k];
      name += "AtSite" + std::to_string(commMakers_.size());
      it = commMakers_.emplace(key, name).first;
      siteFunctionDefs_.comment(e.op + " at " + siteText(e) + ": every communicator the application made there.");
      siteFunctionDefs_.open("int " + name + "(" + signature->second.first + ")");
      siteFunctionDefs_.line("return " + e.op + "(" + signature->second.second + ");");
      siteFunctionDefs_.close();
      siteFunctionDefs_.blank();
    }
    const std::string call = e.op + "(";
    for (std::string &line : lines)
      if (size_t at = line.find(call); at != std::string::npos)
        line.replace(at, call.size(), it->second + "(");
    return lines;
  }

  /// The communicator constructors of MPI 4.0 beyond split/dup, made again
  /// the way the application made them.
  template <class IntArg>
  std::vector<std::string> commConstructor(const Node &node, Params &p, IntArg intArg) {
    const Event &e = node.event();
    const std::string &op = e.op;
    auto mpi = [](const std::string &call) { return "countMpi(" + call + ");"; };
    if (!p.has("newcomm"))
      throw UnsupportedTrace(context_ + ": the trace does not say which communicator it made");
    std::string out = "newComm(" + p("newcomm") + ")";
    if (op == "MPI_Comm_split_type")
      return {mpi("MPI_Comm_split_type(" + comm(p) + ", " + intArg("split_type") + ", " + intArg("key") + ", info[" +
                  p("info") + "], " + out + ")")};
    if (op == "MPI_Comm_dup_with_info")
      return {mpi("MPI_Comm_dup_with_info(" + comm(p) + ", info[" + p("info") + "], " + out + ")")};
    if (op == "MPI_Comm_idup") {
      noteApproximation("MPI_Comm_idup at " + siteText(e) + " completes at once (the application waited later)");
      return {"{", "  MPI_Request dupRequest = MPI_REQUEST_NULL;", "  " + mpi("MPI_Comm_idup(" + comm(p) + ", " + out + ", &dupRequest)"),
              "  MPI_Wait(&dupRequest, MPI_STATUS_IGNORE);", "}"};
    }
    if (op == "MPI_Comm_create" || op == "MPI_Comm_create_group") {
      std::string call = op == "MPI_Comm_create" ? "MPI_Comm_create(" + comm(p) + ", group, " + out + ")"
                                                 : "MPI_Comm_create_group(" + comm(p) + ", group, " + intArg("tag") + ", " + out + ")";
      return {"{", "  MPI_Group group = memberGroup(" + p("newcomm") + ");", "  " + mpi(call), "  freeGroup(group);", "}"};
    }
    if (op == "MPI_Cart_create") {
      const ObjectEntry &c = madeEntry(e);
      return {"{", "  const int dims[] = {" + fieldInts(c, "dims") + "};", "  const int periods[] = {" + fieldInts(c, "periods") + "};",
              "  " + mpi("MPI_Cart_create(" + comm(p) + ", " + intArg("ndims") + ", dims, periods, " + intArg("reorder") + ", " + out + ")"),
              "}"};
    }
    if (op == "MPI_Cart_sub") {
      const ObjectEntry &c = madeEntry(e);
      return {"{", "  const int remain[] = {" + fieldInts(c, "remain_dims") + "};",
              "  " + mpi("MPI_Cart_sub(" + comm(p) + ", remain, " + out + ")"), "}"};
    }
    if (op == "MPI_Intercomm_create")
      return {mpi("MPI_Intercomm_create(" + comm(p) + ", " + intArg("local_leader") + ", comm[" + p("peer_comm") + "], " +
                  intArg("remote_leader") + ", " + intArg("tag") + ", " + out + ")")};
    return {mpi("MPI_Intercomm_merge(" + comm(p) + ", " + intArg("high") + ", " + out + ")")};
  }

  void noteApproximation(const std::string &what) {
    if (std::find(approximations_.begin(), approximations_.end(), what) == approximations_.end())
      approximations_.push_back(what);
  }

  std::string whence(Params &p) {
    auto w = p.constant("whence");
    if (w && *w >= 0 && *w <= 2)
      return std::vector<std::string>{"SEEK_SET", "SEEK_CUR", "SEEK_END"}[size_t(*w)];
    return "toInt(" + p("whence") + ")";
  }

  /// Reads and writes of MPI-IO: blocking, collective, nonblocking, split.
  template <class FhArg, class IntArg, class Mpi>
  std::vector<std::string> dataAccess(const std::string &op, Params &p, FhArg fhArg, IntArg intArg, Mpi mpi) {
    static const std::set<std::string> kPlain = {
        "MPI_File_read", "MPI_File_read_at", "MPI_File_read_all", "MPI_File_read_at_all", "MPI_File_read_shared",
        "MPI_File_read_ordered", "MPI_File_write", "MPI_File_write_at", "MPI_File_write_all", "MPI_File_write_at_all",
        "MPI_File_write_shared", "MPI_File_write_ordered"};
    static const std::set<std::string> kBegin = {
        "MPI_File_read_all_begin", "MPI_File_read_at_all_begin", "MPI_File_read_ordered_begin",
        "MPI_File_write_all_begin", "MPI_File_write_at_all_begin", "MPI_File_write_ordered_begin"};
    static const std::set<std::string> kEnd = {
        "MPI_File_read_all_end", "MPI_File_read_at_all_end", "MPI_File_read_ordered_end",
        "MPI_File_write_all_end", "MPI_File_write_at_all_end", "MPI_File_write_ordered_end"};
    static const std::set<std::string> kNonblocking = {
        "MPI_File_iread", "MPI_File_iread_at", "MPI_File_iread_all", "MPI_File_iread_at_all", "MPI_File_iread_shared",
        "MPI_File_iwrite", "MPI_File_iwrite_at", "MPI_File_iwrite_all", "MPI_File_iwrite_at_all", "MPI_File_iwrite_shared"};
    if (kEnd.count(op))
      return {mpi(op + "(" + fhArg() + ", buffer.base(), MPI_STATUS_IGNORE)")};
    bool plain = kPlain.count(op), begin = kBegin.count(op), nonblocking = kNonblocking.count(op);
    if (!plain && !begin && !nonblocking)
      throw UnsupportedTrace(context_ + ": the replay generator does not support MPI-IO operation '" + op + "'");
    std::string args = fhArg();
    if (op.find("_at") != std::string::npos)
      args += ", " + p("offset");
    args += ", buffer.elements(" + p("count") + ", " + type(p) + "), " + intArg("count") + ", " + type(p);
    if (plain)
      args += ", MPI_STATUS_IGNORE";
    if (nonblocking)
      args += ", &request[" + p("request") + "]";
    return {mpi(op + "(" + args + ")")};
  }

  // ---- communicators ----------------------------------------------------

  /// New communicators are described in the comm table by rule; the k-th
  /// split (dup) call of the body creates the k-th split (dup) entry.
  void assignCommunicators() {
    std::map<std::string, std::vector<int64_t>> entries;
    for (const auto &c : trace_.comms)
      if (c.kind == "split" || c.kind == "dup")
        entries[c.kind].push_back(c.id);
    std::map<std::string, size_t> used;
    std::function<void(const std::vector<Node> &)> walk = [&](const std::vector<Node> &nodes) {
      for (const Node &n : nodes) {
        if (n.isLoop()) {
          walk(n.loop().body);
          continue;
        }
        const Event &e = n.event();
        std::string kind = e.op == "MPI_Comm_split" ? "split" : e.op == "MPI_Comm_dup" ? "dup" : "";
        if (kind.empty() || e.inner)
          continue;
        size_t &k = used[kind];
        if (k < entries[kind].size())
          newComms_[&e] = entries[kind][k++];
      }
    };
    walk(trace_.body);
  }

  // ---- request sizes and input files -----------------------------------

  /// Upper bound of an expression over a node's ranks and the first and last
  /// iteration of each enclosing loop (exact for affine values).
  std::optional<int64_t> maxOver(const std::function<std::optional<int64_t>(const ExprEnv &)> &f,
                                 const RankList &ranks) const {
    // The first and last 128 ranks, without enumerating the ones between.
    const std::vector<int64_t> sample = ranks.endRanks(128);
    std::optional<int64_t> best;
    std::vector<int64_t> indices;
    std::function<void(int64_t, size_t)> descend = [&](int64_t rank, size_t depth) {
      if (depth == loops_.size() || depth >= 10) {
        indices.resize(loops_.size(), 0);
        ExprEnv env{rank, N_, indices};
        if (auto v = f(env))
          best = std::max(best.value_or(*v), *v);
        return;
      }
      const Value *count = loops_[depth].iterations->valueFor(rank);
      const Expr *expr = count ? std::get_if<Expr>(count) : nullptr;
      ExprEnv outer{rank, N_, std::span<const int64_t>(indices.data(), depth)};
      std::optional<int64_t> n = expr ? expr->evaluate(outer) : std::nullopt;
      if (!n || *n <= 0)
        return;
      for (int64_t i : {int64_t(0), *n - 1}) {
        indices.resize(depth);
        indices.push_back(i);
        descend(rank, depth + 1);
        if (*n == 1)
          break;
      }
    };
    for (int64_t r : sample) {
      indices.clear();
      descend(r, 0);
    }
    return best;
  }

  static std::optional<int64_t> evalParam(const Event &e, const std::string &name, const ExprEnv &env) {
    const sio::trace::Param *param = e.param(name);
    if (!param)
      return std::nullopt;
    const Value *v = param->value.valueFor(env.rank);
    const Expr *expr = v ? std::get_if<Expr>(v) : nullptr;
    return expr ? expr->evaluate(env) : std::nullopt;
  }

  std::optional<int64_t> typeExtent(int64_t id, int64_t rank) const {
    const ObjectEntry *t = trace_.datatype(id);
    if (t) {
      auto it = t->fields.find("extent");
      if (it != t->fields.end() && !it->second.empty())
        if (auto v = it->second[0].evaluate(ExprEnv{rank, N_, {}}))
          return v;
    }
    return sio::trace::datatypeSize(trace_, id, rank);
  }

  /// Bytes one call moves (count x extent for MPI-IO), for the buffer size
  /// and the size of input files.
  std::optional<int64_t> requestBytes(const Event &e, const ExprEnv &env) const {
    auto get = [&](const char *name) { return evalParam(e, name, env); };
    switch (e.layer) {
    case Layer::MPIIO: {
      auto count = get("count"), type = get("datatype");
      if (!count || !type || !e.param("fh"))
        return std::nullopt;
      auto extent = typeExtent(*type, env.rank);
      return extent ? std::optional<int64_t>(*count * *extent) : std::nullopt;
    }
    case Layer::POSIX:
      return e.param("bytes") ? get("bytes") : get("count");
    case Layer::STDIO: {
      auto size = get("size"), nmemb = get("nmemb");
      if (!e.param("size")) // character, line and formatted calls: what they moved
        return get("result");
      return size && nmemb ? std::optional<int64_t>(*size * *nmemb) : std::nullopt;
    }
    case Layer::SYNC: break;
    }
    return std::nullopt;
  }

  /// The trace library's classification, shared with `sio-trace stats`:
  /// stdio's character, line and formatted input (fgetc, fgets, getline,
  /// fscanf, ...) read their `result` bytes.
  static bool isRead(const Event &e) { return sio::trace::direction(e.op) == sio::trace::Direction::Read; }

  /// Where an fseek left a stream (SEEK_SET, or SEEK_CUR from a known
  /// place), so that the reads after it size the input file from there.
  void noteSeek(const Event &e, Params &p) {
    if (e.op != "fseek" || e.inner)
      return;
    auto h = p.constant("stream");
    if (!h)
      return;
    auto offset = p.constant("offset"), whence = p.constant("whence");
    auto known = streamPos_.find(*h);
    if (offset && whence == 0 && !e.param("error"))
      streamPos_[*h] = *offset;
    else if (offset && whence == 1 && known != streamPos_.end() && !e.param("error"))
      known->second += *offset;
    else
      streamPos_.erase(*h);
  }

  /// Tracks which file each constant handle refers to, the largest request
  /// (the buffer) and how far reads reach into each file.
  void noteRequestSizes(const Node &node, Params &p, uint32_t) {
    const Event &e = node.event();
    auto bytes = maxOver([&](const ExprEnv &env) { return requestBytes(e, env); }, node.ranks);
    if (bytes)
      largestRequest_ = std::max(largestRequest_, *bytes);
    // A read that failed reached nothing; one that came up short reached
    // only what it got (its `result`): the input file is made that long, so
    // that the replay's reads end where the application's did.
    if (!bytes || !isRead(e) || e.param("error"))
      return;
    auto moved = [&](const ExprEnv &env) -> std::optional<int64_t> {
      return e.param("result") ? evalParam(e, "result", env) : requestBytes(e, env);
    };
    if (auto m = maxOver(moved, node.ranks))
      bytes = *m;
    std::string handle = e.layer == Layer::MPIIO ? "fh" : e.layer == Layer::STDIO ? "stream" : "fd";
    auto h = p.constant(handle);
    if (!h)
      return;
    auto file = handleFile_.find({handle, *h});
    if (file == handleFile_.end())
      return;
    InputFile &in = reads_[file->second];
    // A stream an fseek placed: the read reaches from there.
    if (auto pos = streamPos_.find(*h); handle == "stream" && pos != streamPos_.end()) {
      int64_t repeats = 1;
      for (const auto &frame : loops_)
        if (const Value *v = frame.iterations->valueFor(node.ranks.first().value_or(0)))
          if (const Expr *x = std::get_if<Expr>(v))
            repeats *= std::max<int64_t>(1, x->evaluate(ExprEnv{node.ranks.first().value_or(0), N_, {}}).value_or(1));
      pos->second += *bytes * repeats;
      in.reach = std::max(in.reach, pos->second);
      return;
    }
    // Explicit offsets: offset (in etype units of the view) plus the request.
    int64_t reach = *bytes;
    if (e.param("offset")) {
      auto offsetEnd = maxOver(
          [&](const ExprEnv &env) -> std::optional<int64_t> {
            auto offset = evalParam(e, "offset", env);
            auto got = moved(env);
            if (!offset || !got || *got == 0)
              return std::nullopt;
            return *offset * viewUnit(*h, handle, env.rank) + *got;
          },
          node.ranks);
      reach = offsetEnd.value_or(*bytes);
    } else {
      // Sequential reads: all of them, one after another.
      int64_t repeats = 1;
      for (const auto &frame : loops_)
        if (const Value *v = frame.iterations->valueFor(node.ranks.first().value_or(0)))
          if (const Expr *x = std::get_if<Expr>(v))
            repeats *= std::max<int64_t>(1, x->evaluate(ExprEnv{node.ranks.first().value_or(0), N_, {}}).value_or(1));
      in.sequential += *bytes * repeats;
    }
    auto view = views_.find(*h);
    int64_t scale = 1;
    if (handle == "fh" && view != views_.end())
      scale = view->second.ratio, in.reach = std::max(in.reach, view->second.disp);
    in.reach = std::max(in.reach, reach * scale);
    in.reach = std::max(in.reach, in.sequential * scale + (view != views_.end() && handle == "fh" ? view->second.disp : 0));
  }

  int64_t viewUnit(int64_t fh, const std::string &handle, int64_t) const {
    if (handle != "fh")
      return 1;
    auto view = views_.find(fh);
    return view == views_.end() ? 1 : view->second.etype;
  }

  void noteView(Params &p) {
    auto fh = p.constant("fh");
    auto etype = p.constant("etype"), filetype = p.constant("filetype");
    if (!fh)
      return;
    View view;
    if (etype)
      view.etype = std::max<int64_t>(1, sio::trace::datatypeSize(trace_, *etype, 0).value_or(1));
    if (filetype) {
      int64_t size = sio::trace::datatypeSize(trace_, *filetype, 0).value_or(1);
      int64_t extent = typeExtent(*filetype, 0).value_or(size);
      view.ratio = size > 0 ? std::max<int64_t>(1, (extent + size - 1) / size) : 1;
    }
    const Event *setView = nullptr;
    (void)setView;
    if (auto disp = p.constant("disp"))
      view.disp = *disp;
    views_[*fh] = view;
  }

  /// What an open says about its file: created, truncated or write-only
  /// (Writing); read and write (ReadWrite: written only if something then
  /// writes it, as gfortran opens its input files O_RDWR); read only.
  enum class OpenIntent { Reading, ReadWrite, Writing };

  /// fopen/freopen: what the mode says (a mode that differs between ranks
  /// or iterations counts as writing: the overwrite check stays on).
  static OpenIntent streamOpenIntent(const Event &e) {
    const auto *param = e.param("mode");
    if (param && param->value.isUniform())
      if (const auto *m = std::get_if<std::string>(&param->value.entries()[0].value))
        return isWriteMode(*m) ? OpenIntent::Writing : isReadWriteMode(*m) ? OpenIntent::ReadWrite : OpenIntent::Reading;
    return OpenIntent::Writing;
  }

  /// dup (dup, fcntl F_DUPFD) and dup2 (dup2, dup3): the new code `fd`
  /// names the source's (`oldfd`) file; dup2 replaces its target (`newfd`).
  /// Codes of -1 (descriptors the trace does not know) are resolved by the
  /// prelude's dup2Codes and storeDescriptor, since they may differ between
  /// iterations and ranks.
  std::vector<std::string> duplicate(const std::string &op, Params &p, const std::string &expected,
                                     const std::function<std::string(const std::string &)> &posix) {
    const bool failed = !expected.empty();
    std::string call = op == "dup" ? "dup(fd[" + p("oldfd") + "])"
                                   : "dup2Codes(" + p("oldfd") + ", " + p("newfd") + (failed ? ", true)" : ", false)");
    if (failed) // failed in the application: the same attempt
      return {posix(call)};
    if (auto from = p.constant("oldfd"), to = p.constant("fd"); from && to && *to >= 0)
      if (auto file = handleFile_.find({"fd", *from}); file != handleFile_.end())
        handleFile_[{"fd", *to}] = file->second;
    return {"storeDescriptor(" + p("fd") + ", " + call + ");"};
  }

  void noteOpen(Params &p, const std::string &handle, OpenIntent intent) {
    auto file = p.constant("file");
    auto h = p.constant(handle);
    if (!file)
      return;
    if (intent == OpenIntent::Writing)
      writtenFiles_.insert(*file);
    else if (intent == OpenIntent::ReadWrite)
      readWriteFiles_.insert(*file);
    // An open that neither creates nor truncates succeeded in the
    // application: the file existed, whether or not a traced call then read
    // it (ROMIO reads a hints file underneath its MPI_File_open; a program
    // may open a file only to get its size). It is an input of at least
    // zero bytes unless something writes it.
    if (intent != OpenIntent::Writing)
      reads_[*file];
    if (h)
      handleFile_[{handle, *h}] = *file;
    if (h && handle == "stream")
      streamPos_.erase(*h); // reads from the start: counted as sequential
  }

  /// A call that writes or resizes through a handle makes its file written
  /// (not an input the replay provides). A handle that differs between
  /// ranks cannot be traced to one file: every read-write file counts.
  void noteWrites(const Node &node, Params &p) {
    const Event &e = node.event();
    if (sio::trace::direction(e.op) != sio::trace::Direction::Write && e.op != "ftruncate" &&
        e.op != "MPI_File_set_size" && e.op != "MPI_File_preallocate")
      return;
    const std::string handle = e.layer == Layer::MPIIO ? "fh" : e.layer == Layer::STDIO ? "stream" : "fd";
    if (!e.param(handle.c_str()))
      return;
    auto h = p.constant(handle);
    if (!h) {
      writtenFiles_.insert(readWriteFiles_.begin(), readWriteFiles_.end());
      return;
    }
    if (auto file = handleFile_.find({handle, *h}); file != handleFile_.end())
      writtenFiles_.insert(file->second);
  }

  // ---- assembly ---------------------------------------------------------

  std::string assemble() {
    CodeEmitter objects; // first: it finds what is approximated
    emitObjects(objects);
    CodeEmitter out;
    const auto &h = trace_.header;
    out.comment("Replay of the I/O of " + (h.program.empty() ? std::string("a traced program") : "'" + h.program + "'") +
                ", traced on " + std::to_string(h.nranks) + " ranks" +
                (h.generator.empty() ? "" : " (trace written by " + h.generator + ")") + ".");
    out.comment("Generated by " + options_.generator +
                (options_.traceName.empty() ? std::string() : " from " + options_.traceName) + "; see docs/replay.md.");
    out.comment("");
    out.comment("  build: mpicxx -O2 replay.cpp -o replay        (sio-cxx to trace the replay itself)");
    out.comment("  run:   mpiexec -n " + std::to_string(h.nranks) +
                " ./replay [--fast-forward] [--seed N] [--print-gaps] [--root DIR] [--path-map OLD=NEW]...");
    out.comment("         [--overwrite]");
    out.comment("");
    out.comment("Every rank performs the calls of the trace in order, with the same parameters:");
    out.comment("loops stay loops, rank lists are `if` guards on `rank`, and values that the");
    out.comment("trace keeps as functions of `rank`, `nranks` and the loop indices `i0`, `i1`, ...");
    out.comment("are computed here, so the program runs at every rank count its models hold for.");
    out.comment("Time-accurate by default: each call waits for a computation gap drawn from the");
    out.comment("trace's histogram of the time before it; --fast-forward drops the gaps.");
    out.comment("");
    out.comment("Files: the replay never works on the paths the trace names. Every file goes");
    out.comment("under the replay root (--root DIR, default ./sio-replay-root): /a/b becomes");
    out.comment("DIR/abs/a/b, a relative name DIR/rel/name (the replay runs in DIR/rel), and `..`");
    out.comment("cannot leave the root. --path-map OLD=NEW replays names starting with OLD under");
    out.comment("NEW instead, outside the root: say so to replay on real storage. Without");
    out.comment("--overwrite the replay writes no file that exists before it starts: it stops");
    out.comment("before its first call (exit status 2) naming the file.");
    if (!h.complete)
      out.comment("WARNING: the trace is incomplete (" + std::to_string(h.droppedEvents) + " events dropped).");
    for (const std::string &why : h.inexact)
      out.comment("WARNING: the trace is not exact: " + why);
    if (approximations_.empty()) {
      out.comment("Every MPI object of the trace is rebuilt exactly.");
    } else {
      out.comment("APPROXIMATED (also printed at start-up): these objects are not rebuilt as the");
      out.comment("application made them:");
      for (const auto &a : approximations_)
        out.comment("  - " + a);
    }
    out.blank();
    for (const char *header :
         {"<mpi.h>",    "",          "<algorithm>",   "<cerrno>",     "<chrono>",        "<climits>",
          "<cmath>",    "<cstdio>",  "<cstdlib>",     "<cstring>",    "<cwchar>",        "<initializer_list>",
          "<random>",   "<string>",  "<type_traits>", "<utility>",    "<vector>",        "",
          "<dirent.h>", "<dlfcn.h>", "<fcntl.h>",     "<sys/stat.h>", "<sys/syscall.h>", "<sys/uio.h>",
          "<unistd.h>"})
      out.line(*header ? std::string("#include ") + header : "");
    out.blank();
    out.line("namespace sio_replay {");
    out.raw(kPrelude);
    out.blank();
    out.line("// ---------------------------------------------------------------------------");
    out.line("// The trace");
    out.line("// ---------------------------------------------------------------------------");
    out.blank();
    out.line("const i64 kHighestNamedRank = " + std::to_string(highestNamedRank_) + "; // in a rank list of the trace");
    out.line("const i64 kLargestRequestBytes = " + std::to_string(largestRequest_) + ";");
    out.blank();
    emitGaps(out);
    emitFileNames(out);
    out.comment("Objects the replay cannot rebuild exactly (printed once at start-up).");
    out.open("const char *const kApproximations[] =");
    for (const auto &a : approximations_)
      out.line(cppStringLiteral(a) + ",");
    out.line("nullptr,");
    out.close(";");
    out.blank();
    out.raw(objects.str());
    emitChecks(out);
    emitInputFiles(out);
    emitMpiIoEnvironment(out);
    emitOverwriteCheck(out);
    out.raw(siteFunctionDefs_.str());
    out.raw(body_.str());
    out.blank();
    out.line("} // namespace sio_replay");
    out.blank();
    emitMain(out);
    return out.take();
  }

  void emitGaps(CodeEmitter &out) {
    out.comment("Computation before each call: {min ns, max ns, scale, {{log2 bin, samples}...}}.");
    if (gaps_.empty()) {
      out.comment("(none: the trace has no timing)");
      out.blank();
      return;
    }
    out.open("const GapModel gaps[] =");
    for (const auto &[model, comment] : gaps_) {
      out.comment(comment);
      out.line(model + ",");
    }
    out.close(";");
    out.blank();
  }

  void emitFileNames(CodeEmitter &out) {
    out.comment("The files of the trace, by id, as this rank names them.");
    out.comment("Names with fields in loop indices take the indices of the calling loops.");
    out.open("std::string fileName(i64 id, std::initializer_list<i64> indices)");
    out.line("(void)indices; // used by names with loop-index fields only");
    out.open("switch (id)");
    for (const auto &file : trace_.files) {
      if (!usedFiles_.count(file.id))
        continue;
      std::vector<std::string> parts;
      for (const auto &part : file.name) {
        if (part.field)
          parts.push_back("decimal(" + exprToCpp(*part.field) + ", " + std::to_string(part.width) + ")");
        else
          parts.push_back(cppStringLiteral(part.text));
      }
      if (parts.empty())
        parts.push_back("\"\"");
      if (!file.name.empty() && file.name[0].field)
        parts[0] = "std::string() + " + parts[0];
      else if (parts.size() > 1)
        parts[0] = "std::string(" + parts[0] + ")";
      out.line("case " + std::to_string(file.id) + ": {");
      for (uint32_t d = 0; d < file.loopDepthUsed(); ++d)
        out.line("  const i64 i" + std::to_string(d) + " = loopIndex(indices, " + std::to_string(d) + ");");
      out.line("  return " + join(parts, " + ") + ";");
      out.line("}");
    }
    out.close();
    out.line("fail(\"no file \" + std::to_string(id) + \" in the trace\");");
    out.close();
    out.blank();
  }

  std::vector<std::string> fieldCpp(const ObjectEntry &object, const std::string &name, bool required = true) const {
    auto it = object.fields.find(name);
    if (it == object.fields.end() || it->second.empty()) {
      if (required)
        throw UnsupportedTrace("datatype " + std::to_string(object.id) + " (" + object.kind + "): field '" + name +
                               "' is missing");
      return {};
    }
    std::vector<std::string> out;
    for (const Expr &e : it->second)
      out.push_back(exprToCpp(e));
    return out;
  }

  /// True when `value` is a decimal literal within [lo, hi].
  static bool isLiteralWithin(const std::string &value, int64_t lo, int64_t hi) {
    const char *begin = value.data(), *end = begin + value.size();
    int64_t parsed = 0;
    auto [ptr, error] = std::from_chars(begin, end, parsed);
    return error == std::errc() && ptr == end && begin != end && parsed >= lo && parsed <= hi;
  }
  static bool isIntLiteral(const std::string &v) { return isLiteralWithin(v, INT32_MIN, INT32_MAX); }
  static bool isAintLiteral(const std::string &v) { return isLiteralWithin(v, INT64_MIN + 1, INT64_MAX); }

  /// Array elements: literals as they are, models checked at run time
  /// (toInt fails on a value that does not fit). Datatype tables of real
  /// programs are long lists of literals: as 100,000 `toInt(...)` calls one
  /// replay spent over 10 minutes in gcc -O2 (bench/replay-compile.sh).
  static std::string intList(const std::vector<std::string> &values) {
    std::vector<std::string> out;
    for (const auto &v : values)
      out.push_back(isIntLiteral(v) ? v : "toInt(" + v + ")");
    return join(out, ", ");
  }
  static std::string aintList(const std::vector<std::string> &values) {
    std::vector<std::string> out;
    for (const auto &v : values)
      out.push_back(isAintLiteral(v) ? v : "MPI_Aint(" + v + ")");
    return join(out, ", ");
  }
  /// `target = {...};` for a std::vector argument list; a long list of
  /// literals goes through a static array (one copy, no initializer_list
  /// of 100,000 temporaries for the compiler to build).
  static std::string vectorAssign(const std::string &target, const std::string &elementType,
                                  const std::vector<std::string> &values,
                                  std::string (*array)(const std::string &, const std::vector<std::string> &)) {
    constexpr size_t kInlineMax = 16;
    bool literal = elementType == "int" ? std::all_of(values.begin(), values.end(), isIntLiteral)
                                        : std::all_of(values.begin(), values.end(), isAintLiteral);
    if (values.size() <= kInlineMax || !literal)
      return target + " = {" + (elementType == "int" ? intList(values) : aintList(values)) + "};";
    return "{ " + array("values", values) + " " + target + ".assign(std::begin(values), std::end(values)); }";
  }
  /// `const T name[] = {...};`, static (read-only data, not built on the
  /// stack at every call) when every element is a literal.
  static std::string intArray(const std::string &name, const std::vector<std::string> &values) {
    bool literal = std::all_of(values.begin(), values.end(), isIntLiteral);
    return std::string(literal ? "static const" : "const") + " int " + name + "[] = {" + intList(values) + "};";
  }
  static std::string aintArray(const std::string &name, const std::vector<std::string> &values) {
    bool literal = std::all_of(values.begin(), values.end(), isAintLiteral);
    return std::string(literal ? "static const" : "const") + " MPI_Aint " + name + "[] = {" + aintList(values) + "};";
  }
  /// ndims of a darray entry whose envelope is complete (3 + 4*ndims + 1 ints).
  static std::optional<size_t> darrayDims(const ObjectEntry &t) {
    auto it = t.fields.find("ints");
    if (it == t.fields.end() || it->second.size() < 3 || !t.fields.count("oldtype"))
      return std::nullopt;
    auto nd = it->second[2].constantValue();
    if (!nd || *nd < 1 || it->second.size() != size_t(4 + 4 * *nd))
      return std::nullopt;
    return size_t(*nd);
  }

  void emitDatatype(CodeEmitter &out, const ObjectEntry &t, std::set<int64_t> &done) {
    if (!done.insert(t.id).second)
      return;
    auto old = [&](const std::string &field) -> std::string {
      auto ids = fieldCpp(t, field);
      auto it = t.fields.find(field);
      if (auto id = it->second[0].constantValue())
        if (const ObjectEntry *o = trace_.datatype(*id))
          emitDatatype(out, *o, done);
      return "datatype[" + ids[0] + "]";
    };
    std::string self = "datatype[" + std::to_string(t.id) + "]";
    auto ints = [](const std::vector<std::string> &values, size_t from = 0, size_t n = SIZE_MAX) {
      std::vector<std::string> out;
      for (size_t i = from; i < values.size() && out.size() < n; ++i)
        out.push_back(values[i]);
      return out;
    };
    if (t.kind == "named") {
      if (kNamedDatatypes.count(t.name)) {
        out.line(self + " = " + t.name + ";");
        return;
      }
      auto size = fieldCpp(t, "size", false);
      if (size.empty())
        throw UnsupportedTrace("datatype " + std::to_string(t.id) + ": unknown named type " + cppStringLiteral(t.name) +
                               " without a size");
      approximations_.push_back("datatype " + std::to_string(t.id) + " (named type " + t.name +
                                " unknown here: rebuilt as the same number of bytes)");
      out.comment("named type " + cppStringLiteral(t.name) + " (unknown here): the same number of bytes");
      out.line("PMPI_Type_contiguous(toInt(" + size[0] + "), MPI_BYTE, &" + self + ");");
      out.line("PMPI_Type_commit(&" + self + ");");
      return;
    }
    std::string create;
    const std::string &k = t.kind;
    if (k == "contiguous") {
      create = "PMPI_Type_contiguous(toInt(" + fieldCpp(t, "count")[0] + "), " + old("oldtype") + ", &" + self + ")";
    } else if (k == "vector") {
      create = "PMPI_Type_vector(toInt(" + fieldCpp(t, "count")[0] + "), toInt(" + fieldCpp(t, "blocklength")[0] +
               "), toInt(" + fieldCpp(t, "stride")[0] + "), " + old("oldtype") + ", &" + self + ")";
    } else if (k == "hvector") {
      create = "PMPI_Type_create_hvector(toInt(" + fieldCpp(t, "count")[0] + "), toInt(" +
               fieldCpp(t, "blocklength")[0] + "), MPI_Aint(" + fieldCpp(t, "stride")[0] + "), " + old("oldtype") +
               ", &" + self + ")";
    } else if (k == "indexed") {
      auto lengths = fieldCpp(t, "blocklengths"), displacements = fieldCpp(t, "displacements");
      out.open("");
      out.line(intArray("lengths", lengths));
      out.line(intArray("displacements", displacements));
      out.line("PMPI_Type_indexed(" + std::to_string(lengths.size()) + ", lengths, displacements, " + old("oldtype") +
               ", &" + self + ");");
      out.close();
    } else if (k == "subarray") {
      auto sizes = fieldCpp(t, "sizes"), subsizes = fieldCpp(t, "subsizes"), starts = fieldCpp(t, "starts");
      out.open("");
      out.line(intArray("sizes", sizes));
      out.line(intArray("subsizes", subsizes));
      out.line(intArray("starts", starts));
      out.line("PMPI_Type_create_subarray(" + std::to_string(sizes.size()) + ", sizes, subsizes, starts, toInt(" +
               fieldCpp(t, "order")[0] + "), " + old("oldtype") + ", &" + self + ");");
      out.close();
    } else if (k == "dup") {
      create = "PMPI_Type_dup(" + old("oldtype") + ", &" + self + ")";
    } else if (k == "resized" && fieldCpp(t, "aints", false).size() == 2) {
      auto aints = fieldCpp(t, "aints");
      create = "PMPI_Type_create_resized(" + old("oldtype") + ", MPI_Aint(" + aints[0] + "), MPI_Aint(" + aints[1] +
               "), &" + self + ")";
    } else if ((k == "hindexed" || k == "indexed_block" || k == "hindexed_block") && !fieldCpp(t, "ints", false).empty()) {
      auto i = fieldCpp(t, "ints"), a = fieldCpp(t, "aints", false);
      out.open("");
      if (k == "hindexed") {
        out.line(intArray("lengths", ints(i, 1)));
        out.line(aintArray("displacements", a));
        out.line("PMPI_Type_create_hindexed(toInt(" + i[0] + "), lengths, displacements, " + old("oldtype") + ", &" +
                 self + ");");
      } else if (k == "indexed_block") {
        out.line(intArray("displacements", ints(i, 2)));
        out.line("PMPI_Type_create_indexed_block(toInt(" + i[0] + "), toInt(" + i[1] + "), displacements, " +
                 old("oldtype") + ", &" + self + ");");
      } else {
        out.line(aintArray("displacements", a));
        out.line("PMPI_Type_create_hindexed_block(toInt(" + i[0] + "), toInt(" + i[1] + "), displacements, " +
                 old("oldtype") + ", &" + self + ");");
      }
      out.close();
    } else if (k == "struct" && fieldCpp(t, "ints", false).size() >= 1 && t.fields.count("types")) {
      // MPI_Type_create_struct(count, lengths, displacements, types): exactly.
      auto i = fieldCpp(t, "ints"), a = fieldCpp(t, "aints", false);
      std::vector<std::string> types;
      for (const Expr &id : t.fields.at("types")) {
        auto c = id.constantValue();
        const ObjectEntry *o = c ? trace_.datatype(*c) : nullptr;
        if (!o)
          throw UnsupportedTrace("datatype " + std::to_string(t.id) + " (struct): a member type is not in the table");
        emitDatatype(out, *o, done);
        types.push_back("datatype[" + std::to_string(*c) + "]");
      }
      if (types.empty() || a.size() != types.size() || i.size() != types.size() + 1)
        throw UnsupportedTrace("datatype " + std::to_string(t.id) + " (struct): inconsistent fields");
      out.open("");
      out.line(intArray("lengths", ints(i, 1)));
      out.line(aintArray("displacements", a));
      out.line("const MPI_Datatype types[] = {" + join(types, ", ") + "};");
      out.line("PMPI_Type_create_struct(" + std::to_string(types.size()) + ", lengths, displacements, types, &" + self +
               ");");
      out.close();
    } else if (k == "darray" && darrayDims(t)) {
      // MPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs,
      // psizes, order): exactly, with size and rank as the trace's models.
      const size_t nd = *darrayDims(t);
      auto i = fieldCpp(t, "ints");
      out.open("");
      out.line(intArray("gsizes", ints(i, 3, nd)));
      out.line(intArray("distribs", ints(i, 3 + nd, nd)));
      out.line(intArray("dargs", ints(i, 3 + 2 * nd, nd)));
      out.line(intArray("psizes", ints(i, 3 + 3 * nd, nd)));
      out.line("PMPI_Type_create_darray(toInt(" + i[0] + "), toInt(" + i[1] + "), " + std::to_string(nd) +
               ", gsizes, distribs, dargs, psizes, toInt(" + i[3 + 4 * nd] + "), " + old("oldtype") + ", &" + self +
               ");");
      out.close();
    } else {
      // Kinds the generator cannot rebuild: keep the bytes and the extent,
      // which is what I/O sees, and say so (header comment, start-up note).
      auto size = fieldCpp(t, "size", false), extent = fieldCpp(t, "extent", false);
      if (size.empty())
        throw UnsupportedTrace("datatype " + std::to_string(t.id) + ": kind '" + t.kind + "' cannot be rebuilt");
      approximations_.push_back("datatype " + std::to_string(t.id) + " ('" + t.kind +
                                "') is contiguous bytes with its size and extent");
      out.comment("'" + t.kind + "' type approximated by its size and extent");
      out.open("");
      out.line("MPI_Datatype bytes;");
      out.line("PMPI_Type_contiguous(toInt(" + size[0] + "), MPI_BYTE, &bytes);");
      out.line("PMPI_Type_create_resized(bytes, 0, MPI_Aint(" + (extent.empty() ? size[0] : extent[0]) + "), &" + self +
               ");");
      out.line("PMPI_Type_free(&bytes);");
      out.close();
    }
    if (!create.empty())
      out.line(create + ";");
    out.line("PMPI_Type_commit(&" + self + ");");
    derivedTypes_.push_back(t.id);
  }

  /// The world ranks of a communicator entry as one C++ expression of type
  /// std::vector<i64> (`blockRanks({start, stride, count, ...})` for
  /// strided blocks); empty if the trace has none.
  std::string members(const ObjectEntry &c) const {
    std::vector<std::string> v;
    for (const char *name : {"member_blocks", "members"})
      if (auto it = c.fields.find(name); it != c.fields.end()) {
        for (const Expr &x : it->second)
          v.push_back(exprToCpp(x));
        return std::string(name) == "members" ? "std::vector<i64>{" + join(v, ", ") + "}"
                                               : "blockRanks({" + join(v, ", ") + "})";
      }
    return "";
  }

  /// A communicator the application used but the runtime did not see made:
  /// rebuilt from its recorded membership (never MPI_COMM_NULL), by PMPI so
  /// that a trace of the replay does not record the set-up.
  void emitMembershipComm(CodeEmitter &out, const ObjectEntry &c) {
    const std::string id = std::to_string(c.id);
    std::string m = members(c);
    if (m.empty()) {
      noteApproximation("communicator " + id + " is MPI_COMM_NULL: the trace does not record its members");
      out.comment("comm[" + id + "]: unknown membership, left MPI_COMM_NULL");
      return;
    }
    noteApproximation("communicator " + id +
                      " (made by a call sio does not intercept) is rebuilt from its members with MPI_Comm_create_group");
    out.comment("comm[" + id + "]: rebuilt from its membership (world ranks)");
    out.open("");
    out.line("const std::vector<i64> members = " + m + ";");
    out.open("if (std::find(members.begin(), members.end(), rank) != members.end())");
    out.line("MPI_Group group = groupOf(members);");
    out.line("mustSucceedMpi(PMPI_Comm_create_group(MPI_COMM_WORLD, group, " + std::to_string(30000 + c.id) + ", &comm[" +
             id + "]));");
    out.line("freeGroup(group);");
    out.close();
    out.close();
  }

  void emitMemberGroups(CodeEmitter &out) {
    out.comment("The group of each communicator made by MPI_Comm_create(_group), from its members.");
    out.open("MPI_Group memberGroup(i64 id)");
    out.open("switch (id)");
    for (const auto &c : trace_.comms) {
      std::string m = members(c);
      if ((c.kind != "create" && c.kind != "create_group") || m.empty())
        continue;
      out.line("case " + std::to_string(c.id) + ":");
      out.line("  return groupOf(" + m + ");");
    }
    out.close();
    out.line("return MPI_GROUP_EMPTY; // a rank that got MPI_COMM_NULL");
    out.close();
    out.blank();
  }

  void emitObjects(CodeEmitter &out) {
    emitMemberGroups(out);
    out.comment("Communicators, datatypes and infos of the trace, re-created by structure.");
    out.open("void createObjects()");
    for (const auto &c : trace_.comms) {
      if (c.kind == "world")
        out.line("comm[" + std::to_string(c.id) + "] = MPI_COMM_WORLD;");
      else if (c.kind == "self")
        out.line("comm[" + std::to_string(c.id) + "] = MPI_COMM_SELF;");
      else if (c.kind != "other")
        out.comment("comm[" + std::to_string(c.id) + "]: made by its constructor (" + c.kind + ") in replay()");
      else
        emitMembershipComm(out, c);
    }
    // Types the application made with an intercepted constructor are made
    // by that call in replay(); the others (named, or seen only at a use)
    // here, through PMPI so that the replay's trace does not record them.
    std::set<int64_t> done;
    for (const auto &t : trace_.datatypes) {
      if (madeAtEvent(t)) {
        out.comment("datatype " + std::to_string(t.id) + ": " + t.kind + ", made by " + t.name + " in replay()");
        continue;
      }
      out.comment("datatype " + std::to_string(t.id) + ": " + t.kind + (t.name.empty() ? "" : " " + t.name));
      const Rebuild &r = types_.status(t.id);
      if (r.kind == Rebuild::Kind::Impossible || r.kind == Rebuild::Kind::Null) {
        // No replayed call uses it (checkObjects refused those): the null
        // handle stays, and nothing passes it.
        out.comment("not rebuilt (" + r.why + "); only failed or no calls use it");
        continue;
      }
      emitDatatype(out, t, done);
    }
    for (const auto &i : trace_.infos) {
      std::string self = "info[" + std::to_string(i.id) + "]";
      // An info the program made and left empty is not MPI_INFO_NULL: the
      // trace tells them apart, and so does the replay.
      if (i.kind == "null") {
        out.line(self + " = MPI_INFO_NULL;");
        continue;
      }
      out.line("MPI_Info_create(&" + self + ");");
      for (const auto &[key, value] : i.strings)
        out.line("MPI_Info_set(" + self + ", " + cppStringLiteral(key) + ", " + cppStringLiteral(value) + ");");
    }
    out.close();
    out.blank();
    out.open("void freeObjects()");
    std::set<int64_t> freed(derivedTypes_.begin(), derivedTypes_.end());
    for (const auto &t : trace_.datatypes)
      if (madeAtEvent(t))
        freed.insert(t.id);
    for (int64_t id : freed) {
      const std::string slot = "datatype[" + std::to_string(id) + "]";
      out.line("if (" + slot + " != MPI_DATATYPE_NULL)");
      out.line("  PMPI_Type_free(&" + slot + ");");
    }
    if (!freed.empty()) {
      out.line("for (auto &stack : shadowTypes)");
      out.line("  for (MPI_Datatype &t : stack)");
      out.line("    PMPI_Type_free(&t);");
    }
    for (const auto &i : trace_.infos)
      if (i.kind != "null")
        out.line("MPI_Info_free(&info[" + std::to_string(i.id) + "]);");
    out.close();
    out.blank();
  }

  void emitChecks(CodeEmitter &out) {
    out.comment("The start-up check: the rank lists and the values that can fail at this");
    out.comment("rank count (divisions, tables) are tried before any I/O.");
    out.open("void checkModels()");
    out.line("checkingModels = true;");
    out.line("currentCall = \"the rank lists\";");
    out.line("if (nranks <= kHighestNamedRank)");
    out.line("  modelFailure(\"the trace names rank \" + std::to_string(kHighestNamedRank));");
    std::set<std::string> seen;
    for (const auto &check : checks_) {
      if (!seen.insert(check.guard + "|" + check.value + "|" + check.what).second)
        continue;
      std::string line = "currentCall = " + cppStringLiteral(check.what) + ";";
      if (check.guard.empty()) {
        out.line(line);
        out.line("(void)(" + check.value + ");");
      } else {
        out.open("if (" + check.guard + ")");
        out.line(line);
        out.line("(void)(" + check.value + ");");
        out.close();
      }
    }
    out.line("checkingModels = false;");
    out.line("currentCall = \"start-up\";");
    out.line("refuseIfModelsFail();");
    out.close();
    out.blank();
  }

  /// The environment variables that changed the application's MPI-IO,
  /// recorded by the runtime as `env.NAME` metadata (docs/runtime.md,
  /// "MPI-IO environment"): set again before the replay's first MPI-IO
  /// call. ROMIO_HINTS names a file, which ROMIO opens and reads at every
  /// MPI_File_open (inner events of the trace): it is mapped like every
  /// other recorded name, so it names the copy provideInputFiles() made.
  /// A trace without them (an older runtime) sets nothing.
  void emitMpiIoEnvironment(CodeEmitter &out) {
    static constexpr std::string_view kPrefix = "env.";
    std::vector<std::pair<std::string, std::string>> vars;
    for (const auto &[key, value] : trace_.header.metadata)
      if (key.size() > kPrefix.size() && key.compare(0, kPrefix.size(), kPrefix) == 0)
        vars.emplace_back(key.substr(kPrefix.size()), value);
    if (vars.empty())
      return;
    out.comment("The application's MPI-IO environment (the trace's env.* metadata).");
    out.open("void setMpiIoEnvironment()");
    for (const auto &[name, value] : vars) {
      const std::string v =
          name == "ROMIO_HINTS" ? "mappedPath(" + cppStringLiteral(value) + ").c_str()" : cppStringLiteral(value);
      out.line("setenv(" + cppStringLiteral(name) + ", " + v + ", 1);");
    }
    out.close();
    out.blank();
  }

  /// The constant values a parameter takes on any rank.
  static std::vector<int64_t> constantsOf(const Event &e, const char *name) {
    std::vector<int64_t> out;
    if (const sio::trace::Param *param = e.param(name))
      for (const auto &entry : param->value.entries())
        if (const auto *expr = std::get_if<Expr>(&entry.value))
          if (auto c = expr->constantValue())
            out.push_back(*c);
    return out;
  }

  /// The file ROMIO_HINTS names (env.ROMIO_HINTS metadata) is opened and
  /// read by ROMIO alone, underneath each MPI_File_open: inner events,
  /// which the replay does not make, so it was no input the replay
  /// provided. It is one now, as long as ROMIO's reads of it went (they
  /// read it whole: the same byte counts in the replay's trace).
  void noteHintsFile() {
    auto hints = trace_.header.metadata.find("env.ROMIO_HINTS");
    if (hints == trace_.header.metadata.end())
      return;
    std::optional<int64_t> id;
    for (const auto &f : trace_.files)
      if (f.loopDepthUsed() == 0 && f.formatStr() == hints->second)
        id = f.id;
    if (!id || writtenFiles_.count(*id))
      return;
    std::set<int64_t> fds; // inner descriptors on it
    int64_t bytes = 0;
    std::function<void(const std::vector<Node> &)> walk = [&](const std::vector<Node> &nodes) {
      for (const Node &n : nodes) {
        if (n.isLoop()) {
          walk(n.loop().body);
          continue;
        }
        const Event &e = n.event();
        if (!e.inner)
          continue;
        if (e.op == "open" || e.op == "openat") {
          auto files = constantsOf(e, "file");
          if (std::find(files.begin(), files.end(), *id) != files.end())
            for (int64_t fd : constantsOf(e, "fd"))
              fds.insert(fd);
        } else if (e.op == "read" && !e.param("error")) { // ROMIO reads it from the start
          bool onIt = false;
          for (int64_t fd : constantsOf(e, "fd"))
            onIt |= fds.count(fd) > 0;
          if (onIt)
            for (int64_t r : constantsOf(e, "result"))
              bytes = std::max(bytes, r);
        }
      }
    };
    walk(trace_.body);
    if (fds.empty())
      return; // ROMIO never opened it (or the open failed): nothing to provide
    if (auto in = reads_.find(*id); in != reads_.end())
      in->second.reach = std::max(in->second.reach, bytes); // the program opens it too: provided already
    else
      hintsInput_ = {hints->second, bytes};
  }
  /// The ROMIO_HINTS file to provide (name, bytes), by noteHintsFile().
  std::optional<std::pair<std::string, int64_t>> hintsInput_;

  void emitInputFiles(CodeEmitter &out) {
    noteHintsFile();
    out.comment("Files the trace reads but never writes, created when absent so that the");
    out.comment("replay runs without the application's input data.");
    out.open("void provideInputFiles()");
    for (const auto &[id, in] : reads_) {
      if (writtenFiles_.count(id))
        continue;
      const auto *file = trace_.file(id);
      if (file->loopDepthUsed() > 0) {
        out.comment("file " + std::to_string(id) + ": " + cppStringLiteral(file->formatStr()) +
                    " is named per loop iteration: not provided");
        continue;
      }
      bool perRank = false;
      for (const auto &part : file->name)
        perRank |= part.field.has_value();
      std::string call = "provideInputFile(mappedPath(fileName(" + std::to_string(id) + ")), " +
                         std::to_string(std::max(in.reach, in.sequential)) + ");";
      out.comment("file " + std::to_string(id) + ": " + cppStringLiteral(file->formatStr()));
      out.line(perRank ? call : "if (rank == 0)");
      if (!perRank)
        out.line("  " + call);
    }
    if (hintsInput_) {
      out.comment("the ROMIO_HINTS file, read by ROMIO alone (its contents are not in the trace)");
      out.line("if (rank == 0)");
      out.line("  provideInputFile(mappedPath(" + cppStringLiteral(hintsInput_->first) + "), " +
               std::to_string(hintsInput_->second) + ");");
    }
    out.line("PMPI_Barrier(MPI_COMM_WORLD); // not MPI_Barrier: the replay's own set-up stays out of its trace");
    out.close();
    out.blank();
  }

  void emitOverwriteCheck(CodeEmitter &out) {
    std::vector<std::string> ids;
    bool perIteration = false;
    for (int64_t id : usedFiles_) {
      const auto *file = trace_.file(id);
      if (file && file->loopDepthUsed() > 0) {
        perIteration = true; // a name per loop iteration: not enumerated here
        continue;
      }
      if (!reads_.count(id) || writtenFiles_.count(id)) // not a pure input: written, created or truncated
        ids.push_back(std::to_string(id));
    }
    out.comment("Files this replay may write, created or truncated: none may exist before it");
    out.comment("starts unless --overwrite (see the header).");
    if (perIteration)
      out.comment("Files named per loop iteration (`<i0>` fields) are not checked.");
    out.open("void checkOverwrites()");
    out.line("refuseToOverwrite({" + join(ids, ", ") + "});");
    out.close();
    out.blank();
  }

  bool hasMpiIoEnvironment() const {
    for (const auto &entry : trace_.header.metadata)
      if (entry.first.size() > 4 && entry.first.compare(0, 4, "env.") == 0)
        return true;
    return false;
  }

  void emitMain(CodeEmitter &out) {
    out.open("int main(int argc, char **argv)");
    out.line("using namespace sio_replay;");
    out.line("MPI_Init(&argc, &argv);");
    out.line("lastCallEnd = Clock::now(); // the first gap counts from here, as the runtime records it");
    out.line("int worldRank = 0, worldSize = 1;");
    out.line("MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);");
    out.line("MPI_Comm_size(MPI_COMM_WORLD, &worldSize);");
    out.line("rank = worldRank;");
    out.line("nranks = worldSize;");
    out.open("if (!parseOptions(argc, argv))");
    out.line("MPI_Finalize();");
    out.line("return 0;");
    out.close();
    out.line("checkModels();");
    if (hasMpiIoEnvironment())
      out.line("setMpiIoEnvironment(); // before the first MPI_File_open, which reads them");
    out.line("checkOverwrites();");
    out.line("createObjects();");
    out.line("for (const char *const *a = kApproximations; rank == 0 && *a; ++a)");
    out.line("  std::fprintf(stderr, \"replay: approximated: %s\\n\", *a);");
    out.line("provideInputFiles();");
    out.line("buffer.reserve(kLargestRequestBytes);");
    out.line("replay();");
    out.line("freeObjects();");
    out.line("if (failedCalls > 0)");
    out.line("  std::fprintf(stderr, \"replay: rank %lld: %lld calls failed (as they may have in the application)\\n\", "
             "rank, failedCalls);");
    out.line("reportUnexpectedResults();");
    out.line("MPI_Finalize();");
    out.line("return unexpectedResults > 0 ? 4 : 0;");
    out.close();
  }

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
  std::map<std::pair<std::string, int64_t>, int64_t> handleFile_;
  std::map<int64_t, View> views_;
  std::map<int64_t, InputFile> reads_;
  std::map<int64_t, int64_t> streamPos_; ///< stream code -> byte position an fseek gave it
  std::map<const Event *, int64_t> newComms_;
  std::vector<int64_t> derivedTypes_;
  std::vector<std::string> approximations_; ///< objects not rebuilt exactly: header comment, start-up note
  DatatypeGraph types_;                     ///< which datatypes can be rebuilt (Rebuildable.h)
};

} // namespace

std::string generateReplay(const Trace &trace, const ReplayOptions &options) {
  // Traces read from a file were checked by the reader; extrapolated ones
  // come straight from memory. A replay of a handle closed twice or used
  // outside its lifetime would crash (double free, fseeko on null).
  if (auto problem = sio::trace::checkHandleLifetimes(trace))
    throw UnsupportedTrace(problem->path + ": " + problem->message);
  return Generator(trace, options).run();
}

void writeReplay(std::ostream &out, const Trace &trace, const ReplayOptions &options) {
  out << generateReplay(trace, options);
}

} // namespace sio::replay
