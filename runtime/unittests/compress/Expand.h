// Test oracle: expands a compressed trace back into the concrete event
// sequence one rank executes, to compare with what the compressor was fed.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace sio::rt::test {

struct FlatEvent {
  std::string op;
  uint64_t site = 0;
  std::vector<std::pair<std::string, std::variant<int64_t, std::string>>> params;
  friend bool operator==(const FlatEvent &, const FlatEvent &) = default;
};
std::ostream &operator<<(std::ostream &os, const FlatEvent &e);

/// The events `rank` executes, in order. Throws std::runtime_error when a
/// value does not evaluate (a wrong model) or a rank has no value.
std::vector<FlatEvent> expandRank(const sio::trace::Trace &trace, int64_t rank);
std::vector<FlatEvent> expandNodes(const std::vector<sio::trace::Node> &nodes, int64_t rank, int64_t nranks);

/// The Event capture would hand the compressor.
sio::trace::Event makeEvent(const FlatEvent &e);
/// Builds a flat event: makeFlat("write", 7, {{"offset", 64}, {"mode", "w"}}).
FlatEvent makeFlat(std::string op, uint64_t site,
                   std::vector<std::pair<std::string, std::variant<int64_t, std::string>>> params);

/// Counts event and loop nodes (a size measure independent of JSON).
size_t countNodes(const std::vector<sio::trace::Node> &nodes);

} // namespace sio::rt::test
