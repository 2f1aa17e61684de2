// Expr helpers the compressor needs beyond the public Expr API: rebuilding an
// Expr atom by atom (to rename loop indices or bind rank), and splitting a
// value into per-monomial coefficients.
#pragma once

#include "sio/trace/Expr.h"
#include "sio/trace/Trace.h"

#include <cstdint>
#include <functional>

namespace sio::rt::detail {

using sio::trace::Atom;
using sio::trace::Expr;
using sio::trace::Monomial;

/// The Expr of a single atom.
Expr atomExpr(const Atom &atom);
/// The Expr of a monomial with coefficient 1.
Expr monomialExpr(const Monomial &m);

/// Rebuilds `e` with every atom replaced by `replace(atom)` (applied inside
/// mod operands and table indices too).
Expr substituteAtoms(const Expr &e, const std::function<Expr(const Atom &)> &replace);

/// Renames loop index atoms i<d> to i<rename(d)>.
Expr renameLoops(const Expr &e, const std::function<uint32_t(uint32_t)> &rename);

/// Replaces the rank atom by a number.
Expr bindRank(const Expr &e, int64_t rank);

/// A table over a loop index whose values are affine in the index but at
/// its last position (a loop whose last iteration does something else: a
/// header written after the data) or its first, written without the table:
/// `a + b*i + d*((i - i % (L-1))/(L-1))` for L values, the last term being
/// d at i = L-1 and 0 before; at the first position the same with
/// `1 - ((i + L-2) - (i + L-2) % (L-1))/(L-1)`. Equal to `e` at every index
/// the table covers; `e` unchanged when it holds no such table (tables of
/// fewer than 4 values are left alone: 3 regular values at least make them
/// affine).
Expr peelTableEnds(const Expr &e);

/// Whether a value is a string or an integer model: part of an event's structure.
inline bool isText(const sio::trace::Value &v) { return std::holds_alternative<std::string>(v); }

} // namespace sio::rt::detail
