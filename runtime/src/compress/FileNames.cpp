#include "FileNames.h"

#include "ExprUtil.h"
#include "IdRemap.h"
#include "InterRank.h"
#include "RankFits.h"
#include "Structure.h"

#include "sio/trace/Fit.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace sio::rt::detail {

using namespace sio::trace;

namespace {

/// A piece of a file name: literal text that is all digits or has none, or
/// a field of an entry that already is a format (loop-index fields of a rank).
struct NameToken {
  enum class Kind { Text, Digits, Field } kind;
  std::string text;
  std::optional<Expr> field;
  uint32_t width = 0;
};

void appendText(std::vector<NameToken> &tokens, const std::string &text) {
  for (char c : text) {
    auto kind = std::isdigit(static_cast<unsigned char>(c)) ? NameToken::Kind::Digits : NameToken::Kind::Text;
    if (tokens.empty() || tokens.back().kind != kind)
      tokens.push_back({kind, {}, std::nullopt, 0});
    tokens.back().text += c;
  }
}

std::vector<NameToken> tokenize(const FileEntry &f) {
  std::vector<NameToken> tokens;
  for (const FileNamePart &p : f.name) {
    if (p.field)
      tokens.push_back({NameToken::Kind::Field, {}, p.field, p.width});
    else
      appendText(tokens, p.text);
  }
  return tokens;
}

/// The name with rank fields evaluated and loop-index fields kept symbolic:
/// two entries name the same files on `rank` exactly when these are equal.
std::optional<std::string> rankKey(const FileEntry &f, int64_t rank, int64_t nranks) {
  std::string key;
  for (const FileNamePart &p : f.name) {
    if (!p.field) {
      key += p.text;
      continue;
    }
    Expr field = bindRank(*p.field, rank);
    if (field.loopDepthUsed() > 0) {
      key += "\x01" + field.str() + ":" + std::to_string(p.width) + "\x01";
      continue;
    }
    FileEntry one{0, {FileNamePart{"", field, p.width}}};
    auto digits = one.nameFor(rank, nranks);
    if (!digits)
      return std::nullopt;
    key += *digits;
  }
  return key;
}

/// One format for the names ranks use (each a literal name, or a format in
/// loop indices built by formatLoopFileNames), if they differ only in
/// integer fields that are exact functions of rank (checked by regenerating
/// them rank by rank).
std::optional<FileEntry> fileFormat(const std::vector<std::pair<int64_t, const FileEntry *>> &names, int64_t nranks) {
  std::vector<std::vector<NameToken>> tokens;
  for (const auto &[r, entry] : names)
    tokens.push_back(tokenize(*entry));
  const auto &t0 = tokens.front();
  for (const auto &t : tokens) {
    if (t.size() != t0.size())
      return std::nullopt;
    for (size_t k = 0; k < t.size(); ++k)
      if (t[k].kind != t0[k].kind || (t[k].kind == NameToken::Kind::Text && t[k].text != t0[k].text) ||
          (t[k].kind == NameToken::Kind::Field && t[k].width != t0[k].width))
        return std::nullopt;
  }
  FileEntry entry;
  auto literal = [&](const std::string &text) {
    if (entry.name.empty() || entry.name.back().field)
      entry.name.push_back({});
    entry.name.back().text += text;
  };
  for (size_t k = 0; k < t0.size(); ++k) {
    if (t0[k].kind == NameToken::Kind::Field) {
      // Loop-index fields: each polynomial coefficient a function of rank
      // (`<i0>` everywhere, or `<100*rank + i0>` from `<300 + i0>` on rank 3).
      std::set<Monomial> monomials;
      for (const auto &t : tokens)
        for (const auto &[m, c] : t[k].field->terms())
          monomials.insert(m);
      Expr field;
      for (const Monomial &m : monomials) {
        std::vector<RankPoint> points;
        for (size_t i = 0; i < tokens.size(); ++i) {
          auto it = tokens[i][k].field->terms().find(m);
          points.push_back({names[i].first, it == tokens[i][k].field->terms().end() ? Rational(0) : it->second});
        }
        auto c = fitRankField(points, nranks);
        if (!c)
          return std::nullopt;
        field = field + *c * monomialExpr(m);
      }
      entry.name.push_back({"", field, t0[k].width});
      continue;
    }
    bool same = std::all_of(tokens.begin(), tokens.end(), [&](const auto &t) { return t[k].text == t0[k].text; });
    if (same) {
      literal(t0[k].text);
      continue;
    }
    std::vector<RankPoint> points;
    size_t width = t0[k].text.size();
    bool sameWidth = true, leadingZero = false;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string &digits = tokens[i][k].text;
      if (digits.size() > 18)
        return std::nullopt;
      sameWidth = sameWidth && digits.size() == width;
      leadingZero = leadingZero || (digits.size() > 1 && digits[0] == '0');
      points.push_back({names[i].first, Rational(std::stoll(digits))});
    }
    auto field = fitRankField(points, nranks);
    if (!field)
      return std::nullopt;
    FileNamePart part;
    part.field = *field;
    part.width = sameWidth && leadingZero ? static_cast<uint32_t>(width) : 0;
    entry.name.push_back(std::move(part));
  }
  for (const auto &[r, name] : names) {
    auto key = rankKey(entry, r, nranks);
    if (!key || key != rankKey(*name, r, nranks))
      return std::nullopt;
  }
  return entry;
}

