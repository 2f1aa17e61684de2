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
};

struct Difference {
  std::string where; ///< "body[2].loop(3 iterations).body[0] MPI_File_write_at (strong.cpp:20:5)"
  std::string what;  ///< "param offset: 240*rank + 960*i0 vs 120*rank + 960*i0"
};

/// Differences in order of appearance; empty when the traces are equal.
/// Values are compared after binding nranks to each trace's rank count, so a
/// trace whose values are functions of nranks equals the concrete one.
std::vector<Difference> diffTraces(const Trace &a, const Trace &b, const DiffOptions &options = {});

} // namespace sio::trace
