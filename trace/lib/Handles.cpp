#include "sio/trace/Handles.h"

#include "sio/trace/Printable.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace sio::trace {

namespace {

constexpr std::string_view kKinds[] = {"fh", "fd", "stream", "dir"};
/// Event visits before the lifetime walk gives up: loops are walked twice
/// (a close in the body then meets the handle it closed), so nested loops
/// would otherwise cost 2^depth.
constexpr uint64_t kMaxVisits = 200'000;

bool isClose(std::string_view op) {
  return op == "close" || op == "fclose" || op == "closedir" || op == "MPI_File_close";
}

/// The handle parameter of an event: its layer's (a stdio call may also
/// carry the descriptor it releases), else the first of kKinds it has.
const Param *handleParam(const Event &ev, std::string_view &kind) {
  if (ev.layer == Layer::STDIO)
    if (const Param *p = ev.param("stream")) {
      kind = "stream";
      return p;
    }
  for (std::string_view k : kKinds)
    if (const Param *p = ev.param(k)) {
      kind = k;
      return p;
    }
  return nullptr;
}

/// What an event does to one handle parameter.
enum class Effect { Use, Open, Close };
struct Touch {
  std::string_view kind;
  const Param *param;
  Effect effect;
};

bool isDuplicate(std::string_view op) { return op == "dup" || op == "dup2"; }

/// The handles an event touches, in order. Calls that make one handle from
/// another (dup, dup2, fdopen, freopen) touch several; -1 codes (a handle
/// the trace does not know) are skipped by the walk.
std::vector<Touch> touches(const Event &ev) {
  std::vector<Touch> out;
  auto add = [&](std::string_view kind, const char *name, Effect effect) {
    if (const Param *p = ev.param(name))
      out.push_back({kind, p, effect});
  };
  if (isDuplicate(ev.op)) {
    add("fd", "oldfd", Effect::Use);
    add("fd", "newfd", Effect::Close); // dup2's target: its old file
    add("fd", "fd", Effect::Open);
    return out;
  }
  if (ev.op == "fdopen") {
    add("fd", "fd", Effect::Use);
    add("stream", "stream", Effect::Open);
    return out;
  }
  if (ev.op == "freopen") {
    add("stream", "oldstream", Effect::Close);
    add("stream", "stream", Effect::Open);
    return out;
  }
  std::string_view kind;
  if (const Param *h = handleParam(ev, kind)) {
    const bool closes = isClose(ev.op);
    out.push_back({kind, h, ev.param("file") ? Effect::Open : closes ? Effect::Close : Effect::Use});
    if (closes && kind == "stream")
      add("fd", "fd", Effect::Close); // fclose of an fdopen'd stream releases its descriptor
  }
  return out;
}

std::optional<int64_t> constantOf(const Value &v) {
  if (const Expr *e = std::get_if<Expr>(&v))
    return e->constantValue();
  return std::nullopt;
}

struct GiveUp {};

class Checker {
public:
  explicit Checker(const Trace &t) : t_(t) {}

  std::optional<HandleProblem> run() {
    try {
      ranges(t_.body, "/body");
      if (!problem_ && t_.header.complete) {
        opens(t_.body);
        walk(t_.body, "/body", "");
      }
    } catch (const GiveUp &) {
    } catch (const std::exception &) {
      // A rank-list operation too large to carry out: no verdict.
    }
    return problem_;
  }

private:
  using Key = std::pair<std::string_view, int64_t>;
  struct State {
    RankList open, closed;
    std::string closedAt; ///< the last close
  };

  [[noreturn]] void report(const std::string &path, const Event &ev, std::string_view kind, int64_t code,
                           const RankList &ranks, const std::string &what) {
    std::string m = echoValue(ev.op) + "(" + std::string(kind) + "=" + std::to_string(code) + ")";
    if (const SiteInfo *s = t_.site(ev.site))
      m += " at " + echoValue(s->file) + ":" + std::to_string(s->line) + ":" + std::to_string(s->column);
    else if (ev.site)
      m += " at site " + formatId(ev.site);
    m += " on ranks " + echoValue(ranks.str()) + ": " + what;
    problem_ = HandleProblem{path, m};
    throw GiveUp{};
  }

  /// Codes the runtime could never have written (static pass, every node).
  void ranges(const std::vector<Node> &body, const std::string &path) {
    for (size_t i = 0; i < body.size(); ++i) {
      const std::string p = path + "/" + std::to_string(i);
      if (body[i].isLoop()) {
        ranges(body[i].loop().body, p + "/body");
        continue;
      }
      const Event &ev = body[i].event();
      for (const Touch &t : touches(ev))
        for (const ElasticEntry &e : t.param->value.entries()) {
          auto c = constantOf(e.value);
          if (!c)
            continue;
          if (*c > kMaxHandleCode)
            report(p, ev, t.kind, *c, e.ranks,
                   "handle code out of range (handles are numbered from 0 per rank; at most " +
                       std::to_string(kMaxHandleCode) + ")");
          // -1: a failed open, or a handle the trace does not know (made by
          // dup, fdopen or freopen from one); nothing else is negative. A
          // use of MPI_FILE_NULL may succeed: MPICH answers
          // MPI_File_get_position on it with MPI_SUCCESS.
          const bool fileNull = *c == -1 && t.kind == "fh";
          if (*c < 0 && (*c != -1 || (t.effect == Effect::Use && !isDuplicate(ev.op) && !fileNull)) &&
              !ev.param("error"))
            report(p, ev, t.kind, *c, e.ranks, "negative handle code");
        }
    }
  }

