// Structural comparison of traces (sio-trace diff, the C1 check of extrap).
#pragma once

#include "sio/trace/Trace.h"

#include <string>
#include <vector>

namespace sio::trace {

struct DiffOptions {
  bool ignoreSites = false;   ///< ignore call-site and loop ids
  bool compareTiming = false; ///< timing statistics are ignored by default
  size_t maxDifferences = 10; ///< stop after this many
  /// Count which ranks won a race among inner calls (see diffTraces) as a
  /// difference; by default it is reported in `races` instead.
  bool exactRaceWinners = false;
};

struct Difference {
  std::string where; ///< "body[2].loop(3 iterations).body[0] MPI_File_write_at (strong.cpp:20:5)"
  std::string what;  ///< "param offset: 240*rank + 960*i0 vs 120*rank + 960*i0"
};

/// Differences in order of appearance; empty when the traces are equal.
/// Values are compared after binding nranks to each trace's rank count, so a
/// trace whose values are functions of nranks equals the concrete one.
///
/// Racing inner calls: sibling inner events of one operation and call site on
/// disjoint ranks that differ only in `error` are one call every rank made,
/// some succeeding and some failing (ROMIO's MPI_File_close has every rank
/// unlink the shared-file-pointer file; one wins, the others get ENOENT). The
/// library makes those calls, not the program, and timing picks the winner,
/// so such runs compare as the union of their ranks and the number of ranks
/// with each outcome. When only the winners differ the difference goes to
/// `races` (if given), unless options.exactRaceWinners.
std::vector<Difference> diffTraces(const Trace &a, const Trace &b, const DiffOptions &options = {},
                                   std::vector<Difference> *races = nullptr);

} // namespace sio::trace