/// A files table's content keys -> ids, holding 16 bytes an entry (hash,
/// position) instead of the keys: built when the first file-name format is
/// found, so a table of many distinct names that fit no format pays for
/// none; formats are few, so inserting into the sorted vector is cheap.
class FileContentIndex {
public:
  explicit FileContentIndex(const std::vector<FileEntry> &files) : files_(files) {}

  std::optional<int64_t> find(const std::string &key) {
    build();
    const size_t h = std::hash<std::string>()(key);
    for (auto it = lower(h); it != entries_.end() && it->first == h; ++it)
      if (contentKey(files_[it->second]) == key)
        return files_[it->second].id;
    return std::nullopt;
  }
  /// files_[position] was just appended.
  void add(size_t position) {
    build();
    const size_t h = std::hash<std::string>()(contentKey(files_[position]));
    entries_.insert(lower(h), {h, position});
  }

private:
  using Entry = std::pair<size_t, size_t>;
  void build() {
    if (built_)
      return;
    built_ = true;
    entries_.reserve(files_.size() + 16);
    for (size_t i = 0; i < files_.size(); ++i)
      entries_.emplace_back(std::hash<std::string>()(contentKey(files_[i])), i);
    std::sort(entries_.begin(), entries_.end());
  }
  std::vector<Entry>::iterator lower(size_t h) {
    return std::lower_bound(entries_.begin(), entries_.end(), h, [](const Entry &e, size_t x) { return e.first < x; });
  }
  const std::vector<FileEntry> &files_;
  bool built_ = false;
  std::vector<Entry> entries_;
};

/// Per rank, before the merge: a file parameter that takes a different file
/// in each iteration of the loops around it (its id is a function of the
/// loop indices) becomes one entry whose name has fields in those indices,
/// when the names differ only in integers that are affine in the indices
/// (`dir.3/file.3.<i0>`, `ckpt_<i0:04>/part_<i1>`).
class LoopFileNamer {
public:
  LoopFileNamer(Trace &t, int64_t rank) : t_(t), rank_(rank), index_(t.files) {
    for (size_t i = 0; i < t_.files.size(); ++i)
      position_.emplace(t_.files[i].id, i);
  }

  void visit(std::vector<Node> &nodes, std::vector<const Expr *> &counts) {
    for (Node &node : nodes) {
      if (node.isLoop()) {
        const Expr *n = std::get_if<Expr>(&detail::soleValue(node.loop().iterations));
        if (!n)
          continue;
        counts.push_back(n);
        visit(node.loop().body, counts);
        counts.pop_back();
        continue;
      }
      for (Param &p : node.event().params) {
        if (!isFileParam(p.name) || p.value.entries().size() != 1)
          continue;
        const Expr *id = std::get_if<Expr>(&p.value.entries()[0].value);
        if (!id || id->constantValue() || id->loopDepthUsed() == 0)
          continue;
        if (auto format = formatFor(*id, counts))
          p.value.entries()[0].value = Expr(*format);
      }
    }
  }

private:
  static constexpr size_t kMaxSamples = size_t(1) << 20;

  const FileEntry *file(int64_t id) const {
    auto it = position_.find(id);
    return it == position_.end() ? nullptr : &t_.files[it->second];
  }

