// Models of values that real domain decompositions compute and no polynomial
// in N fits (issue "Elastic models for real decompositions"):
//
//  - root models: functions of q = sqrt(N) or cbrt(N) for programs that run
//    on square or cubic process grids (NAS BT/SP/LU style): `k*q`, `k/q`,
//    `k*q + b`, `k/q + b` (and `k*q^2`, `k/q^2` for cubes). Defined only
//    where N is a square (a cube): the program cannot run elsewhere.
//  - block models: `c*floor(n/N)`, `c*ceil(n/N)`, `c*(n % N)`,
//    `c*(N - n % N)` and `c*(n - (N-1)*ceil(n/N))` (the short last block
//    of ROMIO's darray) for an unknown array length n. floor and ceil fix n
//    to an interval from the values alone; the other forms take n from the
//    lengths the floor/ceil values of the same trace admit (a block
//    distribution's remainder, `n % N`, repeats with period lcm(N) and is
//    not determined by its own values).
//
// Every model is exact (zero residual on every input) and is written for the
// target as a constant, like the MPI_Dims_create grid models.
#pragma once

#include "sio/trace/Rational.h"
#include "sio/trace/Trace.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sio::extrap {

/// One model of a non-polynomial family that reproduced every sample.
struct FamilyFit {
  std::string family; ///< "root" or "block"
  std::string name;   ///< shown in messages: "480/q (q = sqrt(N))", "8*floor(10007/N)"
  /// The value at a rank count; nullopt where the model is not defined (a
  /// non-square N for a sqrt model) or gives no integer.
  std::function<std::optional<sio::trace::Rational>(int64_t)> at;
  /// The rank counts the model is defined at (squares for a sqrt model).
  std::function<bool(int64_t)> definedAt;
  std::string domain; ///< "a square", "a cube", "" (every N)
  int64_t length = 0; ///< a block model's array length n (0: none)
};

/// The integer r-th root of n when n is a perfect r-th power (r = 2, 3).
std::optional<int64_t> integerRoot(int64_t n, int r);

/// Root models (sqrt when every input is a square, cbrt when every input is
/// a cube) that reproduce the samples, need a root term, and are checked on
/// at least one input more than they have unknowns.
std::vector<FamilyFit> fitRootModels(const std::vector<int64_t> &ns, const std::vector<sio::trace::Rational> &values);

/// Array lengths n that some value of the samples admits as c*floor(n/N) or
/// c*ceil(n/N) (added to `out`).
void blockLengths(const std::vector<int64_t> &ns, const std::vector<sio::trace::Rational> &values,
                  std::set<int64_t> &out);

/// The array lengths the values of every parameter of the inputs' bodies
/// admit as floor/ceil blocks (the inputs sorted by rank count, walked in
/// lock step; where they differ in structure the walk stops).
std::set<int64_t> blockLengthsOf(const std::vector<const sio::trace::Trace *> &inputs);

/// Block models that reproduce the samples (values that differ between
/// inputs); `lengths` are the array lengths the trace admits (blockLengthsOf).
/// Models whose n is not fixed by the samples are given once per value they
/// take at `target` (two of them then make the value ambiguous).
std::vector<FamilyFit> fitBlockModels(const std::vector<int64_t> &ns, const std::vector<sio::trace::Rational> &values,
                                      const std::set<int64_t> &lengths, int64_t target);

/// A run of consecutive ranks whose value is affine in the rank:
/// `sum over m of (slope[m]*rank + intercept[m])*m` for ranks [start, end),
/// m the monomials of the loop indices (the empty one for the constant).
struct RankRun {
  int64_t start = 0, end = 0;
  std::map<sio::trace::Monomial, sio::trace::Rational> slope, intercept;
};

/// A value that the runtime's merge kept one group per rank (no formula of
/// rank fits all ranks: n/N + (rank < n % N) elements, offsets that add
/// min(rank, n % N)) as the fewest runs of ranks 0..nranks-1 that are each
/// affine in rank (for each loop-index monomial's coefficient), taken
/// greedily from the last rank. nullopt when a rank is not covered, a value
/// has a term other than rank, nranks and loop indices, or nranks > 4096.
std::optional<std::vector<RankRun>> affineRuns(const sio::trace::ElasticValue &value, int64_t nranks);

} // namespace sio::extrap
