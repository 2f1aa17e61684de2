// The inputs' file tables: matched by the calls that use them
// (alignFiles), renamed by --path-map (mapPaths), and each name format
// fitted with its fields (fitFiles), or refused naming a per-run directory
// (refuseNames).
#include "Extrapolator.h"

#include <algorithm>

namespace sio::extrap {

using sio::trace::FileEntry;
using sio::trace::Trace;

void mapPaths(Trace &t, const std::vector<std::pair<std::string, std::string>> &maps) {
  for (FileEntry &f : t.files) {
    if (f.name.empty() || f.name.front().field)
      continue;
    std::string &text = f.name.front().text;
    const std::pair<std::string, std::string> *best = nullptr;
    for (const auto &m : maps)
      if (text.compare(0, m.first.size(), m.first) == 0 && (!best || m.first.size() > best->first.size()))
        best = &m;
    if (best)
      text = best->second + text.substr(best->first.size());
  }
}

} // namespace sio::extrap

namespace sio::extrap::detail {

// ------------------------------------------------------------ file identity
//
// The file tables of the inputs are matched by the events that use them, not
// by position: a small run can list its files in another order (a name that
// is a literal at 4 ranks, `group_0`, becomes the format `group_<rank/4>` at
// 8 and moves in the table). Walking the bodies in lock step, each constant
// file id of an input is paired with the reference's (the largest input) at
// the same parameter of the same call; the input's table is then renumbered
// to the reference's ids. Where the bodies differ the walk stops (the
// structural error comes later, from the fit itself).

namespace {

using FileMap = std::map<int64_t, int64_t>;

bool pairFiles(const std::vector<Node> &in, const std::vector<Node> &ref, FileMap &map) {
  if (in.size() != ref.size())
    return true;
  for (size_t i = 0; i < in.size(); ++i) {
    const Node &a = in[i], &b = ref[i];
    if (a.isEvent() != b.isEvent())
      return true;
    if (a.isLoop()) {
      if (!pairFiles(a.loop().body, b.loop().body, map))
        return false;
      continue;
    }
    const Event &ea = a.event(), &eb = b.event();
    if (ea.op != eb.op || ea.params.size() != eb.params.size())
      continue;
    for (size_t p = 0; p < ea.params.size(); ++p) {
      if (!isFileParam(ea.params[p].name) || ea.params[p].name != eb.params[p].name)
        continue;
      const auto &xa = ea.params[p].value.entries(), &xb = eb.params[p].value.entries();
      if (xa.size() != xb.size())
        continue;
      for (size_t k = 0; k < xa.size(); ++k) {
        const Expr *ia = std::get_if<Expr>(&xa[k].value), *ib = std::get_if<Expr>(&xb[k].value);
        auto ca = ia ? ia->constantValue() : std::nullopt, cb = ib ? ib->constantValue() : std::nullopt;
        if (!ca || !cb)
          continue;
        auto [it, inserted] = map.emplace(*ca, *cb);
        if (!inserted && it->second != *cb)
          return false; // one file of the input used as two of the reference:
                        // no matching
      }
    }
  }
  return true;
}

void renumberFiles(std::vector<Node> &nodes, const FileMap &map) {
  for (Node &node : nodes) {
    if (node.isLoop()) {
      renumberFiles(node.loop().body, map);
      continue;
    }
    for (Param &p : node.event().params) {
      if (!isFileParam(p.name))
        continue;
      for (ElasticEntry &e : p.value.entries())
        if (const Expr *x = std::get_if<Expr>(&e.value))
          if (auto id = x->constantValue())
            if (auto it = map.find(*id); it != map.end())
              e.value = Expr(it->second);
    }
  }
}

bool onlyConstantFileIds(const std::vector<Node> &nodes) {
  for (const Node &node : nodes) {
    if (node.isLoop()) {
      if (!onlyConstantFileIds(node.loop().body))
        return false;
      continue;
    }
    for (const Param &p : node.event().params)
      if (isFileParam(p.name))
        for (const ElasticEntry &e : p.value.entries()) {
          const Expr *x = std::get_if<Expr>(&e.value);
          if (!x || !x->constantValue())
            return false;
        }
  }
  return true;
}

} // namespace

void alignFiles(std::vector<Trace> &inputs) {
  const Trace &ref = inputs.back();
  if (!onlyConstantFileIds(ref.body))
    return;
  for (size_t k = 0; k + 1 < inputs.size(); ++k) {
    Trace &t = inputs[k];
    FileMap map;
    if (t.files.size() != ref.files.size() || !onlyConstantFileIds(t.body) || !pairFiles(t.body, ref.body, map))
      continue;
    // Ids no call pairs keep their place among the unpaired ids of the
    // reference.
    std::set<int64_t> taken;
    bool oneToOne = true;
    for (const auto &[from, to] : map)
      oneToOne = oneToOne && taken.insert(to).second;
    if (!oneToOne)
      continue; // two files of this input used as one of the reference: left as they are
    std::vector<int64_t> freeIds;
    for (const FileEntry &f : ref.files)
      if (!taken.count(f.id))
        freeIds.push_back(f.id);
    size_t next = 0;
    std::vector<FileEntry> sorted = t.files;
    std::sort(sorted.begin(), sorted.end(), [](const FileEntry &a, const FileEntry &b) { return a.id < b.id; });
    for (const FileEntry &f : sorted)
      if (!map.count(f.id))
        map[f.id] = next < freeIds.size() ? freeIds[next++] : f.id;
    for (FileEntry &f : t.files)
      f.id = map.at(f.id);
    std::sort(t.files.begin(), t.files.end(), [](const FileEntry &a, const FileEntry &b) { return a.id < b.id; });
    renumberFiles(t.body, map);
  }
}

namespace {

bool sameShape(const FileEntry &a, const FileEntry &b) {
  if (a.id != b.id || a.name.size() != b.name.size())
    return false;
  for (size_t p = 0; p < a.name.size(); ++p)
    if (a.name[p].text != b.name[p].text || a.name[p].field.has_value() != b.name[p].field.has_value() ||
        a.name[p].width != b.name[p].width)
      return false;
  return true;
}

/// The ranks (up to 4096) of the calls that name file `id`.
void ranksNaming(const std::vector<Node> &nodes, int64_t id, int64_t n, std::set<int64_t> &out) {
  for (const Node &node : nodes) {
    if (node.isLoop()) {
      ranksNaming(node.loop().body, id, n, out);
      continue;
    }
    for (const Param &p : node.event().params) {
      if (!isFileParam(p.name))
        continue;
      for (const ElasticEntry &e : p.value.entries()) {
        const Expr *x = std::get_if<Expr>(&e.value);
        if (x && x->constantValue() == id)
          for (int64_t r = 0; r < std::min<int64_t>(n, 4096); ++r)
            if (out.size() < 4096 && e.ranks.contains(r) && node.ranks.contains(r))
              out.insert(r);
      }
    }
  }
}

} // namespace

std::vector<FileEntry> Extrapolator::fitFiles() const {
  std::vector<std::string> counts;
  for (const Trace *t : in_)
    counts.push_back(std::to_string(t->files.size()) + " files");
  for (const Trace *t : in_)
    if (t->files.size() != in_.back()->files.size())
      differ("the file table", "different numbers of files", counts);
  std::vector<FileEntry> out;
  for (size_t f = 0; f < in_.back()->files.size(); ++f) {
    const FileEntry &ref = in_.back()->files[f];
    std::string where = "file f" + std::to_string(ref.id) + " \"" + ref.formatStr() + "\"";
    std::vector<std::string> shown;
    for (const Trace *t : in_)
      shown.push_back(t->files[f].formatStr());
    // A small run can make a rank field constant (out_<rank/4> is out_0000
    // on 4 ranks): fit on the inputs that show the field, then check that
    // the format reproduces the literal names of the others.
    std::vector<size_t> fitted, literal;
    for (size_t k = 0; k < in_.size(); ++k) {
      const FileEntry &e = in_[k]->files[f];
      if (sameShape(e, ref))
        fitted.push_back(k);
      else if (e.id == ref.id)
        literal.push_back(k); // checked below against the fitted format
      else
        refuse(where, "the file name", shown, {"same name format at every rank count"});
    }
    std::vector<int64_t> ns;
    for (size_t k : fitted)
      ns.push_back(ns_[k]);
    FileEntry entry;
    entry.id = ref.id;
    for (size_t p = 0; p < ref.name.size(); ++p) {
      FileNamePart part = ref.name[p];
      if (part.field) {
        std::vector<const Expr *> fields;
        for (size_t k : fitted)
          fields.push_back(&*in_[k]->files[f].name[p].field);
        part.field = fitExprAt(ns, where, "the file name field", fields);
      }
      entry.name.push_back(std::move(part));
    }
    // The other inputs (a field that is a literal there, `group_0` on 4
    // ranks): the format must give their names, for every rank that names
    // the file there, at a few loop indices.
    const uint32_t depth = std::min<uint32_t>(3, entry.loopDepthUsed());
    for (size_t k : literal) {
      const FileEntry &e = in_[k]->files[f];
      if (e.loopDepthUsed() > depth)
        refuseNames(where, f, shown);
      std::set<int64_t> users;
      ranksNaming(in_[k]->body, e.id, ns_[k], users);
      const bool same = atFewLoopIndices(depth, [&](const std::vector<int64_t> &idx) {
        for (int64_t r : users)
          if (entry.nameFor(r, ns_[k], idx) != e.nameFor(r, ns_[k], idx))
            return false;
        return true;
      });
      if (!same)
        refuseNames(where, f, shown);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

/// The names of file f differ between inputs in a way no format explains.
/// When they differ in one directory component only, that is a per-run
/// directory (`/scratch/run4/out` vs `/scratch/run8/out`): say so, with
/// the --path-map that maps them to one.
[[noreturn]] void Extrapolator::refuseNames(const std::string &where, size_t f,
                                            const std::vector<std::string> &shown) const {
  auto components = [](const std::string &s) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t slash = s.find('/'); slash != std::string::npos; slash = s.find('/', start)) {
      parts.push_back(s.substr(start, slash - start));
      start = slash + 1;
    }
    parts.push_back(s.substr(start));
    return parts;
  };
  std::vector<std::vector<std::string>> parts;
  for (const Trace *t : in_)
    parts.push_back(components(t->files[f].formatStr()));
  std::optional<size_t> differing;
  bool one = true;
  for (size_t k = 0; k < parts.size() && one; ++k) {
    if (parts[k].size() != parts.front().size()) {
      one = false;
      break;
    }
    for (size_t c = 0; c < parts[k].size(); ++c)
      if (parts[k][c] != parts.front()[c]) {
        if (differing && *differing != c)
          one = false;
        differing = c;
      }
  }
  if (one && differing && *differing + 1 < parts.front().size()) {
    std::string msg = "cannot extrapolate the file name of " + where +
                      ": the inputs name it in different directories, a "
                      "per-run directory that differs "
                      "between the runs:";
    std::string maps;
    for (size_t k = 0; k < in_.size(); ++k) {
      std::string dir;
      for (size_t c = 0; c <= *differing; ++c)
        dir += (c ? "/" : "") + parts[k][c];
      msg += "\n  N=" + std::to_string(ns_[k]) + ": " + dir;
      std::string common;
      for (size_t c = 0; c < *differing; ++c)
        common += parts[k][c] + "/";
      maps += " --path-map " + dir + "=" + common + "RUN";
    }
    std::string common;
    for (size_t c = 0; c < *differing; ++c)
      common += parts.front()[c] + "/";
    msg += "\n  name them alike, e.g." + maps + "\n  (and run the replay with --path-map " + common +
           "RUN=DIR to choose its directory)";
    throw ExtrapError(msg);
  }
  refuse(where, "the file name", shown, {"one name format at every rank count"});
}

} // namespace sio::extrap::detail