  // Memory: a loop over N distinct files (the table grows with them, and
  // SIO_MEMORY_CAP holds through finalize) keeps 16 bytes per file here plus
  // one integer per varying digit group; names are tokenized one at a time.
  std::optional<int64_t> formatFor(const Expr &id, const std::vector<const Expr *> &counts) {
    // Every index tuple of the loops around the call, outermost first
    // (`depth` integers per sample, flattened).
    const size_t depth = counts.size();
    std::vector<int64_t> tuples;
    std::vector<const FileEntry *> files;
    std::vector<int64_t> idx;
    bool ok = true;
    std::function<void(size_t)> walk = [&](size_t d) {
      if (!ok)
        return;
      if (d == depth) {
        auto v = id.evaluate({rank_, t_.header.nranks, idx});
        const FileEntry *f = v ? file(*v) : nullptr;
        if (!f || f->loopDepthUsed() > 0 || files.size() >= kMaxSamples) {
          ok = false;
          return;
        }
        tuples.insert(tuples.end(), idx.begin(), idx.end());
        files.push_back(f);
        return;
      }
      auto n = counts[d]->evaluate({rank_, t_.header.nranks, idx});
      if (!n) {
        ok = false;
        return;
      }
      for (int64_t i = 0; i < *n && ok; ++i) {
        idx.push_back(i);
        walk(d + 1);
        idx.pop_back();
      }
    };
    walk(0);
    if (!ok || files.empty())
      return std::nullopt;
    auto tuple = [&](size_t s) { return std::span<const int64_t>(tuples.data() + s * depth, depth); };
    // The names must differ only in digit groups: same tokens, same text
    // between them. `varies[k]`: token k is not the same in every name.
    const std::vector<NameToken> t0 = tokenize(*files.front());
    std::vector<char> varies(t0.size(), 0);
    for (size_t s = 1; s < files.size(); ++s) {
      std::vector<NameToken> t = tokenize(*files[s]);
      if (t.size() != t0.size())
        return std::nullopt;
      for (size_t k = 0; k < t.size(); ++k) {
        if (t[k].kind != t0[k].kind || (t[k].kind != NameToken::Kind::Digits && t[k].text != t0[k].text))
          return std::nullopt;
        if (t[k].text != t0[k].text)
          varies[k] = 1;
      }
    }
    // The varying digit groups' values, sample by sample.
    std::vector<size_t> varying;
    for (size_t k = 0; k < t0.size(); ++k)
      if (varies[k])
        varying.push_back(k);
    std::vector<int64_t> ys(varying.size() * files.size());
    std::vector<char> sameWidth(varying.size(), 1), leadingZero(varying.size(), 0);
    for (size_t s = 0; s < files.size(); ++s) {
      std::vector<NameToken> t = s == 0 ? t0 : tokenize(*files[s]);
      for (size_t v = 0; v < varying.size(); ++v) {
        const std::string &digits = t[varying[v]].text;
        if (digits.size() > 18)
          return std::nullopt;
        sameWidth[v] = sameWidth[v] && digits.size() == t0[varying[v]].text.size();
        leadingZero[v] = leadingZero[v] || (digits.size() > 1 && digits[0] == '0');
        ys[v * files.size() + s] = std::stoll(digits);
      }
    }
    std::vector<Expr> variables;
    for (size_t d = 0; d < depth; ++d)
      variables.push_back(Expr::loopIndex(static_cast<uint32_t>(d)));
    FileEntry entry;
    auto literal = [&](const std::string &text) {
      if (entry.name.empty() || entry.name.back().field)
        entry.name.push_back({});
      entry.name.back().text += text;
    };
    for (size_t k = 0, v = 0; k < t0.size(); ++k) {
      if (!varies[k]) {
        literal(t0[k].text);
        continue;
      }
      const int64_t *y = ys.data() + v * files.size();
      // Fit on a few samples (the first ones pin every index), check on all.
      std::vector<std::vector<Rational>> xs;
      std::vector<Rational> fitYs;
      for (size_t s = 0; s < files.size(); s += std::max<size_t>(1, files.size() / 64)) {
        xs.emplace_back(tuple(s).begin(), tuple(s).end());
        fitYs.push_back(Rational(y[s]));
      }
      for (size_t s = 0; s < std::min<size_t>(files.size(), 2 * depth + 2); ++s) {
        xs.emplace_back(tuple(s).begin(), tuple(s).end());
        fitYs.push_back(Rational(y[s]));
      }
      auto field = sio::trace::fitAffineExpr(variables, xs, fitYs);
      if (!field)
        return std::nullopt;
      size_t width = t0[k].text.size();
      entry.name.push_back({"", *field, sameWidth[v] && leadingZero[v] ? static_cast<uint32_t>(width) : 0});
      ++v;
    }
    for (size_t s = 0; s < files.size(); ++s) {
      std::string expected;
      for (const FileNamePart &part : files[s]->name)
        expected += part.text;
      if (entry.nameFor(rank_, t_.header.nranks, tuple(s)) != expected)
        return std::nullopt;
    }
    if (auto known = index_.find(contentKey(entry)))
      return *known;
    int64_t next = 0;
    for (const FileEntry &f : t_.files)
      next = std::max(next, f.id + 1);
    entry.id = next;
    position_.emplace(next, t_.files.size());
    t_.files.push_back(std::move(entry));
    index_.add(t_.files.size() - 1);
    return next;
  }

