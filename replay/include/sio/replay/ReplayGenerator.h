// The replay generator: a trace in, a readable, self-contained C++ MPI
// program out that performs the trace's I/O (docs/replay.md). Used by
// `sio-extrap --emit-replay` and `sio-replay-gen`.
#pragma once

#include "sio/trace/Trace.h"

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace sio::replay {

struct ReplayOptions {
  /// Where the trace came from, named in the program's header comment.
  std::string traceName;
  /// The tool writing the program, named in the header comment.
  std::string generator = "sio-replay-gen";
};

/// The trace holds something the generator cannot replay (an unknown
/// operation, a parameter missing from a call, a communicator it cannot
/// rebuild). The message names the call, its source location and why.
class UnsupportedTrace : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The replay program for `trace`. Throws UnsupportedTrace.
std::string generateReplay(const sio::trace::Trace &trace, const ReplayOptions &options = {});
void writeReplay(std::ostream &out, const sio::trace::Trace &trace, const ReplayOptions &options = {});

/// An exact trace value as a C++ expression over `rank`, `nranks` and the
/// loop indices `i0`, `i1`, ...: plain arithmetic when the coefficients are
/// integers, `exactDiv(numerator, denominator)` (which refuses a remainder)
/// when the value has fractions or negative powers of nranks.
std::string exprToCpp(const sio::trace::Expr &expr);

/// A rank list as a C++ condition on `rank` ("" when it holds every rank of
/// a run of `tracedRanks`). A block that reaches the last traced rank stays
/// open-ended, so the same program runs at other rank counts.
std::string rankGuard(const sio::trace::RankList &ranks, int64_t tracedRanks);

} // namespace sio::replay
