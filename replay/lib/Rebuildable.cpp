#include "Rebuildable.h"

namespace sio::replay {

using sio::trace::Atom;
using sio::trace::ElasticValue;
using sio::trace::Expr;
using sio::trace::ObjectEntry;
using sio::trace::Trace;

namespace {

/// Kinds emitDatatype rebuilds by their constructor, and the fields each
/// needs (the others are approximated by their size and extent).
bool describedEnough(const ObjectEntry &t) {
  auto has = [&](const char *f) {
    auto it = t.fields.find(f);
    return it != t.fields.end() && !it->second.empty();
  };
  const std::string &k = t.kind;
  if (k == "contiguous")
    return has("count") && has("oldtype");
  if (k == "vector" || k == "hvector")
    return has("count") && has("blocklength") && has("stride") && has("oldtype");
  if (k == "indexed")
    return has("blocklengths") && has("displacements") && has("oldtype");
  if (k == "subarray")
    return has("sizes") && has("subsizes") && has("starts") && has("order") && has("oldtype");
  if (k == "dup")
    return has("oldtype");
  if (k == "resized")
    return has("aints") && t.fields.at("aints").size() == 2 && has("oldtype");
  if (k == "hindexed" || k == "indexed_block" || k == "hindexed_block" || k == "darray")
    return has("ints") && has("oldtype");
  if (k == "struct")
    return has("ints") && has("types");
  return false;
}

} // namespace

DatatypeGraph::DatatypeGraph(const Trace &trace, const std::set<std::string> &knownNames) : known_(knownNames) {
  for (const ObjectEntry &t : trace.datatypes)
    entries_[t.id] = &t;
}

const Rebuild &DatatypeGraph::status(int64_t id) const {
  std::set<int64_t> visiting;
  return compute(id, visiting);
}

const Rebuild &DatatypeGraph::compute(int64_t id, std::set<int64_t> &visiting) const {
  if (auto done = status_.find(id); done != status_.end())
    return done->second;
  auto set = [&](Rebuild::Kind kind, std::string why) -> const Rebuild & {
    Rebuild r;
    r.kind = kind;
    r.why = std::move(why);
    return status_[id] = std::move(r);
  };
  const std::string name = "datatype " + std::to_string(id);
  auto it = entries_.find(id);
  if (it == entries_.end())
    return set(Rebuild::Kind::Impossible,
               id < 0 ? "the runtime could not describe a member type (nested more than 16 deep, or "
                        "MPI_DATATYPE_NULL)"
                      : name + " is not in the trace's datatypes table");
  const ObjectEntry &t = *it->second;
  auto hasSize = [&] {
    auto s = t.fields.find("size");
    return s != t.fields.end() && !s->second.empty();
  };
  if (t.kind == "named") {
    if (t.name == "MPI_DATATYPE_NULL")
      return set(Rebuild::Kind::Null, name + " is MPI_DATATYPE_NULL in the application");
    if (known_.count(t.name))
      return set(Rebuild::Kind::Exact, "");
    if (hasSize())
      return set(Rebuild::Kind::Approximated, name + " (named type " + t.name + ") is unknown here");
    return set(Rebuild::Kind::Impossible,
               name + " is the named type " + t.name + ", unknown here, and the trace does not give its size");
  }
  if (!visiting.insert(id).second)
    return set(Rebuild::Kind::Impossible, name + " is built from itself");
  // The members (oldtype, and a struct's types) first: a type built on one
  // the replay cannot make cannot be made either.
  Rebuild::Kind kind = Rebuild::Kind::Exact;
  std::string why;
  const bool constructorEntry = t.name.rfind("MPI_Type_", 0) == 0;
  if (constructorEntry || describedEnough(t)) {
    for (const char *field : {"oldtype", "types"}) {
      auto f = t.fields.find(field);
      if (f == t.fields.end())
        continue;
      for (const Expr &x : f->second) {
        auto member = x.constantValue();
        if (!member) {
          visiting.erase(id);
          return set(Rebuild::Kind::Impossible, name + " (" + t.kind + ") has a member type that is not one id");
        }
        const Rebuild &m = compute(*member, visiting);
        if (m.kind == Rebuild::Kind::Impossible || m.kind == Rebuild::Kind::Null) {
          visiting.erase(id);
          Rebuild r;
          r.kind = Rebuild::Kind::Impossible;
          r.chain.push_back(*member);
          r.chain.insert(r.chain.end(), m.chain.begin(), m.chain.end());
          r.leafWhy = m.leafWhy.empty() ? m.why : m.leafWhy;
          r.why = name + " (" + t.kind + ") is built on";
          for (size_t k = 0; k + 1 < r.chain.size(); ++k)
            r.why += " datatype " + std::to_string(r.chain[k]) + ", on";
          r.why += " datatype " + std::to_string(r.chain.back()) + ": " + r.leafWhy;
          return status_[id] = std::move(r);
        }
        if (m.kind == Rebuild::Kind::Approximated && kind == Rebuild::Kind::Exact) {
          kind = Rebuild::Kind::Approximated;
          why = name + " is built on an approximated type (" + m.why + ")";
        }
      }
    }
  }
  visiting.erase(id);
  if (constructorEntry || describedEnough(t))
    return set(kind, why);
  if (hasSize())
    return set(Rebuild::Kind::Approximated, name + " ('" + t.kind + "') is contiguous bytes with its size and extent");
  return set(Rebuild::Kind::Impossible,
             name + " ('" + t.kind + "', made by a call sio does not describe) has no size in the trace");
}

std::optional<std::set<int64_t>> possibleIds(const ElasticValue &value) {
  std::set<int64_t> ids;
  for (const auto &entry : value.entries()) {
    const Expr *x = std::get_if<Expr>(&entry.value);
    if (!x)
      return std::nullopt;
    if (auto c = x->constantValue()) {
      ids.insert(*c);
      continue;
    }
    // c + k*table[index]: one explicit table, any index.
    std::optional<int64_t> constant = 0, scale;
    const sio::trace::IntColumn *table = nullptr;
    for (const auto &[mono, coef] : x->terms()) {
      auto k = coef.asInteger();
      if (!k)
        return std::nullopt;
      if (mono.empty()) {
        constant = *k;
      } else if (mono.size() == 1 && mono[0].second == 1 && mono[0].first.kind == Atom::Kind::Table && !table &&
                 mono[0].first.table) {
        table = mono[0].first.table.get();
        scale = *k;
      } else {
        return std::nullopt;
      }
    }
    if (!table)
      return std::nullopt;
    table->forEach([&](int64_t v) { ids.insert(*constant + *scale * v); });
  }
  return ids;
}

bool namesDatatype(const std::string &param) {
  return param == "datatype" || param == "etype" || param == "filetype" || param == "oldtype";
}

} // namespace sio::replay
