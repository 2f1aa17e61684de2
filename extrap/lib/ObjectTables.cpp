// The inputs' object tables (datatypes, communicators, infos) fitted entry
// by entry, with info values that are decimal integers, and fields whose
// length changes with N; the site and loop tables are united.
#include "Extrapolator.h"

#include <algorithm>

namespace sio::extrap::detail {

void Extrapolator::unionTables(Trace &out) const {
  std::set<uint64_t> sites, loops;
  for (const Trace *t : in_) {
    for (const SiteInfo &s : t->sites)
      if (sites.insert(s.id).second)
        out.sites.push_back(s);
    for (const LoopInfo &l : t->loops)
      if (loops.insert(l.id).second)
        out.loops.push_back(l);
  }
}

namespace {

std::optional<int64_t> decimalValue(const std::string &text) {
  if (text.empty() || text.size() > 18 || (text.size() > 1 && text[0] == '0'))
    return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

} // namespace

// Info values are strings; a hint whose value is a decimal integer that
// differs between inputs (cb_nodes = nranks/2) is fitted like any integer
// and written back in decimal. Keys and other values must agree.
std::map<std::string, std::string> Extrapolator::fitStrings(const std::string &where, bool numeric, size_t i,
                                                            std::vector<ObjectEntry> Trace::*table) const {
  const auto &ref = (in_.back()->*table)[i].strings;
  std::map<std::string, std::string> out;
  for (const Trace *t : in_) {
    const auto &s = (t->*table)[i].strings;
    bool sameKeys =
        s.size() == ref.size() &&
        std::equal(s.begin(), s.end(), ref.begin(), [](const auto &a, const auto &b) { return a.first == b.first; });
    if (!sameKeys)
      differ(where, "different keys", {});
  }
  for (const auto &[key, value] : ref) {
    std::vector<std::string> shown;
    std::vector<int64_t> numbers;
    bool same = true;
    for (const Trace *t : in_) {
      const std::string &v = (t->*table)[i].strings.at(key);
      shown.push_back("\"" + v + "\"");
      same = same && v == value;
      if (auto d = decimalValue(v))
        numbers.push_back(*d);
    }
    if (same) {
      out[key] = value;
      continue;
    }
    if (!numeric || numbers.size() != in_.size())
      refuse(where, "the value of '" + key + "'", shown, {"identical strings", "decimal integers"});
    out[key] = std::to_string(fitInt(where, "the value of '" + key + "'", numbers));
  }
  return out;
}

// A field whose length changes with N (the q blocks of an indexed type
// on a q x q grid, one per grid column): its length is fitted like any
// integer, and its entries must be an arithmetic progression a + d*j at
// every input (j the entry's index), a and d fitted like any value. nullopt
// when the lengths agree (fitted entry by entry).
std::optional<std::vector<Expr>> Extrapolator::fitTableField(const std::string &where, size_t i,
                                                             const std::string &name,
                                                             std::vector<ObjectEntry> Trace::*table) const {
  std::vector<int64_t> lengths;
  std::vector<Expr> firsts, steps;
  bool same = true;
  for (const Trace *t : in_) {
    auto it = (t->*table)[i].fields.find(name);
    if (it == (t->*table)[i].fields.end())
      differ(where, "different field '" + name + "'", {});
    lengths.push_back(int64_t(it->second.size()));
    same = same && lengths.back() == lengths.front();
  }
  if (same)
    return std::nullopt;
  std::vector<std::string> shown;
  for (const Trace *t : in_) {
    const std::vector<Expr> &v = (t->*table)[i].fields.at(name);
    std::string s;
    for (const Expr &e : v)
      s += (s.empty() ? "" : ", ") + e.str();
    shown.push_back("[" + s + "]");
    if (v.size() < 2)
      refuse(where, "field '" + name + "' (a table whose length changes)", shown,
             {"a length fitted like any integer and entries a + d*j (two entries or more at every input)"});
    const Expr d = v[1] - v[0];
    for (size_t j = 2; j < v.size(); ++j)
      if (v[j] != v[0] + d * Expr(int64_t(j)))
        refuse(where, "field '" + name + "' (a table whose length changes)", shown,
               {"a length fitted like any integer and entries a + d*j (an arithmetic progression)"});
    firsts.push_back(v[0]);
    steps.push_back(d);
  }
  const int64_t length = fitInt(where, "the length of field '" + name + "'", lengths);
  if (length < 0 || length > (int64_t(1) << 20))
    throw ExtrapError("cannot extrapolate field '" + name + "' of " + where +
                      ": its length at N=" + std::to_string(targetN()) + " would be " + std::to_string(length));
  std::vector<const Expr *> a, d;
  for (size_t k = 0; k < firsts.size(); ++k) {
    a.push_back(&firsts[k]);
    d.push_back(&steps[k]);
  }
  const Expr first = fitExpr(where, "field '" + name + "'[0]", a);
  const Expr step = fitExpr(where, "field '" + name + "' (the step between entries)", d);
  std::vector<Expr> out;
  for (int64_t j = 0; j < length; ++j)
    out.push_back(first + step * Expr(j));
  return out;
}

std::vector<ObjectEntry> Extrapolator::fitObjects(const char *kind, std::vector<ObjectEntry> Trace::*table) const {
  std::vector<ObjectEntry> out;
  const auto &refTable = in_.back()->*table;
  std::vector<std::string> counts;
  for (const Trace *t : in_)
    counts.push_back(std::to_string((t->*table).size()) + " entries");
  for (const Trace *t : in_)
    if ((t->*table).size() != refTable.size())
      differ(std::string("the ") + kind + " table", "different numbers of entries", counts);
  for (size_t i = 0; i < refTable.size(); ++i) {
    const ObjectEntry &ref = refTable[i];
    std::string where = std::string(kind) + " " + std::to_string(ref.id) + " (" + ref.kind + ")";
    ObjectEntry entry = ref;
    for (const Trace *t : in_) {
      const ObjectEntry &e = (t->*table)[i];
      if (e.id != ref.id || e.kind != ref.kind || e.name != ref.name || e.fields.size() != ref.fields.size())
        differ(where, "different definitions", {e.kind + " " + e.name, ref.kind + " " + ref.name});
    }
    entry.strings = fitStrings(where, table == &Trace::infos, i, table);
    // A named datatype's fields (its size and extent) are MPI's, the same
    // at every rank count: taken as they are, never fitted.
    if (table == &Trace::datatypes && ref.kind == "named") {
      for (const Trace *t : in_)
        if ((t->*table)[i].fields != ref.fields)
          differ(where, "different fields of a named datatype", {});
      out.push_back(std::move(entry));
      continue;
    }
    for (auto &[name, values] : entry.fields) {
      if (auto progression = fitTableField(where, i, name, table)) {
        values = std::move(*progression);
        continue;
      }
      for (size_t v = 0; v < values.size(); ++v) {
        std::vector<const Expr *> samples;
        for (const Trace *t : in_) {
          auto it = (t->*table)[i].fields.find(name);
          if (it == (t->*table)[i].fields.end() || it->second.size() != values.size())
            differ(where, "different field '" + name + "'", {});
          samples.push_back(&it->second[v]);
        }
        const std::string what =
            "field '" + name + "'" + (values.size() > 1 ? "[" + std::to_string(v) + "]" : std::string());
        values[v] = fitExpr(where, what, samples);
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

} // namespace sio::extrap::detail
