#include "sio/trace/Trace.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace sio::trace {

std::string_view layerName(Layer layer) {
  switch (layer) {
  case Layer::MPIIO:
    return "mpiio";
  case Layer::POSIX:
    return "posix";
  case Layer::STDIO:
    return "stdio";
  case Layer::SYNC:
    return "sync";
  }
  return "?";
}

std::optional<Layer> layerFromName(std::string_view name) {
  for (Layer l : {Layer::MPIIO, Layer::POSIX, Layer::STDIO, Layer::SYNC})
    if (layerName(l) == name)
      return l;
  return std::nullopt;
}

std::string valueStr(const Value &value) {
  if (const auto *e = std::get_if<Expr>(&value))
    return e->str();
  return "\"" + std::get<std::string>(value) + "\"";
}

const Value *ElasticValue::valueFor(int64_t rank) const {
  for (const auto &e : entries_)
    if (e.ranks.contains(rank))
      return &e.value;
  return nullptr;
}

RankList ElasticValue::ranks() const {
  RankList all;
  for (const auto &e : entries_)
    all = all.unite(e.ranks);
  return all;
}

const Param *Event::param(std::string_view name) const {
  for (const auto &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

Param *Event::param(std::string_view name) {
  for (auto &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::optional<std::string> FileEntry::nameFor(int64_t rank, int64_t nranks, std::span<const int64_t> indices) const {
  std::string out;
  for (const auto &part : name) {
    if (!part.field) {
      out += part.text;
      continue;
    }
    if (part.field->loopDepthUsed() > indices.size())
      return std::nullopt;
    auto v = part.field->evaluate({rank, nranks, indices});
    if (!v)
      return std::nullopt;
    std::string digits = std::to_string(*v < 0 ? -*v : *v);
    if (digits.size() < part.width)
      digits.insert(0, part.width - digits.size(), '0');
    out += (*v < 0 ? "-" : "") + digits;
  }
  return out;
}

namespace {

// Floor division has no operator of its own in Expr (division is exact), so
// the runtime writes `rank/4` grouping as `(rank - rank % 4)/4`. Show it the
// way a person wrote it.
std::string fieldStr(const Expr &field) {
  for (const auto &[m, c] : field.terms())
    for (const auto &[atom, exp] : m) {
      if (atom.kind != Atom::Kind::Mod)
        continue;
      auto k = atom.rhs->constantValue();
      if (!k || *k <= 1)
        continue;
      const Expr &x = *atom.lhs;
      if ((x - Expr::mod(x, Expr(*k))) / Expr(*k) == field) {
        bool simple = x.terms().size() == 1;
        return (simple ? x.str() : "(" + x.str() + ")") + "/" + std::to_string(*k);
      }
    }
  return field.str();
}

} // namespace

uint32_t FileEntry::loopDepthUsed() const {
  uint32_t depth = 0;
  for (const auto &part : name)
    if (part.field)
      depth = std::max(depth, part.field->loopDepthUsed());
  return depth;
}

std::string FileEntry::formatStr() const {
  std::string out;
  for (const auto &part : name) {
    if (!part.field) {
      out += part.text;
      continue;
    }
    out += "<" + fieldStr(*part.field);
    if (part.width > 0)
      out += ":0" + std::to_string(part.width);
    out += ">";
  }
  return out;
}

const SiteInfo *Trace::site(uint64_t id) const {
  for (const auto &s : sites)
    if (s.id == id)
      return &s;
  return nullptr;
}

const LoopInfo *Trace::loopInfo(uint64_t id) const {
  for (const auto &l : loops)
    if (l.id == id)
      return &l;
  return nullptr;
}

const FileEntry *Trace::file(int64_t id) const {
  for (const auto &f : files)
    if (f.id == id)
      return &f;
  return nullptr;
}

const ObjectEntry *Trace::datatype(int64_t id) const {
  for (const auto &d : datatypes)
    if (d.id == id)
      return &d;
  return nullptr;
}

namespace {

std::optional<int64_t> namedTypeSize(std::string_view name) {
  static const std::pair<std::string_view, int64_t> kSizes[] = {
      {"MPI_BYTE", 1},           {"MPI_CHAR", 1},          {"MPI_SIGNED_CHAR", 1},
      {"MPI_UNSIGNED_CHAR", 1},  {"MPI_PACKED", 1},        {"MPI_INT8_T", 1},
      {"MPI_UINT8_T", 1},        {"MPI_C_BOOL", 1},        {"MPI_SHORT", 2},
      {"MPI_UNSIGNED_SHORT", 2}, {"MPI_INT16_T", 2},       {"MPI_UINT16_T", 2},
      {"MPI_INT", 4},            {"MPI_UNSIGNED", 4},      {"MPI_INT32_T", 4},
      {"MPI_UINT32_T", 4},       {"MPI_FLOAT", 4},         {"MPI_WCHAR", 4},
      {"MPI_LONG", 8},           {"MPI_UNSIGNED_LONG", 8}, {"MPI_LONG_LONG", 8},
      {"MPI_LONG_LONG_INT", 8},  {"MPI_UNSIGNED_LONG_LONG", 8}, {"MPI_INT64_T", 8},
      {"MPI_UINT64_T", 8},       {"MPI_DOUBLE", 8},        {"MPI_AINT", 8},
      {"MPI_OFFSET", 8},         {"MPI_COUNT", 8},         {"MPI_LONG_DOUBLE", 16},
      {"MPI_C_DOUBLE_COMPLEX", 16}, {"MPI_C_FLOAT_COMPLEX", 8}};
  for (const auto &[n, s] : kSizes)
    if (n == name)
      return s;
  return std::nullopt;
}

std::optional<int64_t> evalField(const ObjectEntry &d, const char *name, size_t index, int64_t rank, int64_t nranks) {
  auto it = d.fields.find(name);
  if (it == d.fields.end() || index >= it->second.size())
    return std::nullopt;
  return it->second[index].evaluate({rank, nranks, {}});
}

std::optional<int64_t> sizeOf(const Trace &t, int64_t id, int64_t rank, int depth) {
  const ObjectEntry *d = t.datatype(id);
  if (!d || depth > 32)
    return std::nullopt;
  if (auto s = evalField(*d, "size", 0, rank, t.header.nranks))
    return s;
  if (d->kind == "named")
    return namedTypeSize(d->name);
  auto old = [&]() -> std::optional<int64_t> {
    auto o = evalField(*d, "oldtype", 0, rank, t.header.nranks);
    return o ? sizeOf(t, *o, rank, depth + 1) : std::nullopt;
  };
  auto product = [&](const char *field) -> std::optional<int64_t> {
    auto it = d->fields.find(field);
    if (it == d->fields.end())
      return std::nullopt;
    int64_t p = 1;
    for (size_t i = 0; i < it->second.size(); ++i) {
      auto v = evalField(*d, field, i, rank, t.header.nranks);
      if (!v)
        return std::nullopt;
      p *= *v;
    }
    return p;
  };
  if (d->kind == "contiguous" || d->kind == "vector" || d->kind == "hvector") {
    auto count = evalField(*d, "count", 0, rank, t.header.nranks);
    auto bl = d->kind == "contiguous" ? std::optional<int64_t>(1) : evalField(*d, "blocklength", 0, rank, t.header.nranks);
    auto o = old();
    if (count && bl && o)
      return *count * *bl * *o;
  } else if (d->kind == "subarray") {
    auto n = product("subsizes");
    auto o = old();
    if (n && o)
      return *n * *o;
  } else if (d->kind == "resized" || d->kind == "dup") {
    return old();
  } else if (d->kind == "indexed" || d->kind == "hindexed" || d->kind == "indexed_block") {
    auto it = d->fields.find("blocklengths");
    auto o = old();
    if (it != d->fields.end() && o) {
      int64_t total = 0;
      for (size_t i = 0; i < it->second.size(); ++i) {
        auto v = evalField(*d, "blocklengths", i, rank, t.header.nranks);
        if (!v)
          return std::nullopt;
        total += *v;
      }
      return total * *o;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<int64_t> datatypeSize(const Trace &trace, int64_t id, int64_t rank) {
  return sizeOf(trace, id, rank, 0);
}

std::optional<std::string> errorName(Layer layer, int64_t code) {
  if (layer == Layer::MPIIO || layer == Layer::SYNC) {
    // MPI error classes as MPICH numbers them (mpi.h); the class names are
    // the standard's, so a replay can use them with any MPI.
    static constexpr const char *kClasses[] = {
        "MPI_SUCCESS",         "MPI_ERR_BUFFER",     "MPI_ERR_COUNT",       "MPI_ERR_TYPE",
        "MPI_ERR_TAG",         "MPI_ERR_COMM",       "MPI_ERR_RANK",        "MPI_ERR_ROOT",
        "MPI_ERR_GROUP",       "MPI_ERR_OP",         "MPI_ERR_TOPOLOGY",    "MPI_ERR_DIMS",
        "MPI_ERR_ARG",         "MPI_ERR_UNKNOWN",    "MPI_ERR_TRUNCATE",    "MPI_ERR_OTHER",
        "MPI_ERR_INTERN",      "MPI_ERR_IN_STATUS",  "MPI_ERR_PENDING",     "MPI_ERR_REQUEST",
        "MPI_ERR_ACCESS",      "MPI_ERR_AMODE",      "MPI_ERR_BAD_FILE",    "MPI_ERR_CONVERSION",
        "MPI_ERR_DUP_DATAREP", "MPI_ERR_FILE_EXISTS", "MPI_ERR_FILE_IN_USE", "MPI_ERR_FILE",
        "MPI_ERR_INFO",        "MPI_ERR_INFO_KEY",   "MPI_ERR_INFO_VALUE",  "MPI_ERR_INFO_NOKEY",
        "MPI_ERR_IO",          "MPI_ERR_NAME",       "MPI_ERR_NO_MEM",      "MPI_ERR_NOT_SAME",
        "MPI_ERR_NO_SPACE",    "MPI_ERR_NO_SUCH_FILE", "MPI_ERR_PORT",      "MPI_ERR_QUOTA",
        "MPI_ERR_READ_ONLY",   "MPI_ERR_SERVICE",    "MPI_ERR_SPAWN",       "MPI_ERR_UNSUPPORTED_DATAREP",
        "MPI_ERR_UNSUPPORTED_OPERATION", "MPI_ERR_WIN"};
    if (code >= 0 && code < int64_t(std::size(kClasses)))
      return kClasses[code];
    return std::nullopt;
  }
  if (code <= 0 || code > 4095)
    return std::nullopt;
  if (const char *name = strerrorname_np(int(code)))
    return std::string(name);
  return std::nullopt;
}

std::string formatId(uint64_t id) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(id));
  return buf;
}

std::optional<uint64_t> parseId(std::string_view text) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return std::nullopt;
  return v;
}

} // namespace sio::trace
