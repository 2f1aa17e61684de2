// The id tables of traces being merged (files, datatypes, communicators,
// infos): entries equal in content share one id, and every parameter that
// names an entry is renumbered (IdMap, remapBody).
#pragma once

#include "InterRank.h"

#include "sio/trace/Trace.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sio::rt::detail {

using sio::trace::Expr;
using sio::trace::FileEntry;
using sio::trace::Node;
using sio::trace::ObjectEntry;

/// What makes two table entries the same entry (names, fields and strings).
std::string contentKey(const FileEntry &f);
std::string contentKey(const ObjectEntry &o);

/// Old id -> new id: a sorted vector (16 bytes an entry, not a tree node's
/// 64: a merge of tables of many distinct files holds one per file). Ids
/// come in ascending order (tables are sorted by id first), so inserting is
/// appending.
class IdMap {
public:
  using value_type = std::pair<int64_t, int64_t>;
  using const_iterator = std::vector<value_type>::const_iterator;

  int64_t &operator[](int64_t key) {
    if (entries_.empty() || entries_.back().first < key) {
      entries_.emplace_back(key, 0);
      return entries_.back().second;
    }
    auto it = lower(key);
    if (it == entries_.end() || it->first != key)
      it = entries_.insert(it, {key, 0});
    return it->second;
  }
  const_iterator find(int64_t key) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const value_type &e, int64_t k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? it : entries_.end();
  }
  size_t count(int64_t key) const { return find(key) != end() ? 1 : 0; }
  int64_t at(int64_t key) const { return find(key)->second; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  auto rbegin() const { return entries_.rbegin(); }

private:
  std::vector<value_type>::iterator lower(int64_t key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const value_type &e, int64_t k) { return e.first < k; });
  }
  std::vector<value_type> entries_;
};

/// Unites two tables by content: equal entries share one id. Ids are
/// renumbered 0.. in order of first appearance (a's entries first).
template <typename Entry>
std::vector<Entry> mergeTable(std::vector<Entry> a, std::vector<Entry> b, IdMap &remapA, IdMap &remapB,
                              std::vector<bool> *fromB = nullptr) {
  auto byId = [](const Entry &x, const Entry &y) { return x.id < y.id; };
  std::sort(a.begin(), a.end(), byId);
  std::sort(b.begin(), b.end(), byId);
  std::vector<Entry> merged;
  merged.reserve(a.size() + b.size());
  // Hash of the content key -> merged index; the keys themselves are not
  // kept (a table of many distinct files would hold them all twice).
  std::unordered_multimap<size_t, int64_t> index;
  index.reserve(a.size() + b.size());
  auto add = [&](Entry e, IdMap &remap) {
    const std::string key = contentKey(e);
    const size_t h = std::hash<std::string>()(key);
    auto [lo, hi] = index.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (contentKey(merged[static_cast<size_t>(it->second)]) == key) {
        remap[e.id] = it->second;
        return;
      }
    const auto id = static_cast<int64_t>(merged.size());
    index.emplace(h, id);
    remap[e.id] = id;
    e.id = id;
    merged.push_back(std::move(e));
    if (fromB)
      fromB->push_back(&remap == &remapB);
  };
  for (Entry &e : a)
    add(std::move(e), remapA);
  std::vector<Entry>().swap(a);
  for (Entry &e : b)
    add(std::move(e), remapB);
  std::vector<Entry>().swap(b);
  return merged;
}

bool isIdentity(const IdMap &m);

Expr remapId(const Expr &value, const IdMap &remap);

struct Remaps {
  IdMap files, datatypes, comms, infos;
  const IdMap *forParam(std::string_view name) const {
    auto kind = tableOfParam(name);
    if (!kind)
      return nullptr;
    switch (*kind) {
    case TableKind::Files:
      return &files;
    case TableKind::Datatypes:
      return &datatypes;
    case TableKind::Comms:
      return &comms;
    case TableKind::Infos:
      return &infos;
    }
    return nullptr;
  }
  bool trivial() const { return isIdentity(files) && isIdentity(datatypes) && isIdentity(comms) && isIdentity(infos); }
};

void remapBody(std::vector<Node> &nodes, const Remaps &remaps);

} // namespace sio::rt::detail
