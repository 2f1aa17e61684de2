// The output's loops that run once at the target: their values written with
// loop index 0, as the runtime records a loop of one iteration.
#include "Extrapolator.h"

#include <algorithm>

namespace sio::extrap::detail {

// ------------------------------------------------------- one-iteration loops
// A loop that runs once at the target (96/N steps at N = 64: 1) has index 0
// in its only iteration. The runtime records that iteration's values as they
// are (offset 0, not 64*i0), so the extrapolated trace writes them the same
// way: the same values, and the form `sio-trace diff` compares.

namespace {

Expr zeroLoopIndex(const Expr &e, uint32_t depth) {
  if (e.loopDepthUsed() <= depth)
    return e;
  Expr out;
  for (const auto &[monomial, coefficient] : e.terms()) {
    Monomial kept;
    Expr factor(coefficient);
    for (const auto &[atom, exponent] : monomial) {
      Expr a;
      if (atom.kind == Atom::Kind::Loop && atom.loopDepth == depth)
        a = Expr(0);
      else if (atom.kind == Atom::Kind::Mod && atom.lhs && atom.rhs)
        a = Expr::mod(zeroLoopIndex(*atom.lhs, depth), zeroLoopIndex(*atom.rhs, depth));
      else if (atom.kind == Atom::Kind::Table && atom.table && atom.rhs)
        a = Expr::table(*atom.table, zeroLoopIndex(*atom.rhs, depth));
      else {
        kept.emplace_back(atom, exponent);
        continue;
      }
      for (int32_t k = 0; k < exponent; ++k) // loop, mod and table atoms have positive exponents
        factor = factor * a;
    }
    out = out + Expr::ofMonomial(kept) * factor;
  }
  return out;
}

void zeroLoopIndex(ElasticValue &v, uint32_t depth) {
  for (ElasticEntry &e : v.entries())
    if (Expr *x = std::get_if<Expr>(&e.value))
      *x = zeroLoopIndex(*x, depth);
}

bool runsOnce(const ElasticValue &iterations, int64_t nranks) {
  return std::all_of(iterations.entries().begin(), iterations.entries().end(), [&](const ElasticEntry &e) {
    const Expr *x = std::get_if<Expr>(&e.value);
    return x && x->bindNRanks(nranks).constantValue() == 1;
  });
}

} // namespace

void zeroOneIterationIndices(std::vector<Node> &nodes, uint32_t depth, int64_t nranks,
                             const std::vector<uint32_t> &once) {
  for (Node &node : nodes) {
    if (node.isEvent()) {
      for (Param &p : node.event().params)
        for (uint32_t d : once)
          zeroLoopIndex(p.value, d);
      continue;
    }
    Loop &loop = node.loop();
    for (uint32_t d : once)
      zeroLoopIndex(loop.iterations, d);
    std::vector<uint32_t> inner = once;
    if (runsOnce(loop.iterations, nranks))
      inner.push_back(depth);
    zeroOneIterationIndices(loop.body, depth + 1, nranks, inner);
  }
}

} // namespace sio::extrap::detail
