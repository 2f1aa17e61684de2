// A loop node being folded (Folder): the iterations seen so far, sampled
// slot by slot into ValueFitters, and materialize(), which writes the
// fitted models back into the loop's body.
#pragma once

#include "Structure.h"
#include "ValueFitter.h"

#include <memory>
#include <vector>

namespace sio::rt::detail {

/// A loop node being folded: its body (the first iteration, as template) and
/// one fitter per value slot of the body, in traversal order.
struct Folder {
  std::vector<ValueFitter> values;
  std::vector<uint64_t> bodyHashes;
  uint64_t iterations = 0;
  /// Scratch of sampleIteration, kept to avoid two allocations per iteration.
  std::vector<std::pair<Value *, DegenerateMask>> scratchValues;
  std::vector<Event *> scratchEvents;
};

/// Visits every value slot of a body in a fixed order with its nesting (the
/// relative index of the loop that owns the body), and every event.
template <typename OnValue, typename OnEvent>
void visitSlots(std::vector<Node> &body, uint32_t nesting, DegenerateMask mask, OnValue &onValue, OnEvent &onEvent) {
  for (Node &node : body) {
    if (node.isEvent()) {
      onEvent(node.event());
      for (Param &p : node.event().params)
        onValue(soleValue(p.value), nesting, mask);
    } else {
      Value &count = soleValue(node.loop().iterations);
      onValue(count, nesting, mask);
      visitSlots(node.loop().body, nesting + 1, innerMask(mask, count), onValue, onEvent);
    }
  }
}

std::unique_ptr<Folder> startFolder(std::vector<Node> &body, std::vector<uint64_t> bodyHashes);

/// Where a body's slots are in its folder: from `firstSlot` on, the body at
/// `nesting` under loops of mask `mask` (the whole body of a loop: 0, 0 and
/// 0; an alternative of a choice run: under its guard, which ran once).
struct SlotRange {
  size_t firstSlot = 0;
  uint32_t nesting = 0;
  DegenerateMask mask = 0;
};

/// Whether an iteration of the template's structure can join the folder.
bool accepts(Folder &folder, std::vector<Node> &iteration, SlotRange at = {});

/// Adds the values of `iteration` (the template's structure) to the folder's
/// slots from `at` on, and merges its timing into the template's events.
void sampleSlots(Folder &folder, std::vector<Node> &templ, std::vector<Node> &iteration, SlotRange at);

/// Adds one more iteration (same structure as the template) to a folder; the
/// iteration's timing merges into the template's events.
void sampleIteration(Folder &folder, std::vector<Node> &templ, std::vector<Node> &iteration);

/// Writes the fitted models into the template; the loop is final afterwards.
void materialize(Loop &loop, Folder &folder);

/// Rewrites a marker-less loop whose parameters are tables over the flat
/// index as the nest they follow; false (nothing changed) when there is
/// none (Nests.cpp).
bool refoldNest(Loop &loop, Folder &folder);

/// Approximate heap bytes of a node, for the memory cap.
size_t nodeBytes(const Node &node);

} // namespace sio::rt::detail
