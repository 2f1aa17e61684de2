// Aggregates over a compressed trace without expanding it: loops multiply,
// and nodes whose relevant values do not depend on rank count once for all
// their ranks, so a summary of a million-rank trace costs about as much as one
// of a four-rank trace. Only values that change the aggregates (sizes,
// datatypes, handles, iteration counts) force expansion over ranks or loop
// indices; an offset that depends on the loop index does not.
#include "sio/trace/Summary.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace sio::trace {

namespace {

/// Parameters that change calls, bytes or the file a call goes to.
constexpr std::array<std::string_view, 12> kRelevantParams = {
    "count", "datatype", "bytes", "size", "nmemb", "file", "fh", "fd", "stream", "result", "error", "oldfd"};
/// Handle parameters: a call with both `file` and a handle opens the file.
constexpr std::array<std::string_view, 3> kHandleParams = {"fh", "fd", "stream"};

/// Evaluations allowed before the summary falls back to estimates.
constexpr uint64_t kWorkBudget = 50'000'000;

bool isRelevant(std::string_view name) {
  return std::find(kRelevantParams.begin(), kRelevantParams.end(), name) != kRelevantParams.end();
}

std::optional<int64_t> evalParam(const Event &ev, std::string_view name, const ExprEnv &env) {
  const Param *p = ev.param(name);
  if (!p)
    return std::nullopt;
  const Value *v = p->value.valueFor(env.rank);
  if (!v)
    return std::nullopt;
  const Expr *e = std::get_if<Expr>(v);
  if (!e)
    return std::nullopt;
  try {
    return e->evaluate(env);
  } catch (const std::exception &) {
    return std::nullopt; // overflow
  }
}

uint64_t mulSat(uint64_t a, uint64_t b, bool &exact) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    exact = false;
    return UINT64_MAX;
  }
  return r;
}

int64_t mulSat(int64_t a, uint64_t b, bool &exact) {
  int64_t r;
  if (b > uint64_t(INT64_MAX) || __builtin_mul_overflow(a, int64_t(b), &r)) {
    exact = false;
    return a < 0 ? INT64_MIN : INT64_MAX;
  }
  return r;
}

void addSat(uint64_t &acc, uint64_t v, bool &exact) {
  if (__builtin_add_overflow(acc, v, &acc)) {
    exact = false;
    acc = UINT64_MAX;
  }
}

void addSat(int64_t &acc, int64_t v, bool &exact) {
  if (__builtin_add_overflow(acc, v, &acc)) {
    exact = false;
    acc = INT64_MAX;
  }
}

class Summarizer {
public:
  explicit Summarizer(const Trace &trace) : t_(trace) {
    for (const ObjectEntry &d : trace.datatypes)
      for (const auto &[name, values] : d.fields)
        for (const Expr &v : values)
          rankDependentTypes_ |= v.dependsOnRank();
  }

  TraceSummary run() {
    s_.nranks = t_.header.nranks;
    std::vector<const RankList *> lists;
    countStatic(t_.body, lists);
    try {
      RankList active;
      for (const RankList *r : lists)
        active = active.unite(*r);
      s_.activeRanks = uint64_t(active.size());
    } catch (const std::length_error &) {
      // Too many ranks to unite as sets: the largest list is a lower bound.
      s_.exact = false;
      for (const RankList *r : lists)
        s_.activeRanks = std::max(s_.activeRanks, uint64_t(r->size()));
    }
    std::vector<int64_t> indices;
    walk(t_.body, indices, 1, false, 0);
    return s_;
  }

private:
  void countStatic(const std::vector<Node> &body, std::vector<const RankList *> &lists) {
    for (const Node &n : body) {
      if (n.isEvent()) {
        ++s_.staticEvents;
        if (lists.empty() || !(*lists.back() == n.ranks))
          lists.push_back(&n.ranks);
      } else {
        ++s_.staticLoops;
        countStatic(n.loop().body, lists);
      }
    }
  }

  ExprEnv env(int64_t rank, const std::vector<int64_t> &indices) const {
    return ExprEnv{rank, t_.header.nranks, std::span<const int64_t>(indices)};
  }

  static bool rankFree(const ElasticValue &v) {
    if (v.entries().size() != 1)
      return false;
    const Expr *e = std::get_if<Expr>(&v.entries()[0].value);
    return !e || !e->dependsOnRank();
  }

