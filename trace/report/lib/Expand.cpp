#include "sio/report/Expand.h"

#include "sio/trace/Summary.h"

#include <algorithm>
#include <map>
#include <vector>

namespace sio::report {

using namespace sio::trace;

namespace {

constexpr std::string_view kHandleParams[] = {"fh", "fd", "stream"};
// SEEK_SET/SEEK_CUR and MPICH's MPI_SEEK_SET/MPI_SEEK_CUR.
// Calls without timing statistics are laid out this long on timelines.
constexpr double kNominalNs = 1000;
constexpr int64_t kSeekSet = 0, kSeekCur = 1, kMpiSeekSet = 600, kMpiSeekCur = 602;

std::optional<int64_t> evalValue(const ElasticValue &v, const ExprEnv &env) {
  const Value *value = v.valueFor(env.rank);
  if (!value)
    return std::nullopt;
  const Expr *e = std::get_if<Expr>(value);
  if (!e)
    return std::nullopt;
  try {
    return e->evaluate(env);
  } catch (const std::exception &) {
    return std::nullopt; // overflow
  }
}

class Expander {
public:
  Expander(const Trace &t, int64_t rank, uint64_t maxCalls, const std::function<void(const Call &)> &fn)
      : t_(t), rank_(rank), maxCalls_(maxCalls), fn_(fn) {}

  bool run() {
    walk(t_.body);
    return complete_;
  }

private:
  ExprEnv env() const { return {rank_, t_.header.nranks, std::span<const int64_t>(indices_)}; }

  void walk(const std::vector<Node> &body) {
    for (const Node &n : body) {
      if (!complete_)
        return;
      if (!n.ranks.contains(rank_))
        continue;
      if (n.isEvent()) {
        event(n);
        continue;
      }
      auto iters = evalValue(n.loop().iterations, env());
      if (!iters || *iters < 0) {
        complete_ = false;
        return;
      }
      const bool outermost = indices_.empty();
      if (outermost) {
        outer_ = &n;
        instance_ = instances_[&n]++;
      }
      indices_.push_back(0);
      for (int64_t j = 0; j < *iters && complete_; ++j) {
        indices_.back() = j;
        walk(n.loop().body);
      }
      indices_.pop_back();
      if (outermost)
        outer_ = nullptr;
    }
  }

  void event(const Node &n) {
    if (seq_ >= maxCalls_) {
      complete_ = false;
      return;
    }
    const Event &ev = n.event();
    const ExprEnv e = env();
    Call c;
    c.rank = rank_;
    c.seq = seq_++;
    c.node = &n;
    c.event = &ev;
    c.indices = std::span<const int64_t>(indices_);
    c.outerLoop = outer_;
    c.outerInstance = outer_ ? instance_ : 0;

    // Handles: a call naming a file and a handle opens it at position 0.
    std::optional<std::pair<std::string_view, int64_t>> handle;
    for (std::string_view h : kHandleParams)
      if (const Param *p = ev.param(h))
        if (auto v = evalValue(p->value, e)) {
          handle = {h, *v};
          break;
        }
    if (const Param *p = ev.param("file"))
      c.file = evalValue(p->value, e);
    if (handle) {
      auto key = std::pair(std::string(handle->first), handle->second);
      if (c.file) {
        files_[key] = *c.file;
        positions_[key] = 0;
      } else if (auto it = files_.find(key); it != files_.end()) {
        c.file = it->second;
      }
    }

    std::optional<int64_t> offset;
    if (const Param *p = ev.param("offset"))
      offset = evalValue(p->value, e);
    const std::string_view op = ev.op;
    std::optional<int64_t> *pos = nullptr;
    if (handle)
      pos = &positions_[std::pair(std::string(handle->first), handle->second)];
    if (op.find("seek") != std::string_view::npos) {
      const int64_t whence = ev.param("whence") ? evalValue(ev.param("whence")->value, e).value_or(-1) : -1;
      if (pos) {
        if (offset && (whence == kSeekSet || whence == kMpiSeekSet))
          *pos = *offset;
        else if (offset && (whence == kSeekCur || whence == kMpiSeekCur) && *pos)
          *pos = **pos + *offset;
        else
          *pos = std::nullopt; // SEEK_END or unknown: the file size is not in the trace
      }
    } else if (direction(op) != Direction::None) {
      c.bytes = transferBytes(t_, ev, e);
      if (ev.param("offset")) {
        c.offset = offset;
      } else if (pos) {
        c.offset = *pos;
        if (*pos && c.bytes)
          *pos = **pos + *c.bytes;
        else
          *pos = std::nullopt;
      }
    }

    // Timeline: gap (compute) before the call, then the call.
    if (ev.compute.count()) {
      clock_ += ev.compute.mean();
      c.reconstructed = ev.compute.count() > 1;
    }
    c.startNs = clock_;
    if (ev.duration.count()) {
      c.durationNs = ev.duration.mean();
      c.timed = true;
      c.reconstructed = c.reconstructed || ev.duration.count() > 1;
    } else {
      c.durationNs = kNominalNs;
    }
    clock_ += c.durationNs;
    fn_(c);
  }

  const Trace &t_;
  int64_t rank_;
  uint64_t maxCalls_;
  const std::function<void(const Call &)> &fn_;
  bool complete_ = true;
  uint64_t seq_ = 0;
  double clock_ = 0;
  std::vector<int64_t> indices_;
  const Node *outer_ = nullptr;
  uint64_t instance_ = 0;
  std::map<const Node *, uint64_t> instances_;
  std::map<std::pair<std::string, int64_t>, int64_t> files_;
  std::map<std::pair<std::string, int64_t>, std::optional<int64_t>> positions_;
};

} // namespace

std::optional<int64_t> evalParam(const Trace &trace, const Call &call, std::string_view name) {
  const Param *p = call.event->param(name);
  if (!p)
    return std::nullopt;
  return evalValue(p->value, call.env(trace.header.nranks));
}

std::string paramText(const Trace &trace, const Call &call, const Param &param) {
  const Value *v = param.value.valueFor(call.rank);
  if (!v)
    return "?";
  if (const auto *s = std::get_if<std::string>(v))
    return *s;
  auto x = evalValue(param.value, call.env(trace.header.nranks));
  if (!x)
    return std::get<Expr>(*v).str();
  if (isFileParam(param.name))
    if (const FileEntry *f = trace.file(*x))
      if (auto name = f->nameFor(call.rank, trace.header.nranks, call.indices))
        return *name;
  return std::to_string(*x);
}

bool expandRank(const Trace &trace, int64_t rank, uint64_t maxCalls, const std::function<void(const Call &)> &fn) {
  return Expander(trace, rank, maxCalls, fn).run();
}

std::vector<int64_t> sampleRanks(int64_t nranks, int64_t limit) {
  std::vector<int64_t> out;
  if (nranks <= 0 || limit <= 0)
    return out;
  if (nranks <= limit) {
    for (int64_t r = 0; r < nranks; ++r)
      out.push_back(r);
    return out;
  }
  if (limit == 1)
    return {0};
  for (int64_t k = 0; k < limit; ++k) {
    // Evenly spread, first and last included: floor(k*(n-1)/(limit-1)) without overflow.
    const int64_t q = (nranks - 1) / (limit - 1), rem = (nranks - 1) % (limit - 1);
    int64_t r = q * k + rem * k / (limit - 1);
    if (out.empty() || out.back() != r)
      out.push_back(r);
  }
  return out;
}

} // namespace sio::report
