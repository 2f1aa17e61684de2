// Block distributions over both dimensions of an MPI_Dims_create(N, 2) grid
// whose dimensions need not divide the array (issue "Elastic models for real
// decompositions": 128 x 128 cells over the 4 x 3 grid of N = 12, whose grid
// columns own 43, 43, 42 columns). The value at a rank is a function of its
// grid coordinates (c0, c1), through each dimension's block and offset:
//
//   floor split (a remainder):   B(c) = n/p + (c < n % p),
//                                O(c) = c*(n/p) + min(c, n % p)
//   ceil split (ROMIO's darray): B(c) = min(ceil(n/p), max(0, n - c*ceil(n/p))),
//                                O(c) = min(c*ceil(n/p), n)
//
// with p = dims(N,2)[k] and n the array's length in dimension k. A value is
// a linear combination, with coefficients fitted exactly over every rank of
// every input, of the basis 1, B0, B1, O0, O1, B0*B1 (counts are B0*B1,
// subarray sizes B_k, starts O_k, offsets a*O0 + b*O1). n is taken from the
// lengths the trace admits; the fewest basis functions that reproduce every
// rank are kept, and only if every input is a check: they are determined by
// the other inputs alone.
//
// The same over the 3-d grid MPI_Dims_create(N, 3) of S3D-I/O and FLASH
// (a 50^3 array over 3x2x2 at N = 12: 17, 17, 16 planes): coordinates
// (c0, c1, c2) in MPI_Cart_coords' row-major order (c2 = rank % p2,
// c1 = rank / p2 % p1, c0 = rank / (p1*p2)) or with c0 fastest, and the
// basis 1, B0, B1, B2, O0, O1, O2, B0*B1*B2.
#pragma once

#include "sio/trace/Expr.h"
#include "sio/trace/Rational.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sio::extrap {

/// One input: its rank count and the value at each of its ranks.
struct GridBlockSamples {
  int64_t nranks = 0;
  std::vector<sio::trace::Rational> values; ///< one per rank
};

/// A model that reproduced every rank of every input.
struct GridBlockFit {
  std::string name; ///< "1*B0*B1 (B0: floor split of 128, B1: floor split of 128; rank = c0*p1 + c1)"
  /// The value at every rank of a rank count (nullopt: too many ranks).
  std::function<std::optional<std::vector<sio::trace::Rational>>(int64_t)> valuesAt;
  /// The value at a rank count as a formula of rank (tables of one entry per
  /// grid coordinate where a dimension has a remainder).
  std::function<sio::trace::Expr(int64_t)> exprAt;
  int ndims = 2; ///< the grid's: MPI_Dims_create(N, ndims)
};

/// The block and offset of coordinate c of a dimension of length n over p
/// parts (floor split: n/p + (c < n % p); ceil split: ROMIO's darray).
int64_t gridBlock(bool ceilSplit, int64_t n, int64_t p, int64_t c);
int64_t gridOffset(bool ceilSplit, int64_t n, int64_t p, int64_t c);

/// Every model (one per distinct split, length and basis) that reproduces
/// every rank of the samples on the grids dimsCreate(N, ndims) (2 or 3), with array
/// lengths from `lengths`, and with `derive` also those the values name
/// themselves (a value that is one dimension's block); with `derive`, in
/// 3-d, also a + sum b_k*c_k of the grid coordinates themselves. Empty when fewer than
/// 3 inputs or more than 4096 ranks in one.
std::vector<GridBlockFit> fitGridBlockModels(const std::vector<GridBlockSamples> &inputs,
                                             const std::set<int64_t> &lengths, bool derive, int ndims = 2);

/// The models with the lengths the trace records (a subarray's sizes) when
/// any fits; else with those, the lengths `admitted` by other values and
/// those the values name.
std::vector<GridBlockFit> fitGridBlockModels(const std::vector<GridBlockSamples> &inputs,
                                             const std::set<int64_t> &recorded, const std::set<int64_t> &admitted,
                                             int ndims = 2);

} // namespace sio::extrap
