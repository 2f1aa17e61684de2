#include "CppText.h"

#include <numeric>

namespace sio::replay {

using sio::trace::Atom;
using sio::trace::Expr;
using sio::trace::RankList;
using sio::trace::Rational;

using detail::join;

namespace {

int64_t lcm64(int64_t a, int64_t b) { return a / std::gcd(a, b) * b; }

std::string atomToCpp(const Atom &atom) {
  switch (atom.kind) {
  case Atom::Kind::Rank:
    return "rank";
  case Atom::Kind::NRanks:
    return "nranks";
  case Atom::Kind::Loop:
    return "i" + std::to_string(atom.loopDepth);
  case Atom::Kind::Mod:
    return "cmod(" + exprToCpp(*atom.lhs) + ", " + exprToCpp(*atom.rhs) + ")";
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

namespace detail {

std::string join(const std::vector<std::string> &parts, const std::string &separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? separator : "") + parts[i];
  return out;
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
extern const std::vector<std::pair<int64_t, const char *>> kAmodes = {
    {1, "MPI_MODE_CREATE"}, {2, "MPI_MODE_RDONLY"},           {4, "MPI_MODE_WRONLY"},
    {8, "MPI_MODE_RDWR"},   {16, "MPI_MODE_DELETE_ON_CLOSE"}, {32, "MPI_MODE_UNIQUE_OPEN"},
    {64, "MPI_MODE_EXCL"},  {128, "MPI_MODE_APPEND"},         {256, "MPI_MODE_SEQUENTIAL"}};
// Linux x86-64/aarch64 values.
extern const std::vector<std::pair<int64_t, const char *>> kOpenFlags = {
    {01, "O_WRONLY"},     {02, "O_RDWR"},      {0100, "O_CREAT"},    {0200, "O_EXCL"},
    {0400, "O_NOCTTY"},   {01000, "O_TRUNC"},  {02000, "O_APPEND"},  {04000, "O_NONBLOCK"},
    {04010000, "O_SYNC"}, {010000, "O_DSYNC"}, {040000, "O_DIRECT"}, {02000000, "O_CLOEXEC"}};

extern const std::set<std::string> kNamedDatatypes = {
    "MPI_BYTE", "MPI_CHAR", "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_INT",
    "MPI_UNSIGNED", "MPI_LONG", "MPI_UNSIGNED_LONG", "MPI_LONG_LONG", "MPI_LONG_LONG_INT", "MPI_UNSIGNED_LONG_LONG",
    "MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_WCHAR", "MPI_PACKED", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T",
    "MPI_INT64_T", "MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T", "MPI_C_BOOL", "MPI_CXX_BOOL",
    "MPI_AINT", "MPI_OFFSET", "MPI_COUNT", "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX", "MPI_2INT", "MPI_FLOAT_INT",
    "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT", "MPI_CHARACTER", "MPI_INTEGER",
    "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_LOGICAL", "MPI_COMPLEX",
    // MPI-1's bound markers: gone from MPI-3, still in MPICH, and in the
    // struct types of legacy codes (a zero-byte stand-in drops the bounds).
    "MPI_LB", "MPI_UB"};

/// "w", "a" and their "+" forms create or truncate; "r+" reads and may
/// write (isReadWriteMode).
bool isWriteMode(const std::string &fopenMode) { return fopenMode.find_first_of("wa") != std::string::npos; }
bool isReadWriteMode(const std::string &fopenMode) { return fopenMode.find('+') != std::string::npos; }

} // namespace detail

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
    std::string term = factors.empty()  ? std::to_string(magnitude)
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
        conditions.push_back(stride == 1
                                 ? "rank >= " + std::to_string(start)
                                 : "fromRank(rank, " + std::to_string(start) + ", " + std::to_string(stride) + ")");
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

} // namespace sio::replay
