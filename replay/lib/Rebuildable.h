// Which MPI objects of a trace the replay can rebuild (docs/replay.md,
// "Objects the replay cannot rebuild"). A datatype is rebuilt exactly (a
// known named type, a derived type described down to named types),
// approximated (said so in the program's header and at start-up), or not at
// all: an id missing from the table, a member type the runtime could not
// describe (nested too deep, MPI_DATATYPE_NULL), a kind without a size. A
// replay that used such an object would commit or view through a null
// handle, so the generator refuses the first call that uses one, naming the
// call and the object, instead of emitting a program that aborts.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sio::replay {

struct Rebuild {
  enum class Kind { Exact, Approximated, Null, Impossible };
  Kind kind = Kind::Exact;
  std::string why; ///< Approximated, Null, Impossible: what the trace lacks
  /// Impossible because of a member: the member types down to the one that
  /// cannot be made, and why that one cannot.
  std::vector<int64_t> chain;
  std::string leafWhy;
};

/// The rebuild status of every datatype of a trace, with its members.
class DatatypeGraph {
public:
  DatatypeGraph(const sio::trace::Trace &trace, const std::set<std::string> &knownNames);
  /// The status of datatype `id` (Impossible for an id not in the table).
  const Rebuild &status(int64_t id) const;

private:
  const Rebuild &compute(int64_t id, std::set<int64_t> &visiting) const;
  std::map<int64_t, const sio::trace::ObjectEntry *> entries_;
  const std::set<std::string> &known_;
  mutable std::map<int64_t, Rebuild> status_;
};

/// The values an id parameter can take: its constants and the entries of
/// explicit tables (`[1, 3, 4][i0] + 2`); nullopt when the value is a
/// formula whose values cannot be listed.
std::optional<std::set<int64_t>> possibleIds(const sio::trace::ElasticValue &value);

/// The parameters of an event that name a datatype-table entry.
bool namesDatatype(const std::string &param);

} // namespace sio::replay