  Trace &t_;
  int64_t rank_;
  std::unordered_map<int64_t, size_t> position_; ///< file id -> index in t_.files
  FileContentIndex index_;
};

struct Finalizer {
  Trace &trace;
  FileContentIndex fileIndex;

  explicit Finalizer(Trace &t) : trace(t), fileIndex(t.files) {}

  void unifyFileNames(ElasticValue &value) {
    if (value.entries().size() < 2)
      return;
    std::vector<std::pair<int64_t, const FileEntry *>> names;
    for (const ElasticEntry &e : value.entries()) {
      const Expr *x = std::get_if<Expr>(&e.value);
      auto id = x ? x->constantValue() : std::nullopt;
      const FileEntry *f = id ? trace.file(*id) : nullptr;
      if (!f)
        return;
      for (int64_t r : e.ranks.ranks())
        names.emplace_back(r, f);
    }
    std::sort(names.begin(), names.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    auto format = fileFormat(names, trace.header.nranks);
    if (!format)
      return;
    std::optional<int64_t> id = fileIndex.find(contentKey(*format));
    if (!id) {
      int64_t next = 0;
      for (const FileEntry &f : trace.files)
        next = std::max(next, f.id + 1);
      format->id = next;
      id = next;
      trace.files.push_back(std::move(*format));
      fileIndex.add(trace.files.size() - 1);
    }
    value = ElasticValue(Value(Expr(*id)), value.ranks());
  }

  void visit(std::vector<Node> &nodes) {
    for (Node &node : nodes) {
      if (node.isLoop()) {
        fitAcrossRanks(node.loop().iterations, trace.header.nranks);
        sortEntries(node.loop().iterations);
        visit(node.loop().body);
        continue;
      }
      for (Param &p : node.event().params) {
        auto table = tableOfParam(p.name);
        if (table == TableKind::Files)
          unifyFileNames(p.value);
        else if (!table)
          fitAcrossRanks(p.value, trace.header.nranks); // table ids stay explicit
        sortEntries(p.value);
      }
    }
  }

  static void sortEntries(ElasticValue &value) {
    std::sort(value.entries().begin(), value.entries().end(), [](const ElasticEntry &x, const ElasticEntry &y) {
      return x.ranks.first().value_or(-1) < y.ranks.first().value_or(-1);
    });
  }

  /// Drops file entries no parameter refers to any more and renumbers the
  /// rest 0.. (only when every reference is a constant id).
  void compactFiles() {
    std::set<int64_t> used;
    bool allConstant = true;
    std::function<void(const std::vector<Node> &)> collect = [&](const std::vector<Node> &nodes) {
      for (const Node &node : nodes) {
        if (node.isLoop()) {
          collect(node.loop().body);
          continue;
        }
        for (const Param &p : node.event().params)
          if (tableOfParam(p.name) == TableKind::Files)
            for (const ElasticEntry &e : p.value.entries()) {
              const Expr *x = std::get_if<Expr>(&e.value);
              auto id = x ? x->constantValue() : std::nullopt;
              if (id)
                used.insert(*id);
              else
                allConstant = false;
            }
      }
    };
    collect(trace.body);
    if (!allConstant)
      return;
    std::vector<FileEntry> kept;
    Remaps remaps;
    std::sort(trace.files.begin(), trace.files.end(),
              [](const FileEntry &x, const FileEntry &y) { return x.id < y.id; });
    for (FileEntry &f : trace.files)
      if (used.count(f.id)) {
        remaps.files[f.id] = static_cast<int64_t>(kept.size());
        f.id = static_cast<int64_t>(kept.size());
        kept.push_back(std::move(f));
      }
    trace.files = std::move(kept);
    remapBody(trace.body, remaps);
  }
};

} // namespace

void fitMergedValues(Trace &t) { Finalizer(t).visit(t.body); }

void compactFileTable(Trace &t) { Finalizer(t).compactFiles(); }

void formatFileNamesInLoops(Trace &t, int64_t rank) {
  LoopFileNamer namer(t, rank);
  std::vector<const Expr *> counts;
  namer.visit(t.body, counts);
  Finalizer(t).compactFiles();
}

} // namespace sio::rt::detail
