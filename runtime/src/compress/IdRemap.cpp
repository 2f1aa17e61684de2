#include "IdRemap.h"

#include "ExprUtil.h"

namespace sio::rt::detail {

using namespace sio::trace;

std::string contentKey(const FileEntry &f) {
  std::string key;
  for (const FileNamePart &p : f.name)
    key += p.field ? "\x01" + p.field->str() + ":" + std::to_string(p.width) + "\x01" : p.text;
  return key;
}

std::string contentKey(const ObjectEntry &o) {
  std::string key = o.kind + '\x01' + o.name + '\x01';
  for (const auto &[name, values] : o.fields) {
    key += name + '=';
    for (const Expr &v : values)
      key += v.str() + ',';
    key += '\x01';
  }
  for (const auto &[k, v] : o.strings)
    key += k + '=' + v + '\x01';
  return key;
}

bool isIdentity(const IdMap &m) {
  return std::all_of(m.begin(), m.end(), [](const auto &kv) { return kv.first == kv.second; });
}

/// new id = remap[old id], also for ids that are functions of loop indices:
/// affine remaps stay affine, others become a table indexed by the old value.
Expr remapId(const Expr &value, const IdMap &remap) {
  if (auto c = value.constantValue()) {
    auto it = remap.find(*c);
    return it == remap.end() ? value : Expr(it->second);
  }
  if (remap.empty() || isIdentity(remap))
    return value;
  const auto &[x0, y0] = *remap.begin();
  const auto &[x1, y1] = *remap.rbegin();
  if (x1 != x0) {
    Rational slope = Rational(y1 - y0) / Rational(x1 - x0);
    bool affine = std::all_of(remap.begin(), remap.end(), [&](const auto &kv) {
      return Rational(y0) + slope * Rational(kv.first - x0) == Rational(kv.second);
    });
    if (affine)
      return Expr(y0) + Expr(slope) * (value - Expr(x0));
  }
  if (x0 < 0)
    return value; // ids are never negative in practice
  std::vector<int64_t> table(static_cast<size_t>(x1) + 1);
  for (int64_t k = 0; k <= x1; ++k)
    table[static_cast<size_t>(k)] = remap.count(k) ? remap.at(k) : k;
  return Expr::table(std::move(table), value);
}

void remapBody(std::vector<Node> &nodes, const Remaps &remaps) {
  for (Node &node : nodes) {
    if (node.isLoop()) {
      remapBody(node.loop().body, remaps);
      continue;
    }
    for (Param &p : node.event().params)
      if (const IdMap *m = remaps.forParam(p.name))
        for (ElasticEntry &e : p.value.entries())
          if (!isText(e.value))
            e.value = remapId(std::get<Expr>(e.value), *m);
  }
}

} // namespace sio::rt::detail
