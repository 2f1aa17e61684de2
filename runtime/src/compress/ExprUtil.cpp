#include "ExprUtil.h"

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

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

Expr peelTableEnds(const Expr &e) {
  using sio::trace::Rational;
  for (const auto &[monomial, coefficient] : e.terms()) {
    if (monomial.size() != 1 || monomial[0].second != 1 || monomial[0].first.kind != Atom::Kind::Table)
      continue;
    const Atom &table = monomial[0].first;
    if (!table.table || !table.rhs || table.table->size() < 4)
      continue;
    const Expr &index = *table.rhs;
    const auto &indexTerms = index.terms();
    if (indexTerms.size() != 1 || indexTerms.begin()->second != Rational(1))
      continue;
    const Monomial &im = indexTerms.begin()->first;
    if (im.size() != 1 || im[0].second != 1 || im[0].first.kind != Atom::Kind::Loop)
      continue;
    const int64_t n = static_cast<int64_t>(table.table->size());
    try {
      std::vector<Rational> w;
      w.reserve(static_cast<size_t>(n));
      for (int64_t v : table.table->values())
        w.push_back(coefficient * Rational(v));
      // The line through w[from] and w[from + 1], if it holds up to `to`.
      auto line = [&](int64_t from, int64_t to) -> std::optional<std::pair<Rational, Rational>> {
        const Rational slope = w[size_t(from) + 1] - w[size_t(from)];
        const Rational base = w[size_t(from)] - slope * Rational(from);
        for (int64_t j = from; j < to; ++j)
          if (base + slope * Rational(j) != w[size_t(j)])
            return std::nullopt;
        return std::pair{base, slope};
      };
      const Expr period(n - 1);
      Expr replacement;
      if (auto l = line(0, n - 1)) {
        const Rational delta = w[size_t(n - 1)] - (l->first + l->second * Rational(n - 1));
        const Expr atLast = (index - Expr::mod(index, period)) / period;
        replacement = Expr(l->first) + Expr(l->second) * index + Expr(delta) * atLast;
      } else if (auto l = line(1, n)) {
        const Rational delta = w[0] - l->first;
        const Expr shifted = index + Expr(n - 2);
        const Expr atFirst = Expr(1) - (shifted - Expr::mod(shifted, period)) / period;
        replacement = Expr(l->first) + Expr(l->second) * index + Expr(delta) * atFirst;
      } else {
        continue;
      }
      return e - Expr::ofMonomial(monomial, coefficient) + replacement;
    } catch (const std::exception &) { // overflow
      return e;
    }
  }
  return e;
}

} // namespace sio::rt::detail
