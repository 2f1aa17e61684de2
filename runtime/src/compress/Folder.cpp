#include "Folder.h"

namespace sio::rt::detail {

std::unique_ptr<Folder> startFolder(std::vector<Node> &body, std::vector<uint64_t> bodyHashes) {
  auto folder = std::make_unique<Folder>();
  folder->bodyHashes = std::move(bodyHashes);
  auto onValue = [&](Value &v, uint32_t nesting, DegenerateMask mask) {
    folder->values.emplace_back(nesting);
    folder->values.back().add(v, mask);
  };
  auto onEvent = [](Event &) {};
  visitSlots(body, 0, 0, onValue, onEvent);
  folder->iterations = 1;
  return folder;
}

bool accepts(Folder &folder, std::vector<Node> &iteration, SlotRange at) {
  size_t slot = at.firstSlot;
  bool ok = true;
  auto check = [&](Value &v, uint32_t, DegenerateMask) { ok = ok && folder.values[slot++].accepts(v); };
  auto onEvent = [](Event &) {};
  visitSlots(iteration, at.nesting, at.mask, check, onEvent);
  return ok;
}

void sampleSlots(Folder &folder, std::vector<Node> &templ, std::vector<Node> &iteration, SlotRange at) {
  auto &values = folder.scratchValues;
  auto &events = folder.scratchEvents;
  values.clear();
  events.clear();
  auto collectValue = [&](Value &v, uint32_t, DegenerateMask mask) { values.emplace_back(&v, mask); };
  auto collectEvent = [&](Event &e) { events.push_back(&e); };
  visitSlots(iteration, at.nesting, at.mask, collectValue, collectEvent);
  size_t k = 0, eventIndex = 0;
  auto addValue = [&](Value &, uint32_t, DegenerateMask) {
    folder.values[at.firstSlot + k].add(*values[k].first, values[k].second);
    ++k;
  };
  auto mergeTiming = [&](Event &e) {
    e.compute.merge(events[eventIndex]->compute);
    e.duration.merge(events[eventIndex]->duration);
    ++eventIndex;
  };
  visitSlots(templ, at.nesting, at.mask, addValue, mergeTiming);
}

void sampleIteration(Folder &folder, std::vector<Node> &templ, std::vector<Node> &iteration) {
  sampleSlots(folder, templ, iteration, {});
  ++folder.iterations;
}

void materialize(Loop &loop, Folder &folder) {
  if (loop.id == 0 && refoldNest(loop, folder))
    return;
  size_t slot = 0;
  auto setValue = [&](Value &v, uint32_t, DegenerateMask) { v = folder.values[slot++].model(); };
  auto onEvent = [](Event &) {};
  visitSlots(loop.body, 0, 0, setValue, onEvent);
  soleValue(loop.iterations) = Expr(static_cast<int64_t>(folder.iterations));
}

namespace {

size_t valueBytes(const Value &v) {
  if (isText(v))
    return sizeof(Value) + std::get<std::string>(v).capacity();
  size_t b = sizeof(Value);
  for (const auto &[monomial, c] : std::get<Expr>(v).terms()) {
    b += 64 + monomial.size() * sizeof(monomial[0]);
    for (const auto &[atom, e] : monomial)
      if (atom.table)
        b += sizeof(IntColumn) + atom.table->heapBytes();
  }
  return b;
}

} // namespace

size_t nodeBytes(const Node &node) {
  size_t b = sizeof(Node);
  if (node.isEvent()) {
    const Event &e = node.event();
    b += e.op.capacity() + e.params.capacity() * sizeof(Param);
    for (const Param &p : e.params)
      b += p.name.capacity() + valueBytes(soleValue(p.value));
  } else {
    b += valueBytes(soleValue(node.loop().iterations));
    for (const Node &n : node.loop().body)
      b += nodeBytes(n);
  }
  return b;
}

} // namespace sio::rt::detail
