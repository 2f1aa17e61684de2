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

/// Whether a value is a string or an integer model: part of an event's structure.
inline bool isText(const sio::trace::Value &v) { return std::holds_alternative<std::string>(v); }

} // namespace sio::rt::detail
