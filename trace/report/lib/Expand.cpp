#include "sio/report/Expand.h"

#include "sio/trace/Summary.h"

#include <algorithm>
#include <cmath>
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

    // Timeline: gap (compute) before the call, then the call; this rank's
    // own group when the trace kept per-rank timing.
    const RankTiming *own = findRankTiming(ev.rankTiming, rank_);
    double gap = 0, dur = kNominalNs;
    if (own && own->samples()) {
      gap = own->computeMean();
      dur = own->durationMean();
      c.timed = ev.duration.count() > 0;
      c.perRank = true;
      c.reconstructed = own->count > 1;
    } else {
      if (ev.compute.count()) {
        gap = ev.compute.mean();
        c.reconstructed = ev.compute.count() > 1;
      }
      if (ev.duration.count()) {
        dur = ev.duration.mean();
        c.timed = true;
        c.reconstructed = c.reconstructed || ev.duration.count() > 1;
      }
    }
    if (!c.timed)
      dur = kNominalNs;
    const int64_t gapNs = std::llround(std::max(gap, 0.0)), durNs = std::llround(std::max(dur, 0.0));
    if (ev.inner && parent_) {
      // Inside the MPI-IO call it follows: the runtime counts an inner
      // call's gap from that call's start or the previous inner call's end.
      int64_t start = std::min(innerClock_ + gapNs, parentEnd_);
      int64_t end = std::min(start + durNs, parentEnd_);
      c.startNs = double(start);
      c.durationNs = double(end - start);
      c.parentSeq = *parent_;
      innerClock_ = end;
    } else {
      const int64_t start = clock_ + gapNs;
      clock_ = start + durNs;
      c.startNs = double(start);
      c.durationNs = double(durNs);
      if (!ev.inner) {
        parent_ = c.seq;
        innerClock_ = start;
        parentEnd_ = clock_;
      }
    }
    fn_(c);
  }

  const Trace &t_;
  int64_t rank_;
  uint64_t maxCalls_;
  const std::function<void(const Call &)> &fn_;
  bool complete_ = true;
  uint64_t seq_ = 0;
  int64_t clock_ = 0; // ns: the end of the last top-level call
  // The last top-level call, which inner calls nest in.
  std::optional<uint64_t> parent_;
  int64_t innerClock_ = 0, parentEnd_ = 0;
  std::vector<int64_t> indices_;
  const Node *outer_ = nullptr;
  uint64_t instance_ = 0;
  std::map<const Node *, uint64_t> instances_;
  std::map<std::pair<std::string, int64_t>, int64_t> files_;
  std::map<std::pair<std::string, int64_t>, std::optional<int64_t>> positions_;
};

} // namespace

std::string timelineTimingNote(const Trace &trace, const TimelineFlags &f, std::string_view sourceField,
                               std::string_view timingField, std::string_view innerField,
                               std::string_view parentField) {
  auto where = [](std::string_view field, std::string_view value) {
    return field.empty() ? std::string() : " (" + std::string(field) + " = " + std::string(value) + ")";
  };
  std::string timing = "reconstructed, not recorded timestamps: the trace keeps the order of each rank's calls and "
                       "timing statistics, not when each call ran; each call starts after the mean computation gap "
                       "of its event and lasts its mean duration";
  if (f.perRank)
    timing += "; per rank where the trace kept per-rank timing" + where(sourceField, "this rank") +
              ", so ranks that took longer show longer calls";
  if (f.merged)
    timing += "; where it did not, the statistics merged over all ranks of the event" +
              where(sourceField, "all ranks merged") + ": every rank draws the same times";
  if (trace.header.metadata.count("extrapolated_from_ranks"))
    timing += "; this trace was extrapolated: its timings are fitted, and per-rank differences of the measured "
              "runs are not carried to the new rank count";
  if (f.reconstructed)
    timing += "; where an event's statistics merge several calls (loops, ranks) the times are reconstructed "
              "from those merged histograms (mean), not measured per call" +
              where(timingField, "reconstructed");
  if (f.nested)
    timing += "; calls made inside an MPI-IO call" + (innerField.empty() ? "" : " (" + std::string(innerField) + ")") +
              " are drawn inside it" + (parentField.empty() ? "" : " (" + std::string(parentField) + ")") +
              ", clipped to its end";
  if (f.untimed)
    timing += "; calls without recorded timing are drawn 1 us long" + where(timingField, "nominal");
  return timing;
}

bool isIoOperation(const Call &call) { return call.bytes && direction(call.event->op) != Direction::None; }

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
