#include "MemoryBudget.h"

#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace sio::rt {

using namespace sio::trace;

namespace {

/// std::unordered_map<std::string, int64_t>'s node: next pointer, key,
/// value, cached hash.
constexpr size_t kIndexNode = sizeof(void *) + sizeof(std::string) + sizeof(int64_t) + sizeof(size_t);

size_t exprBytes(const Expr &e) {
  // A std::map node per term (header 32, Monomial vector, Rational) and the
  // monomial's pairs; table atoms hold their entries.
  size_t b = 0;
  for (const auto &[monomial, c] : e.terms()) {
    b += mallocBytes(32 + sizeof(Monomial) + sizeof(Rational));
    if (!monomial.empty())
      b += mallocBytes(monomial.size() * sizeof(monomial[0]));
    for (const auto &[atom, exp] : monomial)
      if (atom.table)
        b += mallocBytes(sizeof(*atom.table)) + mallocBytes(atom.table->size() * sizeof(int64_t));
  }
  return b;
}

size_t valueBytes(const Value &v) {
  if (const auto *s = std::get_if<std::string>(&v))
    return stringHeapBytes(s->capacity());
  return exprBytes(std::get<Expr>(v));
}

size_t ranksBytes(const RankList &r) {
  return r.blocks().empty() ? 0 : mallocBytes(r.blocks().capacity() * sizeof(RankBlock)) + 64 * r.blocks().size();
}

size_t elasticBytes(const ElasticValue &v) {
  size_t b = v.entries().empty() ? 0 : mallocBytes(v.entries().capacity() * sizeof(ElasticEntry));
  for (const ElasticEntry &e : v.entries())
    b += ranksBytes(e.ranks) + valueBytes(e.value);
  return b;
}

size_t bodyBytes(const std::vector<Node> &body) {
  size_t b = body.empty() ? 0 : mallocBytes(body.capacity() * sizeof(Node));
  for (const Node &n : body) {
    b += ranksBytes(n.ranks);
    if (n.isEvent()) {
      const Event &e = n.event();
      b += stringHeapBytes(e.op.capacity()); // timing statistics are inline
      if (!e.params.empty())
        b += mallocBytes(e.params.capacity() * sizeof(Param));
      for (const Param &p : e.params)
        b += stringHeapBytes(p.name.capacity()) + elasticBytes(p.value);
      if (!e.rankTiming.empty())
        b += mallocBytes(e.rankTiming.capacity() * sizeof(RankTiming));
      for (const RankTiming &g : e.rankTiming)
        b += ranksBytes(g.ranks);
    } else {
      b += elasticBytes(n.loop().iterations) + bodyBytes(n.loop().body);
    }
  }
  return b;
}

size_t objectBytes(const std::vector<ObjectEntry> &table) {
  size_t b = table.empty() ? 0 : mallocBytes(table.capacity() * sizeof(ObjectEntry));
  for (const ObjectEntry &o : table) {
    b += stringHeapBytes(o.kind.capacity()) + stringHeapBytes(o.name.capacity()) + ranksBytes(o.ranks);
    for (const auto &[name, values] : o.fields) {
      b += mallocBytes(32 + sizeof(std::string) + sizeof(std::vector<Expr>)) + stringHeapBytes(name.capacity());
      if (!values.empty())
        b += mallocBytes(values.capacity() * sizeof(Expr));
      for (const Expr &v : values)
        b += exprBytes(v);
    }
    for (const auto &[k, v] : o.strings)
      b += mallocBytes(32 + 2 * sizeof(std::string)) + stringHeapBytes(k.capacity()) + stringHeapBytes(v.capacity());
  }
  return b;
}

} // namespace

size_t mallocBytes(size_t n) {
  size_t chunk = (n + sizeof(size_t) + 15) & ~size_t(15);
  return chunk < 32 ? 32 : chunk;
}

size_t stringHeapBytes(size_t length) {
  // libstdc++ keeps up to 15 characters inline.
  return length <= 15 ? 0 : mallocBytes(length + 1);
}

size_t InternedTableBytes::heldBytes() const {
  // Vector slots: capacity up to twice the size while it doubles. Index:
  // one node per name, buckets up to twice the names (load factor 1).
  return entries_ * (2 * sizeof(std::string) + mallocBytes(kIndexNode) + 2 * sizeof(void *)) + strings_;
}

size_t InternedTableBytes::finalizeBytes() const {
  // The trace's FileEntry (vector slot up to twice) with its one-part name
  // (the text moved from the runtime's table, not copied); formatLoopFileNames'
  // position index (node and buckets) and samples; the merge's content
  // index and id map entry of each of the rank's own files.
  const size_t entry = 2 * sizeof(FileEntry) + mallocBytes(sizeof(FileNamePart));
  const size_t namer = mallocBytes(sizeof(void *) + 2 * sizeof(int64_t) + sizeof(size_t)) + 2 * sizeof(void *) + 16;
  return entries_ * (entry + namer) + mergeTableBytes(entries_);
}

size_t mergeTableBytes(size_t entries) {
  // Index: an unordered_multimap node (next, hash, position) and buckets;
  // id map: a 16-byte slot of a vector that may have doubled.
  return entries * (mallocBytes(sizeof(void *) + 2 * sizeof(size_t)) + 2 * sizeof(void *) + 2 * 16);
}

size_t traceHeapBytes(const Trace &t) {
  // The header: its strings, and a page for what is fixed (maps' nodes).
  size_t b = 4096 + stringHeapBytes(t.header.program.capacity()) + stringHeapBytes(t.header.generator.capacity());
  for (const std::string &x : t.header.commandLine)
    b += sizeof(std::string) + stringHeapBytes(x.capacity());
  for (const std::string &x : t.header.notes)
    b += sizeof(std::string) + stringHeapBytes(x.capacity());
  for (const auto &[k, v] : t.header.metadata)
    b += mallocBytes(32 + 2 * sizeof(std::string)) + stringHeapBytes(k.capacity()) + stringHeapBytes(v.capacity());
  if (!t.files.empty())
    b += mallocBytes(t.files.capacity() * sizeof(FileEntry));
  for (const FileEntry &f : t.files) {
    if (!f.name.empty())
      b += mallocBytes(f.name.capacity() * sizeof(FileNamePart));
    for (const FileNamePart &p : f.name)
      b += stringHeapBytes(p.text.capacity()) + (p.field ? exprBytes(*p.field) : 0);
  }
  for (const SiteInfo &s : t.sites)
    b += sizeof(SiteInfo) + stringHeapBytes(s.file.capacity()) + stringHeapBytes(s.function.capacity()) +
         stringHeapBytes(s.callee.capacity());
  for (const LoopInfo &l : t.loops)
    b += sizeof(LoopInfo) + stringHeapBytes(l.file.capacity()) + stringHeapBytes(l.function.capacity());
  b += objectBytes(t.datatypes) + objectBytes(t.comms) + objectBytes(t.infos);
  return b + bodyBytes(t.body);
}

size_t mergeInputBytes(size_t textBytes) {
  // A file entry is at least ~50 bytes of compact text ({"id":..,"format":
  // ..,"name":[{"text":..}]}); the trace read from it takes 1.3x to 2.2x
  // the text (60- and 14-character names, MemoryBudgetTest), and the
  // merge's index and id map 80 bytes an entry, at most 1.6x. While it is
  // read the text is held too: max(1 + 2.2, 2.2 + 1.6) = 3.8.
  return textBytes * 38 / 10;
}

} // namespace sio::rt
