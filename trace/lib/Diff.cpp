// Structural trace comparison. Two traces are equal when every rank performs
// the same operations with the same parameters in the same loop structure;
// how a value happens to be partitioned into (ranks, value) entries, and
// whether it is written as a function of nranks or bound to a number, does
// not matter.
#include "sio/trace/Diff.h"

#include <sstream>

namespace sio::trace {

namespace {

/// Above this, elastic values whose entries differ are not expanded per rank.
constexpr int64_t kMaxPerRankCompare = 4096;

bool sameRanks(const RankList &a, const RankList &b) {
  if (a == b)
    return true;
  if (a.size() != b.size())
    return false;
  try {
    return a.subtract(b).empty();
  } catch (const std::length_error &) {
    return false; // too large to compare as sets; the block forms differ
  }
}

Expr substituteRank(const Expr &e, int64_t rank);

/// The atom as an Expr, with `rank` replaced by a number inside it.
Expr atomExpr(const Atom &a, int64_t rank) {
  switch (a.kind) {
  case Atom::Kind::Rank:
    return Expr(rank);
  case Atom::Kind::NRanks:
    return Expr::nranks();
  case Atom::Kind::Loop:
    return Expr::loopIndex(a.loopDepth);
  case Atom::Kind::Mod:
    return Expr::mod(substituteRank(*a.lhs, rank), substituteRank(*a.rhs, rank));
  case Atom::Kind::Table:
    return Expr::table(*a.table, substituteRank(*a.rhs, rank));
  }
  return Expr();
}

/// `e` with the atom `rank` replaced by a number, so that two traces that
/// partition the same per-rank function differently compare equal. Throws
/// std::invalid_argument on an absurd exponent (only a hostile trace has one).
Expr substituteRank(const Expr &e, int64_t rank) {
  if (!e.dependsOnRank())
    return e;
  Expr out;
  for (const auto &[mono, coef] : e.terms()) {
    Expr term(coef);
    for (const auto &[atom, exp] : mono) {
      if (exp > 64 || exp < -64)
        throw std::invalid_argument("exponent out of range");
      Expr base = atomExpr(atom, rank);
      for (int32_t k = 0; k < (exp < 0 ? -exp : exp); ++k)
        term = exp < 0 ? term / base : term * base;
    }
    out = out + term;
  }
  return out;
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string valueText(const Value &v) {
  if (const auto *s = std::get_if<std::string>(&v))
    return quote(*s);
  return std::get<Expr>(v).str();
}

std::string elasticText(const ElasticValue &ev) {
  if (ev.entries().size() == 1)
    return valueText(ev.entries()[0].value);
  std::string out = "{";
  for (size_t i = 0; i < ev.entries().size(); ++i) {
    if (i)
      out += "; ";
    out += "ranks " + ev.entries()[i].ranks.str() + ": " + valueText(ev.entries()[i].value);
  }
  return out + "}";
}

std::string timingText(const TimingStats &s) {
  std::ostringstream os;
  os << "count " << s.count() << " min " << s.min() << "ns max " << s.max() << "ns mean " << s.mean() << "ns";
  return os.str();
}

class Differ {
public:
  Differ(const Trace &a, const Trace &b, const DiffOptions &options, std::vector<Difference> *races)
      : a_(a), b_(b), opts_(options), races_(races) {}

  std::vector<Difference> run() {
    if (a_.header.nranks != b_.header.nranks)
      add("header", "nranks: " + std::to_string(a_.header.nranks) + " vs " + std::to_string(b_.header.nranks));
    compareFiles();
    compareObjects("datatypes", a_.datatypes, b_.datatypes);
    compareObjects("comms", a_.comms, b_.comms);
    compareObjects("infos", a_.infos, b_.infos);
    compareBody(a_.body, b_.body, "body");
    return std::move(out_);
  }

private:
  bool full() const { return opts_.maxDifferences && out_.size() >= opts_.maxDifferences; }
  void add(std::string where, std::string what) {
    if (!full())
      out_.push_back({std::move(where), std::move(what)});
  }

  Value bindA(const Value &v) const { return bind(v, a_.header.nranks); }
  Value bindB(const Value &v) const { return bind(v, b_.header.nranks); }
  static Value bind(const Value &v, int64_t nranks) {
    if (const Expr *e = std::get_if<Expr>(&v))
      return e->bindNRanks(nranks);
    return v;
  }

  void compareFiles() {
    if (a_.files.size() != b_.files.size())
      add("files", std::to_string(a_.files.size()) + " entries vs " + std::to_string(b_.files.size()));
    for (size_t i = 0; i < std::min(a_.files.size(), b_.files.size()) && !full(); ++i) {
      const FileEntry &fa = a_.files[i], &fb = b_.files[i];
      std::string where = "files[" + std::to_string(i) + "]";
      if (fa.id != fb.id)
        add(where, "id " + std::to_string(fa.id) + " vs " + std::to_string(fb.id));
      std::string na = boundFormat(fa, a_.header.nranks), nb = boundFormat(fb, b_.header.nranks);
      if (na != nb)
        add(where + " (f" + std::to_string(fa.id) + ")", "name " + quote(na) + " vs " + quote(nb));
    }
  }

  /// The name format with nranks bound, so "out_<rank/(nranks/4)>" at 16
  /// ranks reads like "out_<rank/4>".
  static std::string boundFormat(FileEntry f, int64_t nranks) {
    for (FileNamePart &p : f.name)
      if (p.field)
        p.field = p.field->bindNRanks(nranks);
    return f.formatStr();
  }

  void compareObjects(const std::string &table, const std::vector<ObjectEntry> &xa,
                      const std::vector<ObjectEntry> &xb) {
    if (xa.size() != xb.size())
      add(table, std::to_string(xa.size()) + " entries vs " + std::to_string(xb.size()));
    for (size_t i = 0; i < std::min(xa.size(), xb.size()) && !full(); ++i) {
      const ObjectEntry &ea = xa[i], &eb = xb[i];
      std::string where = table + "[" + std::to_string(i) + "]";
      if (ea.id != eb.id)
        add(where, "id " + std::to_string(ea.id) + " vs " + std::to_string(eb.id));
      if (ea.kind != eb.kind)
        add(where, "kind " + ea.kind + " vs " + eb.kind);
      if (ea.name != eb.name)
        add(where, "name " + quote(ea.name) + " vs " + quote(eb.name));
      if (ea.strings != eb.strings)
        add(where, "strings differ");
      if (ea.serial != eb.serial)
        add(where, "serial " + std::to_string(ea.serial) + " vs " + std::to_string(eb.serial));
      if (!opts_.ignoreSites && ea.site != eb.site)
        add(where, "site " + formatId(ea.site) + " vs " + formatId(eb.site));
      auto boundFields = [](const ObjectEntry &e, int64_t nranks) {
        std::map<std::string, std::vector<Expr>> f = e.fields;
        for (auto &[name, values] : f)
          for (Expr &v : values)
            v = v.bindNRanks(nranks);
        return f;
      };
      auto fa = boundFields(ea, a_.header.nranks), fb = boundFields(eb, b_.header.nranks);
      if (fa != fb) {
        for (const auto &[name, values] : fa) {
          auto it = fb.find(name);
          if (it == fb.end())
            add(where, "field " + name + " only in the first trace");
          else if (it->second != values && !sameFieldPerRank(values, it->second))
            add(where, "field " + name + " differs");
        }
        for (const auto &[name, values] : fb)
          if (!fa.count(name))
            add(where, "field " + name + " only in the second trace");
      }
    }
  }

  // A field is a formula of rank too: two forms of one per-rank function
  // (the runtime's table `[43, 43, 42, ...][rank]` and sio-extrap's
  // `[43, 43, 42][rank % 3]`) are the same field.
  bool sameFieldPerRank(const std::vector<Expr> &x, const std::vector<Expr> &y) const {
    const int64_t n = a_.header.nranks;
    if (x.size() != y.size() || n != b_.header.nranks || n > kMaxPerRankCompare)
      return false;
    try {
      for (size_t j = 0; j < x.size(); ++j)
        if (x[j] != y[j])
          for (int64_t r = 0; r < n; ++r)
            if (substituteRank(x[j], r) != substituteRank(y[j], r))
              return false;
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &) {
      return false;
    }
    return true;
  }

  std::string location(uint64_t site) const {
    if (!site)
      return "";
    const SiteInfo *s = a_.site(site);
    if (!s)
      s = b_.site(site);
    if (!s)
      return " (site " + formatId(site) + ")";
    return " (" + s->file + ":" + std::to_string(s->line) + ":" + std::to_string(s->column) + ")";
  }
  std::string loopLocation(uint64_t id) const {
    if (!id)
      return "";
    const LoopInfo *l = a_.loopInfo(id);
    if (!l)
      l = b_.loopInfo(id);
    if (!l)
      return " (loop " + formatId(id) + ")";
    return " (" + l->file + ":" + std::to_string(l->line) + ":" + std::to_string(l->column) + ")";
  }
  std::string describe(const Node &n) const {
    if (n.isEvent())
      return n.event().op + location(n.event().site);
    return "loop" + loopLocation(n.loop().id);
  }

  /// Equal as functions of rank (and loop indices) over the node's ranks.
  bool elasticEqual(const ElasticValue &x, const ElasticValue &y) const {
    const auto &ex = x.entries(), &ey = y.entries();
    // A uniform value covers its node's ranks, which are compared on their own.
    if (ex.size() == 1 && ey.size() == 1 && bindA(ex[0].value) == bindB(ey[0].value))
      return true;
    if (ex.size() == ey.size()) {
      bool same = true;
      for (const ElasticEntry &e : ex) {
        bool found = false;
        for (const ElasticEntry &f : ey)
          if (sameRanks(e.ranks, f.ranks)) {
            found = bindA(e.value) == bindB(f.value);
            break;
          }
        if (!found) {
          same = false;
          break;
        }
      }
      if (same)
        return true;
    }
    // Different partitions may still describe one per-rank function.
    RankList rx = x.ranks(), ry = y.ranks();
    if (!sameRanks(rx, ry) || std::max(a_.header.nranks, b_.header.nranks) > kMaxPerRankCompare)
      return false;
    try {
      for (int64_t r : rx.ranks()) {
        const Value *vx = x.valueFor(r), *vy = y.valueFor(r);
        if (!vx || !vy)
          return false;
        Value bx = bindA(*vx), by = bindB(*vy);
        if (bx.index() != by.index())
          return false;
        if (const auto *s = std::get_if<std::string>(&bx)) {
          if (*s != std::get<std::string>(by))
            return false;
        } else if (substituteRank(std::get<Expr>(bx), r) != substituteRank(std::get<Expr>(by), r)) {
          return false;
        }
      }
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &) {
      return false; // overflow or an expression that cannot be rebuilt
    }
    return true;
  }

  void compareBody(const std::vector<Node> &ba, const std::vector<Node> &bb, const std::string &path) {
    size_t i = 0, j = 0;
    while (i < ba.size() && j < bb.size() && !full()) {
      const size_t ie = racingRunEnd(ba, i), je = racingRunEnd(bb, j);
      if (ie - i > 1 || je - j > 1) {
        std::string range = std::to_string(i) + (ie - i > 1 ? "-" + std::to_string(ie - 1) : "");
        compareRace(ba, i, ie, bb, j, je, path + "[" + range + "]");
      } else {
        compareNode(ba[i], bb[j], path + "[" + std::to_string(i) + "]");
      }
      i = ie;
      j = je;
    }
    if ((i < ba.size() || j < bb.size()) && !full()) {
      const bool firstLonger = i < ba.size();
      const Node &extra = firstLonger ? ba[i] : bb[j];
      add(path + "[" + std::to_string(i) + "]", std::to_string(ba.size()) + " nodes vs " + std::to_string(bb.size()) +
                                                    "; first extra node (in the " + (firstLonger ? "first" : "second") +
                                                    " trace): " + describe(extra));
    }
  }

  /// The `error` parameter, or null for a call that succeeded.
  static const Param *errorOf(const Event &e) { return e.param("error"); }

  /// Same call apart from `error`: operation, layer, site, other parameters.
  static bool sameCallButError(const Event &x, const Event &y) {
    if (x.op != y.op || x.layer != y.layer || x.inner != y.inner || x.site != y.site)
      return false;
    auto others = [](const Event &e) {
      std::vector<const Param *> out;
      for (const Param &p : e.params)
        if (p.name != "error")
          out.push_back(&p);
      return out;
    };
    auto px = others(x), py = others(y);
    if (px.size() != py.size())
      return false;
    // Each node's values cover its own ranks: compare uniform values alone.
    for (size_t k = 0; k < px.size(); ++k)
      if (px[k]->name != py[k]->name || !px[k]->value.isUniform() || !py[k]->value.isUniform() ||
          px[k]->value.entries()[0].value != py[k]->value.entries()[0].value)
        return false;
    return true;
  }

  /// One past the run of racing inner calls (see diffTraces) starting at
  /// body[i], or i + 1 when body[i] starts none. Each member's error, if it
  /// has one, is one value for all its ranks.
  static size_t racingRunEnd(const std::vector<Node> &body, size_t i) {
    auto candidate = [](const Node &n) {
      if (!n.isEvent() || !n.event().inner)
        return false;
      const Param *err = errorOf(n.event());
      return !err || err->value.isUniform();
    };
    if (!candidate(body[i]))
      return i + 1;
    RankList seen = body[i].ranks;
    size_t end = i + 1;
    try {
      for (; end < body.size(); ++end) {
        const Node &n = body[end];
        if (!candidate(n) || !sameCallButError(body[i].event(), n.event()) || !seen.intersect(n.ranks).empty())
          break;
        seen = seen.unite(n.ranks);
      }
    } catch (const std::length_error &) {
      // rank sets too large to combine: compare node by node
    }
    return end;
  }

  /// Outcome ("succeeded" or the error) -> the ranks that had it, over a run.
  std::map<std::string, RankList> outcomes(const std::vector<Node> &body, size_t begin, size_t end) const {
    std::map<std::string, RankList> out;
    for (size_t k = begin; k < end; ++k) {
      const Event &e = body[k].event();
      std::string key = "succeeded";
      if (const Param *err = errorOf(e)) {
        const Value &v = err->value.entries()[0].value;
        key = "error=" + valueText(v);
        if (const Expr *code = std::get_if<Expr>(&v))
          if (std::optional<int64_t> c = code->constantValue())
            if (std::optional<std::string> name = errorName(e.layer, *c))
              key += " " + *name;
      }
      auto [it, fresh] = out.try_emplace(key, body[k].ranks);
      if (!fresh)
        it->second = it->second.unite(body[k].ranks);
    }
    return out;
  }

  /// "succeeded on ranks 0; error=2 ENOENT on ranks 1-3"
  static std::string outcomeText(const std::map<std::string, RankList> &o) {
    std::string s;
    if (auto it = o.find("succeeded"); it != o.end())
      s = "succeeded on ranks " + it->second.str();
    for (const auto &[key, ranks] : o)
      if (key != "succeeded")
        s += (s.empty() ? "" : "; ") + key + " on ranks " + ranks.str();
    return s;
  }

  void compareRace(const std::vector<Node> &ba, size_t i, size_t ie, const std::vector<Node> &bb, size_t j, size_t je,
                   const std::string &path) {
    const std::string where = path + " " + describe(ba[i]) + " (racing inner calls)";
    Event ea = ba[i].event(), eb = bb[j].event();
    std::erase_if(ea.params, [](const Param &p) { return p.name == "error"; });
    std::erase_if(eb.params, [](const Param &p) { return p.name == "error"; });
    compareEvent(ea, eb, where);
    std::map<std::string, RankList> oa, ob;
    try {
      oa = outcomes(ba, i, ie);
      ob = outcomes(bb, j, je);
    } catch (const std::length_error &) {
      add(where, "rank sets too large to compare");
      return;
    }
    RankList ra, rb;
    bool sameCounts = oa.size() == ob.size(), sameWinners = sameCounts;
    for (const auto &[key, ranks] : oa) {
      auto it = ob.find(key);
      sameCounts = sameCounts && it != ob.end() && it->second.size() == ranks.size();
      sameWinners = sameWinners && it != ob.end() && sameRanks(it->second, ranks);
      ra = ra.unite(ranks);
    }
    for (const auto &[key, ranks] : ob)
      rb = rb.unite(ranks);
    if (!sameRanks(ra, rb))
      add(where, "ranks " + ra.str() + " vs " + rb.str());
    if (!sameCounts || (!sameWinners && opts_.exactRaceWinners))
      add(where, outcomeText(oa) + " vs " + outcomeText(ob));
    else if (!sameWinners && races_)
      races_->push_back({where, outcomeText(oa) + " vs " + outcomeText(ob)});
  }

  void compareNode(const Node &na, const Node &nb, const std::string &path) {
    const std::string where = path + " " + describe(na);
    if (na.isEvent() != nb.isEvent()) {
      add(where, (na.isEvent() ? "event " + na.event().op : std::string("loop")) + " vs " +
                     (nb.isEvent() ? "event " + nb.event().op : std::string("loop")));
      return;
    }
    if (!sameRanks(na.ranks, nb.ranks))
      add(where, "ranks " + na.ranks.str() + " vs " + nb.ranks.str());
    if (na.isEvent())
      compareEvent(na.event(), nb.event(), where);
    else
      compareLoop(na.loop(), nb.loop(), path, where);
  }

  void compareEvent(const Event &ea, const Event &eb, const std::string &where) {
    if (ea.op != eb.op) {
      add(where, "operation " + ea.op + " vs " + eb.op);
      return;
    }
    if (ea.layer != eb.layer)
      add(where, "layer " + std::string(layerName(ea.layer)) + " vs " + std::string(layerName(eb.layer)));
    if (ea.inner != eb.inner)
      add(where, std::string("inner ") + (ea.inner ? "true" : "false") + " vs " + (eb.inner ? "true" : "false"));
    if (!opts_.ignoreSites && ea.site != eb.site)
      add(where, "site " + formatId(ea.site) + " vs " + formatId(eb.site));
    bool sameNames = ea.params.size() == eb.params.size();
    for (size_t i = 0; sameNames && i < ea.params.size(); ++i)
      sameNames = ea.params[i].name == eb.params[i].name;
    if (!sameNames) {
      auto names = [](const Event &e) {
        std::string s = "(";
        for (size_t i = 0; i < e.params.size(); ++i)
          s += (i ? ", " : "") + e.params[i].name;
        return s + ")";
      };
      add(where, "parameters " + names(ea) + " vs " + names(eb));
    }
    // Compare what both have, by name, even when the lists differ.
    for (const Param &pa : ea.params) {
      const Param *pb = eb.param(pa.name);
      if (pb && !elasticEqual(pa.value, pb->value))
        add(where, "param " + pa.name + ": " + elasticText(pa.value) + " vs " + elasticText(pb->value));
    }
    if (opts_.compareTiming) {
      if (!(ea.compute == eb.compute))
        add(where, "compute timing: " + timingText(ea.compute) + " vs " + timingText(eb.compute));
      if (!(ea.duration == eb.duration))
        add(where, "duration timing: " + timingText(ea.duration) + " vs " + timingText(eb.duration));
    }
  }

  void compareLoop(const Loop &la, const Loop &lb, const std::string &path, const std::string &where) {
    if (!opts_.ignoreSites && la.id != lb.id)
      add(where, "loop id " + formatId(la.id) + " vs " + formatId(lb.id));
    if (!elasticEqual(la.iterations, lb.iterations))
      add(where, "iterations: " + elasticText(la.iterations) + " vs " + elasticText(lb.iterations));
    std::string iters = la.iterations.entries().size() == 1 ? valueText(la.iterations.entries()[0].value)
                                                             : std::string("elastic");
    compareBody(la.body, lb.body, path + ".loop(" + iters + " iterations).body");
  }

  const Trace &a_;
  const Trace &b_;
  const DiffOptions &opts_;
  std::vector<Difference> *races_;
  std::vector<Difference> out_;
};

} // namespace

std::vector<Difference> diffTraces(const Trace &a, const Trace &b, const DiffOptions &options,
                                   std::vector<Difference> *races) {
  return Differ(a, b, options, races).run();
}

} // namespace sio::trace
