// Exact model fitting: Gaussian elimination over rationals. A model is accepted
// only if it reproduces every sample exactly (zero residual); there is no
// "best" approximate fit here. Used by the runtime's merges (values across
// iterations and ranks) and by sio-extrap (values across rank counts).
#pragma once

#include "sio/trace/Expr.h"
#include "sio/trace/Rational.h"

#include <optional>
#include <vector>

namespace sio::trace {

struct LinearSolution {
  std::vector<Rational> x;
  bool unique = true; ///< false: free variables were set to 0
};

/// Solves A x = b exactly; nullopt if the system is inconsistent or overflows.
std::optional<LinearSolution> solveExact(std::vector<std::vector<Rational>> a, std::vector<Rational> b);

/// Fits y = c[0] + c[1]*x[0] + ... exactly through every sample (each sample
/// a row of xs). nullopt when no affine function has zero residual. With fewer
/// distinct samples than unknowns the unused coefficients are 0.
std::optional<std::vector<Rational>> fitAffine(const std::vector<std::vector<Rational>> &xs,
                                               const std::vector<Rational> &ys);

/// Same fit, returned as an Expr in the given variables:
/// `c0 + c1*variables[0] + ...`.
std::optional<Expr> fitAffineExpr(const std::vector<Expr> &variables,
                                  const std::vector<std::vector<Rational>> &xs,
                                  const std::vector<Rational> &ys);

} // namespace sio::trace