  /// Whether every value that matters is the same on all ranks of the node.
  bool rankFree(const Node &n) {
    auto it = rankFreeMemo_.find(&n);
    if (it != rankFreeMemo_.end())
      return it->second;
    bool free = true;
    if (n.isEvent()) {
      for (const Param &p : n.event().params)
        if (isRelevant(p.name))
          free = free && rankFree(p.value) &&
                 !(rankDependentTypes_ && (p.name == "datatype"));
    } else {
      free = rankFree(n.loop().iterations);
      for (const Node &c : n.loop().body)
        free = free && rankFree(c);
    }
    return rankFreeMemo_[&n] = free;
  }

  static uint32_t depthUsed(const ElasticValue &v) {
    uint32_t d = 0;
    for (const ElasticEntry &e : v.entries())
      if (const Expr *x = std::get_if<Expr>(&e.value))
        d = std::max(d, x->loopDepthUsed());
    return d;
  }

  /// 1 + the deepest loop index any relevant value in the subtree uses.
  uint32_t indexDepth(const Node &n) {
    auto it = depthMemo_.find(&n);
    if (it != depthMemo_.end())
      return it->second;
    uint32_t d = 0;
    if (n.isEvent()) {
      for (const Param &p : n.event().params)
        if (isRelevant(p.name))
          d = std::max(d, depthUsed(p.value));
    } else {
      d = depthUsed(n.loop().iterations);
      for (const Node &c : n.loop().body)
        d = std::max(d, indexDepth(c));
    }
    return depthMemo_[&n] = d;
  }

  bool spend() {
    if (work_ >= kWorkBudget) {
      s_.exact = false;
      return false;
    }
    ++work_;
    return true;
  }

  /// Runs `body` `mult` times per rank: for rank `rank` alone when
  /// `perRank`, else for all ranks of each node.
  void walk(const std::vector<Node> &body, std::vector<int64_t> &indices, uint64_t mult, bool perRank,
            int64_t rank) {
    for (const Node &n : body) {
      if (perRank && !n.ranks.contains(rank))
        continue;
      if (perRank || (rankFree(n) && !handlesDiverge(n))) {
        // One pass stands for all ranks of the node (or for the one rank).
        visit(n, indices, mult, perRank ? rank : n.ranks.first().value_or(0), perRank);
        continue;
      }
      if (uint64_t(n.ranks.size()) > kWorkBudget - work_) {
        // Too many ranks to expand: the first stands for all (an estimate).
        s_.exact = false;
        visit(n, indices, mult, n.ranks.first().value_or(0), false);
        continue;
      }
      for (int64_t r : n.ranks.ranks()) {
        if (!spend()) {
          // Out of budget: let this rank stand for the rest.
          visit(n, indices, mult, r, true);
          break;
        }
        visit(n, indices, mult, r, true);
      }
    }
  }

  /// `mult`: how often each rank runs the node; `perRank`: the pass is for
  /// rank `r` alone (children test membership), otherwise `r` stands for all
  /// ranks of the node.
  void visit(const Node &n, std::vector<int64_t> &indices, uint64_t mult, int64_t r, bool perRank) {
    if (n.isEvent()) {
      account(n.event(), env(r, indices), perRank ? mult : mulSat(mult, uint64_t(n.ranks.size()), s_.exact), r,
              perRank ? nullptr : &n.ranks);
      return;
    }
    const Loop &loop = n.loop();
    std::optional<int64_t> iters;
    if (const Value *v = loop.iterations.valueFor(r))
      if (const Expr *e = std::get_if<Expr>(v)) {
        try {
          iters = e->evaluate(env(r, indices));
        } catch (const std::exception &) {
        }
      }
    if (!iters || *iters < 0) {
      s_.exact = false;
      return;
    }
    if (*iters == 0)
      return;
    const uint32_t depth = uint32_t(indices.size());
    uint32_t used = 0;
    for (const Node &c : loop.body)
      used = std::max(used, indexDepth(c));
    indices.push_back(0);
    if (used <= depth || !spend()) {
      // The body does not care which iteration it is in.
      walk(loop.body, indices, mulSat(mult, uint64_t(*iters), s_.exact), perRank, r);
    } else {
      for (int64_t j = 0; j < *iters; ++j) {
        indices.back() = j;
        if (!spend()) {
          walk(loop.body, indices, mulSat(mult, uint64_t(*iters - j), s_.exact), perRank, r);
          break;
        }
        walk(loop.body, indices, mult, perRank, r);
      }
    }
    indices.pop_back();
  }

