#include "Structure.h"

#include "ExprUtil.h"

#include <functional>
#include <string_view>

namespace sio::rt::detail {

using namespace sio::trace;

uint64_t hashCombine(uint64_t seed, uint64_t value) {
  // splitmix64-style mixing: cheap and well distributed.
  uint64_t x = seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

namespace {
uint64_t hashText(std::string_view s) { return std::hash<std::string_view>{}(s); }
} // namespace

const Value &soleValue(const ElasticValue &v) {
  static const Value empty{std::string()};
  return v.entries().empty() ? empty : v.entries().front().value;
}

Value &soleValue(ElasticValue &v) {
  if (v.entries().empty())
    v = ElasticValue(Value(std::string()), RankList());
  return v.entries().front().value;
}

uint64_t structureHash(const Event &ev) {
  uint64_t h = hashText(ev.op);
  h = hashCombine(h, static_cast<uint64_t>(ev.layer));
  h = hashCombine(h, ev.site);
  h = hashCombine(h, ev.inner ? 1 : 0);
  for (const Param &p : ev.params) {
    h = hashCombine(h, hashText(p.name));
    const Value &v = soleValue(p.value);
    h = hashCombine(h, isText(v) ? hashText(std::get<std::string>(v)) + 1 : 0);
  }
  return h;
}

uint64_t loopHash(uint64_t loopId, std::span<const uint64_t> bodyHashes) {
  uint64_t h = hashCombine(0x5105100bULL, loopId);
  for (uint64_t b : bodyHashes)
    h = hashCombine(h, b);
  return hashCombine(h, bodyHashes.size());
}

uint64_t structureHash(const Node &node) {
  if (node.isEvent())
    return structureHash(node.event());
  const Loop &loop = node.loop();
  std::vector<uint64_t> body;
  body.reserve(loop.body.size());
  for (const Node &n : loop.body)
    body.push_back(structureHash(n));
  return loopHash(loop.id, body);
}

bool sameStructure(const Event &a, const Event &b) {
  if (a.op != b.op || a.layer != b.layer || a.site != b.site || a.inner != b.inner ||
      a.params.size() != b.params.size())
    return false;
  for (size_t k = 0; k < a.params.size(); ++k) {
    if (a.params[k].name != b.params[k].name)
      return false;
    const Value &va = soleValue(a.params[k].value), &vb = soleValue(b.params[k].value);
    if (isText(va) != isText(vb) || (isText(va) && va != vb))
      return false;
  }
  return true;
}

bool sameStructure(const Node &a, const Node &b) {
  if (a.isEvent() != b.isEvent())
    return false;
  if (a.isEvent())
    return sameStructure(a.event(), b.event());
  return a.loop().id == b.loop().id && sameStructure(a.loop().body, b.loop().body);
}

bool sameStructure(std::span<const Node> a, std::span<const Node> b) {
  if (a.size() != b.size())
    return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!sameStructure(a[k], b[k]))
      return false;
  return true;
}

} // namespace sio::rt::detail
