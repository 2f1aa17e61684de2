// `%` terms of the rank in positions, e.g. `32768*((rank + 1) % nranks)`:
// piecewise affine in the rank, so the ranks are cut into classes on which
// each such term is affine (intervals where `(a*rank + b) / m` keeps its
// quotient, or residues of the rank when m is small), and each class is
// analysed once instead of rank by rank (sio-signature at 10^6 ranks,
// docs/scale.md).
#pragma once

#include "sio/trace/Expr.h"
#include "sio/trace/RankList.h"
#include "sio/trace/Trace.h"

#include <optional>
#include <vector>

namespace sio::signature {

/// `(a*rank + b) % m` once nranks is bound, with integers a != 0, b, m != 0.
struct RankMod {
  trace::Atom atom; ///< as written in the trace (nranks not bound): for formulas
  int64_t a = 0, b = 0, m = 1;
  int64_t valueAt(int64_t rank) const;
  /// The quotient trunc((a*rank + b) / m) of C's `%`.
  int64_t quotientAt(int64_t rank) const;
  /// Bytes the term moves per rank over `ranks`: a where the quotient stays
  /// the same, 0 where every rank has the same residue; nullopt when the term
  /// is not affine on them.
  std::optional<int64_t> slopeOver(const trace::RankList &ranks) const;
};

/// `atom` as a RankMod at nranks, if it is one.
std::optional<RankMod> rankModOf(const trace::Atom &atom, int64_t nranks);

/// Every `%` atom of the trace whose left side depends on the rank only
/// affinely (no loop index), deduplicated.
std::vector<RankMod> rankMods(const trace::Trace &trace);

/// `classes` cut so that every term of `mods` is affine on each class; a term
/// that would need more than `maxPieces` pieces is left alone (its ranks are
/// then analysed one by one).
std::vector<trace::RankList> splitByRankMods(std::vector<trace::RankList> classes, const std::vector<RankMod> &mods,
                                             int64_t nranks, size_t maxPieces);

/// The slope per rank of `e` on `ranks` (the ranks of a class, nranks bound):
/// e = slope*rank + (terms that do not depend on the rank) + sum of RankMod
/// terms affine on the class; nullopt otherwise.
std::optional<int64_t> rankSlopeOver(const trace::Expr &e, int64_t nranks, const trace::RankList *ranks);

} // namespace sio::signature
