// Structural identity of trace nodes: what must match for two nodes to fold
// into one (iterations of a loop) or merge into one (ranks). Events match when
// op, layer, site, inner, parameter names and kinds, and string values match;
// integer values may differ (they become functions of loop indices or rank).
// Loops match when id and body structure match; iteration counts may differ.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sio::rt::detail {

uint64_t hashCombine(uint64_t seed, uint64_t value);
uint64_t structureHash(const sio::trace::Event &ev);
uint64_t structureHash(const sio::trace::Node &node);
/// The hash of a loop node with this id and these body node hashes
/// (equals structureHash of that node).
uint64_t loopHash(uint64_t loopId, std::span<const uint64_t> bodyHashes);

bool sameStructure(const sio::trace::Event &a, const sio::trace::Event &b);
bool sameStructure(const sio::trace::Node &a, const sio::trace::Node &b);
bool sameStructure(std::span<const sio::trace::Node> a, std::span<const sio::trace::Node> b);

/// The first value of an elastic value (intra-rank values have exactly one).
const sio::trace::Value &soleValue(const sio::trace::ElasticValue &v);
sio::trace::Value &soleValue(sio::trace::ElasticValue &v);

} // namespace sio::rt::detail