  /// `r`: the rank this pass is for; `all`: the pass stands for all these
  /// ranks (a node whose values do not depend on the rank), else null.
  void account(const Event &ev, const ExprEnv &e, uint64_t calls, int64_t r, const RankList *all) {
    addSat(s_.totalCalls, calls, s_.exact);
    OpSummary &op = s_.byOp[ev.op];
    addSat(op.calls, calls, s_.exact);
    if (ev.param("error")) {
      addSat(s_.failedCalls, calls, s_.exact);
      addSat(op.failed, calls, s_.exact);
    }

    // Follow handles to the files they were opened on, per rank: the same
    // code can name different files on different ranks at the same point
    // (threads of each rank opening in their own order).
    std::optional<int64_t> file = evalParam(ev, "file", e);
    // A duplicated descriptor (dup, dup2: `oldfd` -> `fd`) names its
    // source's file: the event opens that file under the new code.
    if (!file && ev.param("oldfd"))
      if (auto old = evalParam(ev, "oldfd", e))
        file = fileOf("fd", *old, r);
    for (std::string_view h : kHandleParams) {
      if (!ev.param(h))
        continue;
      auto handle = evalParam(ev, h, e);
      if (!handle)
        continue;
      HandleFiles &hf = handles_[{std::string(h), *handle}];
      if (file) {
        if (all) {
          bool was = !hf.perRank.empty();
          // Ranks the old entry stood for and this one does not keep it.
          if (hf.allRanks && !(*hf.allRanks == *all))
            for (int64_t q : hf.allRanks->ranks())
              if (!all->contains(q))
                hf.perRank.try_emplace(q, hf.all);
          for (auto it = hf.perRank.begin(); it != hf.perRank.end();)
            it = all->contains(it->first) ? hf.perRank.erase(it) : std::next(it);
          if (was != !hf.perRank.empty())
            divergent_[std::string(h)] += was ? -1 : 1;
          hf.all = *file;
          hf.allRanks = all;
        } else {
          if (hf.perRank.empty())
            ++divergent_[std::string(h)];
          hf.perRank[r] = *file;
        }
      } else if (auto known = fileOf(h, *handle, r)) {
        file = known;
      }
    }

    Direction dir = direction(ev.op);
    int64_t bytes = 0;
    if (dir != Direction::None) {
      auto b = transferBytes(t_, ev, e);
      if (b)
        bytes = mulSat(*b, calls, s_.exact);
      else
        s_.exact = false;
    }
    addSat(op.bytes, bytes, s_.exact);
    if (ev.inner) {
      // Inner calls implement an outer one: counting their bytes again would
      // report MPI-IO traffic twice.
      addSat(s_.innerCalls, calls, s_.exact);
      return;
    }
    if (dir == Direction::Read)
      addSat(s_.bytesRead, bytes, s_.exact);
    else if (dir == Direction::Write)
      addSat(s_.bytesWritten, bytes, s_.exact);
    if (file) {
      OpSummary &f = s_.byFile[*file];
      addSat(f.calls, calls, s_.exact);
      addSat(f.bytes, bytes, s_.exact);
    }
  }

  /// The file handle `handle` of kind `h` names on rank `r`, if known.
  std::optional<int64_t> fileOf(std::string_view h, int64_t handle, int64_t r) const {
    auto found = handles_.find({std::string(h), handle});
    if (found == handles_.end())
      return std::nullopt;
    const HandleFiles &hf = found->second;
    if (auto it = hf.perRank.find(r); it != hf.perRank.end())
      return it->second;
    if (hf.allRanks && hf.allRanks->contains(r))
      return hf.all;
    return std::nullopt;
  }

  const Trace &t_;
  TraceSummary s_;
  bool rankDependentTypes_ = false;
  uint64_t work_ = 0;
  /// The file a handle was opened on: per rank, or for all ranks of a node
  /// whose values do not depend on the rank (its last opening).
  struct HandleFiles {
    std::unordered_map<int64_t, int64_t> perRank;
    int64_t all = 0;
    const RankList *allRanks = nullptr;
  };
  std::map<std::pair<std::string, int64_t>, HandleFiles> handles_;
  /// Per handle kind: handles whose file differs by rank right now.
  std::map<std::string, int64_t, std::less<>> divergent_;
  std::unordered_map<const Node *, unsigned> handleUseMemo_;

