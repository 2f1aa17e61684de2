// The C++ text of the trace's values in a replay program: expressions,
// rank guards, flag names, MPI's named datatypes (ReplayGenerator.h has the
// public part: exprToCpp, rankGuard).
#pragma once

#include "sio/replay/ReplayGenerator.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sio::replay::detail {

std::string join(const std::vector<std::string> &parts, const std::string &separator);

/// Whether an expression may fail at run time (a division that must be
/// exact, a table index out of range): checked at start-up.
bool canFail(const sio::trace::Expr &expr);

/// The highest rank a rank list names explicitly (open-ended blocks excluded).
int64_t highestNamedRank(const sio::trace::RankList &ranks, int64_t tracedRanks);

/// `MPI_MODE_CREATE | MPI_MODE_WRONLY` for a value made of the named bits
/// of `flags`; the number itself when some bits have no name.
std::string decodeFlags(int64_t value, const std::vector<std::pair<int64_t, const char *>> &flags,
                        const char *zeroName);

extern const std::vector<std::pair<int64_t, const char *>> kAmodes;
extern const std::vector<std::pair<int64_t, const char *>> kOpenFlags;
extern const std::set<std::string> kNamedDatatypes;

/// "w", "a" and their "+" forms create or truncate; "r+" reads and may
/// write (isReadWriteMode).
bool isWriteMode(const std::string &fopenMode);
bool isReadWriteMode(const std::string &fopenMode);

} // namespace sio::replay::detail
