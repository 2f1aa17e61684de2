// Small traces for the generator tests, written as JSON (the documented form).
#pragma once

#include "sio/trace/Json.h"

#include <string>

namespace sio::replay::test {

/// All ranks of a run of `n`.
inline std::string allRanks(int n) { return "[{\"start\": 0, \"stride\": 1, \"count\": " + std::to_string(n) + "}]"; }

/// A trace of `nranks` ranks with MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
/// the given files (JSON array) and body (JSON array).
inline sio::trace::Trace makeTrace(int nranks, const std::string &files, const std::string &body,
                                   const std::string &sites = "[]", const std::string &loops = "[]") {
  std::string json = R"({"format": "sio-trace", "version": "1.0", "program": "test", "nranks": )" +
                     std::to_string(nranks) + R"(, "sites": )" + sites + R"(, "loops": )" + loops +
                     R"(, "files": )" + files + R"(,
    "datatypes": [{"id": 0, "kind": "named", "name": "MPI_BYTE"}],
    "comms": [{"id": 0, "kind": "world"}], "infos": [{"id": 0, "kind": "null"}],
    "body": )" + body + "}";
  return sio::trace::readTraceString(json, "test.json");
}

/// One event node for all ranks of `n`.
inline std::string event(int n, const std::string &op, const std::string &layer, const std::string &params,
                         const std::string &extra = "") {
  return R"({"event": ")" + op + R"(", "layer": ")" + layer + R"(", "ranks": )" + allRanks(n) +
         R"(, "params": )" + params + extra + "}";
}

} // namespace sio::replay::test