  /// Bit i: the subtree follows handle kHandleParams[i] to a file (an event
  /// with the handle and no `file`).
  unsigned handleUse(const Node &n) {
    auto it = handleUseMemo_.find(&n);
    if (it != handleUseMemo_.end())
      return it->second;
    unsigned use = 0;
    if (n.isEvent()) {
      if (!n.event().param("file"))
        for (size_t i = 0; i < kHandleParams.size(); ++i)
          if (n.event().param(kHandleParams[i]))
            use |= 1u << i;
    } else {
      for (const Node &c : n.loop().body)
        use |= handleUse(c);
    }
    return handleUseMemo_[&n] = use;
  }

  /// A node whose values are the same on all its ranks still differs by rank
  /// when a handle it uses names different files on different ranks.
  bool handlesDiverge(const Node &n) {
    unsigned use = handleUse(n);
    for (size_t i = 0; i < kHandleParams.size(); ++i)
      if (use & (1u << i))
        if (auto it = divergent_.find(kHandleParams[i]); it != divergent_.end() && it->second > 0)
          return true;
    return false;
  }
  std::unordered_map<const Node *, bool> rankFreeMemo_;
  std::unordered_map<const Node *, uint32_t> depthMemo_;
};

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

} // namespace

Direction direction(std::string_view op) {
  if (startsWith(op, "MPI_File_")) {
    std::string_view rest = op.substr(9);
    // Split collectives move their data at *_begin; *_end only completes.
    if (endsWith(rest, "_end"))
      return Direction::None;
    if (startsWith(rest, "read") || startsWith(rest, "iread"))
      return Direction::Read;
    if (startsWith(rest, "write") || startsWith(rest, "iwrite"))
      return Direction::Write;
    return Direction::None;
  }
  static constexpr std::string_view reads[] = {"read",         "pread",        "pread64",        "readv",
                                               "preadv",       "preadv2",      "preadv64",       "preadv64v2",
                                               "__read_chk",   "__pread_chk",  "__pread64_chk",  "fread",
                                               "fread_unlocked", "__fread_chk", "__fread_unlocked_chk",
                                               // stdio character, line and formatted input (`result` bytes)
                                               "fgetc", "fgets", "getline", "getdelim", "fscanf", "fgetws", "fwscanf"};
  static constexpr std::string_view writes[] = {"write",   "pwrite",   "pwrite64",   "writev",         "pwritev",
                                                "pwritev2", "pwritev64", "pwritev64v2", "fwrite", "fwrite_unlocked",
                                                // stdio character, string and formatted output (`result` bytes)
                                                "fputc", "fputs", "fprintf", "dprintf", "fputws"};
  for (std::string_view r : reads)
    if (op == r)
      return Direction::Read;
  for (std::string_view w : writes)
    if (op == w)
      return Direction::Write;
  return Direction::None;
}

std::optional<int64_t> transferBytes(const Trace &trace, const Event &event, const ExprEnv &env) {
  if (direction(event.op) == Direction::None)
    return std::nullopt;
  // A failed call moved nothing; otherwise the recorded result is what it
  // moved. Without either (traces written before results were recorded,
  // nonblocking and split-collective starts) the request stands for it.
  if (event.param("error"))
    return 0;
  if (event.param("result"))
    return evalParam(event, "result", env);
  return requestedBytes(trace, event, env);
}

std::optional<int64_t> requestedBytes(const Trace &trace, const Event &event, const ExprEnv &env) {
  const std::string_view op = event.op;
  if (direction(op) == Direction::None)
    return std::nullopt;
  int64_t r;
  if (startsWith(op, "MPI_File_")) {
    auto count = evalParam(event, "count", env);
    auto type = evalParam(event, "datatype", env);
    if (!count || !type)
      return std::nullopt;
    auto size = datatypeSize(trace, *type, env.rank);
    if (!size || __builtin_mul_overflow(*count, *size, &r))
      return std::nullopt;
    return r;
  }
  if (op.find("fread") != std::string_view::npos || op.find("fwrite") != std::string_view::npos) {
    auto size = evalParam(event, "size", env);
    auto nmemb = evalParam(event, "nmemb", env);
    if (!size || !nmemb || __builtin_mul_overflow(*size, *nmemb, &r))
      return std::nullopt;
    return r;
  }
  if (op.find("readv") != std::string_view::npos || op.find("writev") != std::string_view::npos)
    return evalParam(event, "bytes", env);
  return evalParam(event, "count", env);
}

TraceSummary summarize(const Trace &trace) { return Summarizer(trace).run(); }

} // namespace sio::trace
