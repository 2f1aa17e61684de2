// Generates the replay program. The program is assembled from parts that are
// produced while walking the trace once: the replay body (loops, guards,
// calls), and the tables it needs (computation-gap models, file names, MPI
// objects, start-up model checks, input files, buffer size); Generator.h.
#include "sio/replay/ReplayGenerator.h"

#include "Generator.h"

#include "sio/trace/Handles.h"

#include <ostream>

namespace sio::replay {

using sio::trace::Trace;

std::string generateReplay(const Trace &trace, const ReplayOptions &options) {
  // Traces read from a file were checked by the reader; extrapolated ones
  // come straight from memory. A replay of a handle closed twice or used
  // outside its lifetime would crash (double free, fseeko on null).
  if (auto problem = sio::trace::checkHandleLifetimes(trace))
    throw UnsupportedTrace(problem->path + ": " + problem->message);
  return detail::Generator(trace, options).run();
}

void writeReplay(std::ostream &out, const Trace &trace, const ReplayOptions &options) {
  out << generateReplay(trace, options);
}

} // namespace sio::replay
