#include "sio/trace/Fit.h"

#include <stdexcept>

namespace sio::trace {

std::optional<LinearSolution> solveExact(std::vector<std::vector<Rational>> a, std::vector<Rational> b) {
  try {
    const size_t rows = a.size();
    const size_t cols = rows ? a[0].size() : 0;
    std::vector<size_t> pivotCol;
    size_t r = 0;
    for (size_t c = 0; c < cols && r < rows; ++c) {
      size_t p = r;
      while (p < rows && a[p][c].isZero())
        ++p;
      if (p == rows)
        continue;
      std::swap(a[p], a[r]);
      std::swap(b[p], b[r]);
      Rational inv = Rational(1) / a[r][c];
      for (size_t k = c; k < cols; ++k)
        a[r][k] *= inv;
      b[r] *= inv;
      for (size_t i = 0; i < rows; ++i) {
        if (i == r || a[i][c].isZero())
          continue;
        Rational f = a[i][c];
        for (size_t k = c; k < cols; ++k)
          a[i][k] -= f * a[r][k];
        b[i] -= f * b[r];
      }
      pivotCol.push_back(c);
      ++r;
    }
    // Zero rows with a nonzero right-hand side: no exact solution.
    for (size_t i = r; i < rows; ++i)
      if (!b[i].isZero())
        return std::nullopt;
    LinearSolution s;
    s.x.assign(cols, Rational(0));
    s.unique = pivotCol.size() == cols;
    for (size_t i = 0; i < pivotCol.size(); ++i)
      s.x[pivotCol[i]] = b[i]; // free variables stay 0
    return s;
  } catch (const std::exception &) { // overflow
    return std::nullopt;
  }
}

std::optional<std::vector<Rational>> fitAffine(const std::vector<std::vector<Rational>> &xs,
                                               const std::vector<Rational> &ys) {
  if (xs.size() != ys.size() || xs.empty())
    return std::nullopt;
  const size_t vars = xs[0].size();
  std::vector<std::vector<Rational>> a;
  a.reserve(xs.size());
  for (const auto &row : xs) {
    if (row.size() != vars)
      return std::nullopt;
    std::vector<Rational> r{Rational(1)};
    r.insert(r.end(), row.begin(), row.end());
    a.push_back(std::move(r));
  }
  auto s = solveExact(std::move(a), ys);
  if (!s)
    return std::nullopt;
  return s->x;
}

std::optional<Expr> fitAffineExpr(const std::vector<Expr> &variables, const std::vector<std::vector<Rational>> &xs,
                                  const std::vector<Rational> &ys) {
  auto c = fitAffine(xs, ys);
  if (!c || c->size() != variables.size() + 1)
    return std::nullopt;
  try {
    Expr e((*c)[0]);
    for (size_t i = 0; i < variables.size(); ++i)
      e = e + Expr((*c)[i + 1]) * variables[i];
    return e;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

} // namespace sio::trace