  /// The kinds of handle the trace opens: only those are followed.
  void opens(const std::vector<Node> &body) {
    for (const Node &n : body) {
      if (n.isLoop()) {
        opens(n.loop().body);
        continue;
      }
      for (const Touch &t : touches(n.event()))
        if (t.effect == Effect::Open)
          opened_.insert(t.kind);
    }
  }

  /// Stops following the handles a body touches (its trip count is unknown).
  void forget(const std::vector<Node> &body) {
    for (const Node &n : body) {
      if (++visits_ > kMaxVisits)
        throw GiveUp{};
      if (n.isLoop()) {
        forget(n.loop().body);
        continue;
      }
      for (const Touch &t : touches(n.event()))
        for (const ElasticEntry &e : t.param->value.entries()) {
          if (auto c = constantOf(e.value))
            unknown_.insert({t.kind, *c});
          else
            unknownKinds_.insert(t.kind);
        }
    }
  }

  void walk(const std::vector<Node> &body, const std::string &path, const std::string &iteration) {
    for (size_t i = 0; i < body.size(); ++i) {
      if (++visits_ > kMaxVisits)
        throw GiveUp{};
      const std::string p = path + "/" + std::to_string(i);
      if (body[i].isEvent()) {
        event(body[i], p, iteration);
        continue;
      }
      const Loop &l = body[i].loop();
      std::optional<int64_t> count;
      if (l.iterations.isUniform())
        count = constantOf(l.iterations.entries()[0].value);
      if (!count) {
        forget(l.body);
        continue;
      }
      // Two iterations show everything more would: a handle closed in the
      // body and not reopened meets its close again in the second.
      for (int64_t k = 0; k < std::min<int64_t>(*count, 2); ++k)
        walk(l.body, p + "/body", k ? " (in the loop's second iteration)" : iteration);
    }
  }

  void event(const Node &n, const std::string &path, const std::string &iteration) {
    const Event &ev = n.event();
    // A failed call (the application's bad handle) is checked no further;
    // close() releases the descriptor even when it fails, a failed dup2
    // leaves its target as it was.
    const bool failed = ev.param("error") != nullptr;
    for (const Touch &t : touches(ev)) {
      if (!opened_.count(t.kind) || unknownKinds_.count(t.kind))
        continue;
      if (failed && (t.effect == Effect::Open || (t.effect == Effect::Close && isDuplicate(ev.op))))
        continue;
      for (const ElasticEntry &e : t.param->value.entries()) {
        auto c = constantOf(e.value);
        if (!c) {
          unknownKinds_.insert(t.kind);
          break;
        }
        touch(ev, t, *c, e.ranks, failed, path, iteration);
      }
    }
  }

  void touch(const Event &ev, const Touch &t, int64_t code, const RankList &ranks, bool failed,
             const std::string &path, const std::string &iteration) {
    const Key key{t.kind, code};
    if (code < 0 || unknown_.count(key))
      return;
    State &st = state_[key];
    if (t.effect == Effect::Open) {
      st.open = st.open.unite(ranks);
      st.closed = st.closed.subtract(ranks);
      return;
    }
    const bool closes = t.effect == Effect::Close;
    // dup2's target may be any descriptor the trace knows or not: only a
    // use or a plain close must find its handle open.
    const bool mustBeOpen = !failed && !(closes && isDuplicate(ev.op));
    if (mustBeOpen) {
      const RankList bad = ranks.subtract(st.open);
      if (!bad.empty()) {
        const RankList wasClosed = bad.intersect(st.closed);
        const std::string handle = std::string(t.kind) + " " + std::to_string(code);
        if (!wasClosed.empty())
          report(path, ev, t.kind, code, wasClosed,
                 (closes ? handle + " is closed already (closed by " + st.closedAt + ")"
                         : handle + " is used after its close (" + st.closedAt + ")") +
                     iteration);
        report(path, ev, t.kind, code, bad,
               (closes ? handle + " is closed but not open" : handle + " is used but not open") +
                   " (no earlier open of it on these ranks)" + iteration);
      }
    }
    if (closes) {
      st.open = st.open.subtract(ranks);
      st.closed = st.closed.unite(ranks);
      st.closedAt = echoValue(ev.op) + " at " + path;
    }
  }

  const Trace &t_;
  std::optional<HandleProblem> problem_;
  uint64_t visits_ = 0;
  std::set<std::string_view> opened_, unknownKinds_;
  std::set<Key> unknown_;
  std::map<Key, State> state_;
};

} // namespace

std::optional<HandleProblem> checkHandleLifetimes(const Trace &trace) { return Checker(trace).run(); }

} // namespace sio::trace
