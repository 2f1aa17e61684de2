#include "ObjectMerge.h"

#include "RankFits.h"

#include <map>

namespace sio::rt::detail {

using namespace sio::trace;

namespace {

/// Fields that name entries of a table: datatypes' old types, comms' parents.
bool isReferenceField(const std::string &name) {
  return name == "oldtype" || name == "types" || name == "parent" || name == "peer";
}

/// Objects made by a rank are the same object on every rank that made them
/// at the same call site as the same serial (their creation event), whatever
/// their arguments; the others (named datatypes, world, infos, entries of
/// traces without ranks) are the same when their contents are.
std::string identityKey(const ObjectEntry &o) {
  if (o.serial < 0 || o.ranks.empty())
    return "content\x01" + contentKey(o);
  std::string key =
      "made\x01" + o.kind + '\x01' + formatId(o.site) + '\x01' + std::to_string(o.serial) + '\x01' + o.name + '\x01';
  for (const auto &[name, values] : o.fields) {
    key += name + '#' + std::to_string(values.size());
    if (isReferenceField(name))
      for (const Expr &v : values)
        key += ',' + v.str();
    key += '\x01';
  }
  for (const auto &[k, v] : o.strings)
    key += k + '=' + v + '\x01';
  return key;
}

/// One field value of an object made on `a.ranks` and on `b.ranks`: an exact
/// model of rank where one fits (`rank`, `(rank % 2)`, a rank grid), else an
/// explicit table indexed by rank.
Expr uniteFieldValue(const Expr &x, const RankList &xr, const Expr &y, const RankList &yr, int64_t nranks) {
  std::vector<RankPoint> points;
  for (auto [value, ranks] : {std::pair{&x, &xr}, std::pair{&y, &yr}})
    for (int64_t r : ranks->ranks())
      points.push_back({r, Rational(value->evaluate({r, nranks, {}}).value_or(0))});
  std::sort(points.begin(), points.end(), [](const RankPoint &p, const RankPoint &q) { return p.rank < q.rank; });
  if (auto model = fitRankModel(points, nranks))
    return *model;
  if (auto model = fitRankGrid(points, nranks, /*lastRankPeriod=*/true))
    return *model;
  std::vector<int64_t> table(static_cast<size_t>(points.back().rank) + 1, 0);
  for (const RankPoint &p : points)
    table[static_cast<size_t>(p.rank)] = p.value.asInteger().value_or(0);
  return Expr::table(std::move(table), Expr::rank());
}

} // namespace

/// Unites two object tables by identity (identityKey); ids are renumbered 0..
/// in order of first appearance, a's entries first. Reference fields are
/// renumbered on the way (they name entries made before, so lower ids).
std::vector<ObjectEntry> mergeObjects(std::vector<ObjectEntry> a, std::vector<ObjectEntry> b, IdMap &remapA,
                                      IdMap &remapB, int64_t nranks) {
  auto byId = [](const ObjectEntry &x, const ObjectEntry &y) { return x.id < y.id; };
  std::sort(a.begin(), a.end(), byId);
  std::sort(b.begin(), b.end(), byId);
  std::vector<ObjectEntry> merged;
  std::map<std::string, int64_t> index;
  auto add = [&](ObjectEntry e, IdMap &remap) {
    for (auto &[name, values] : e.fields)
      if (isReferenceField(name))
        for (Expr &v : values)
          v = remapId(v, remap);
    auto [it, inserted] = index.try_emplace(identityKey(e), static_cast<int64_t>(merged.size()));
    remap[e.id] = it->second;
    if (inserted) {
      e.id = it->second;
      merged.push_back(std::move(e));
      return;
    }
    ObjectEntry &m = merged[static_cast<size_t>(it->second)];
    if (e.serial >= 0 && !e.ranks.empty() && !m.ranks.empty())
      for (auto &[name, values] : m.fields) {
        const std::vector<Expr> &other = e.fields.at(name);
        for (size_t k = 0; k < values.size(); ++k)
          if (!(values[k] == other[k]))
            values[k] = uniteFieldValue(values[k], m.ranks, other[k], e.ranks, nranks);
      }
    m.ranks = m.ranks.unite(e.ranks);
  };
  for (ObjectEntry &e : a)
    add(std::move(e), remapA);
  for (ObjectEntry &e : b)
    add(std::move(e), remapB);
  return merged;
}

} // namespace sio::rt::detail
