#include "ExprUtil.h"

namespace sio::rt::detail {

Expr atomExpr(const Atom &atom) { return Expr::ofMonomial({{atom, 1}}); }

namespace {

Expr power(const Expr &base, int32_t exponent) {
  Expr result(1);
  for (int32_t k = 0; k < (exponent < 0 ? -exponent : exponent); ++k)
    result = result * base;
  return exponent < 0 ? Expr(1) / result : result;
}

Expr rebuild(const Expr &e, const std::function<Expr(const Atom &)> &atomFor) {
  Expr sum;
  for (const auto &[monomial, coefficient] : e.terms()) {
    Expr term(coefficient);
    for (const auto &[atom, exponent] : monomial)
      term = term * power(atomFor(atom), exponent);
    sum = sum + term;
  }
  return sum;
}

} // namespace

Expr monomialExpr(const Monomial &m) { return Expr::ofMonomial(m); }

Expr substituteAtoms(const Expr &e, const std::function<Expr(const Atom &)> &replace) {
  std::function<Expr(const Atom &)> atomFor = [&](const Atom &atom) -> Expr {
    // Opaque atoms carry sub-expressions that may mention the same atoms.
    if (atom.kind == Atom::Kind::Mod || atom.kind == Atom::Kind::Table) {
      Atom inner = atom;
      if (atom.lhs)
        inner.lhs = std::make_shared<const Expr>(rebuild(*atom.lhs, atomFor));
      if (atom.rhs)
        inner.rhs = std::make_shared<const Expr>(rebuild(*atom.rhs, atomFor));
      return replace(inner);
    }
    return replace(atom);
  };
  return rebuild(e, atomFor);
}

Expr renameLoops(const Expr &e, const std::function<uint32_t(uint32_t)> &rename) {
  return substituteAtoms(e, [&](const Atom &atom) {
    return atom.kind == Atom::Kind::Loop ? Expr::loopIndex(rename(atom.loopDepth)) : atomExpr(atom);
  });
}

Expr bindRank(const Expr &e, int64_t rank) {
  if (!e.dependsOnRank())
    return e;
  return substituteAtoms(e, [&](const Atom &atom) {
    return atom.kind == Atom::Kind::Rank ? Expr(rank) : atomExpr(atom);
  });
}

} // namespace sio::rt::detail
