// Exact symbolic values: the elastic parameters of a trace.
//
// An Expr is a Laurent polynomial with rational coefficients over a small set
// of atoms: `rank`, `nranks`, the loop indices `i0` (outermost enclosing loop),
// `i1`, ..., and two opaque atoms, `(a % b)` and the explicit table
// `[v0, v1, ...][index]`. Only `nranks` may carry a negative exponent, which is
// how strong-scaling values such as `960/nranks` stay exact.
//
// The representation is canonical: two Exprs are equal exactly when they are
// the same function, as far as polynomial identities go. That makes structural
// trace comparison, extrapolation and code generation agree on one form.
//
// Division is exact: evaluation that does not give an integer means the model
// does not hold for those arguments and yields nullopt.
#pragma once

#include "sio/trace/Column.h"
#include "sio/trace/Rational.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sio::trace {

class Expr;

/// Values of the free variables when an Expr is evaluated.
struct ExprEnv {
  int64_t rank = 0;
  int64_t nranks = 1;
  std::span<const int64_t> loopIndices; ///< i0 (outermost) first
};

/// One atom of a monomial. Mod and Table atoms own sub-expressions.
struct Atom {
  enum class Kind : uint8_t { Rank, NRanks, Loop, Mod, Table };
  Kind kind = Kind::Rank;
  uint32_t loopDepth = 0;                     ///< Loop
  std::shared_ptr<const Expr> lhs, rhs;       ///< Mod: lhs % rhs; Table: rhs is the index
  std::shared_ptr<const IntColumn> table;     ///< Table values (packed)

  static Atom rank() { return {}; }
  static Atom nranks() { Atom a; a.kind = Kind::NRanks; return a; }
  static Atom loop(uint32_t depth) { Atom a; a.kind = Kind::Loop; a.loopDepth = depth; return a; }

  friend bool operator==(const Atom &a, const Atom &b);
  friend bool operator<(const Atom &a, const Atom &b);
};

/// A product of atoms with integer exponents (sorted by atom, no zero exponents).
using Monomial = std::vector<std::pair<Atom, int32_t>>;

class Expr {
public:
  Expr() = default; ///< the constant 0
  Expr(int64_t value); // NOLINT: constants convert implicitly
  Expr(const Rational &value); // NOLINT

  static Expr rank();
  static Expr nranks();
  static Expr loopIndex(uint32_t depth);
  /// `lhs % rhs` with C semantics (the sign follows lhs).
  static Expr mod(const Expr &lhs, const Expr &rhs);
  /// `[values...][index]`: an explicit vector, for values that follow no model.
  static Expr table(std::vector<int64_t> values, const Expr &index);
  /// The same over a packed column (kept packed: no copy of the values).
  static Expr table(IntColumn values, const Expr &index);
  /// One term, `coefficient * monomial`, for code that rebuilds formulas term
  /// by term (fits per coefficient). `monomial` must be canonical, as the keys
  /// of terms() are.
  static Expr ofMonomial(const Monomial &monomial, const Rational &coefficient = Rational(1));

  /// Parses the text form written by str(). Throws std::invalid_argument with
  /// a message pointing at the offending character.
  static Expr parse(std::string_view text);

  friend Expr operator+(const Expr &a, const Expr &b);
  friend Expr operator-(const Expr &a, const Expr &b);
  friend Expr operator*(const Expr &a, const Expr &b);
  Expr operator-() const;
  /// Exact division. Throws std::invalid_argument unless the divisor is a
  /// nonzero constant or a monomial in nranks (e.g. `k*nranks`).
  friend Expr operator/(const Expr &a, const Expr &b);
  friend bool operator==(const Expr &a, const Expr &b) { return a.terms_ == b.terms_; }
  friend bool operator<(const Expr &a, const Expr &b) { return a.terms_ < b.terms_; }

  bool isConstant() const;
  /// The value if this is an integer constant.
  std::optional<int64_t> constantValue() const;
  bool dependsOnRank() const;
  bool dependsOnNRanks() const;
  /// 1 + the deepest loop index used, 0 if none.
  uint32_t loopDepthUsed() const;

  /// nullopt when the value is not an integer, a table index is out of range,
  /// a divisor is zero or a loop index is missing.
  std::optional<int64_t> evaluate(const ExprEnv &env) const;
  std::optional<Rational> evaluateRational(const ExprEnv &env) const;

  /// Replaces nranks by a value (used to compare an extrapolated trace, whose
  /// values are functions of nranks, with a trace taken at that size).
  Expr bindNRanks(int64_t nranks) const;

  /// Canonical text, e.g. "240*rank + 960*i0", "960*rank/nranks",
  /// "[7, 3, 9][i0]", "(rank + 1) % nranks * 64". Parseable by parse().
  std::string str() const;
  /// str() with explicit tables of at least kPackedTableMin values in the
  /// packed form `[#count:base64][index]` (docs/trace-format.md, "Packed
  /// tables"): the form the JSON writer uses. Parseable by parse().
  std::string packedStr() const;
  /// packedStr() in pieces, its tables streamed from their columns
  /// (IntColumn::writePackedText): never held whole.
  void writePacked(const std::function<void(std::string_view)> &sink) const;
  static constexpr size_t kPackedTableMin = 64;

  /// The terms: monomial -> nonzero coefficient. Empty means 0.
  const std::map<Monomial, Rational> &terms() const { return terms_; }

private:
  static Expr fromAtom(Atom atom);
  void addTerm(const Monomial &m, const Rational &c);
  std::map<Monomial, Rational> terms_;
};

} // namespace sio::trace
