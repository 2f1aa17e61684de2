// The replay's body: loops, rank guards, values and one call per event.
#include "Generator.h"

#include "sio/trace/Handles.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

namespace sio::replay::detail {

void Generator::emitNodes(const std::vector<Node> &nodes, const RankList &parentRanks, uint32_t depth) {
  for (const Node &node : nodes) {
    noteRanks(node.ranks);
    std::string guard = node.ranks == parentRanks ? "" : rankGuard(node.ranks, N_);
    if (node.isEvent() && node.event().inner)
      continue; // POSIX under MPI-IO: the replayed MPI-IO call does it again
    if (!guard.empty())
      body_.open("if (" + guard + ")");
    if (node.isLoop())
      emitLoop(node, depth);
    else
      emitEvent(node, depth);
    if (!guard.empty())
      body_.close();
  }
}

void Generator::emitLoop(const Node &node, uint32_t depth) {
  const Loop &loop = node.loop();
  if (!hasReplayedEvent(loop.body))
    return; // only inner events: nothing to replay, and no loop in the replay's trace either
  std::string index = "i" + std::to_string(depth);
  const sio::trace::LoopInfo *info = loop.id ? trace_.loopInfo(loop.id) : nullptr;
  body_.comment(info ? "loop at " + location(info->file, info->line, info->column)
                     : std::string("loop found by the runtime (no source location)"));
  context_ = "iteration count of the loop" + (info ? " at " + location(info->file, info->line, info->column) : "");
  // A count that differs between ranks becomes a local: keep it in a block,
  // so that sibling loops (a choice run's guards) can each have one.
  const bool elastic = !loop.iterations.isUniform();
  if (elastic)
    body_.open("");
  std::string count = valueText(loop.iterations, node.ranks, "iterations" + std::to_string(depth), depth);
  noteCheck(loop.iterations, node.ranks, depth, context_);
  body_.open("for (i64 " + index + " = 0, n" + std::to_string(depth) + " = iterations(" + count + "); " + index +
             " < n" + std::to_string(depth) + "; ++" + index + ")");
  loops_.push_back({&loop.iterations});
  emitNodes(loop.body, node.ranks, depth + 1);
  loops_.pop_back();
  body_.close();
  if (elastic)
    body_.close();
}

bool Generator::hasReplayedEvent(const std::vector<Node> &nodes) {
  for (const Node &n : nodes)
    if (n.isLoop() ? hasReplayedEvent(n.loop().body) : !n.event().inner)
      return true;
  return false;
}

std::string Generator::valueText(const ElasticValue &value, const RankList &nodeRanks, const std::string &name,
                                 uint32_t depth) {
  (void)depth;
  if (value.entries().empty())
    throw UnsupportedTrace(context_ + ": value " + name + " has no entries");
  for (const auto &entry : value.entries())
    noteRanks(entry.ranks);
  if (value.isUniform() || value.entries().size() == 1)
    return valueCpp(value.entries()[0].value);
  bool isString = std::holds_alternative<std::string>(value.entries()[0].value);
  std::string local = name + "Value";
  body_.line((isString ? "std::string " : "i64 ") + local + (isString ? ";" : " = 0;"));
  bool first = true;
  for (const auto &entry : value.entries()) {
    std::string guard = rankGuard(entry.ranks, N_);
    if (guard.empty())
      guard = "true";
    body_.line(std::string(first ? "if (" : "else if (") + guard + ")");
    body_.line("  " + local + " = " + valueCpp(entry.value) + ";");
    first = false;
  }
  body_.line("else");
  std::string failure = "modelFailure(\"no value of " + name + " for this rank\")";
  body_.line("  " + local + " = " + (isString ? "(" + failure + ", std::string())" : failure) + ";");
  (void)nodeRanks;
  return isString ? local + ".c_str()" : local;
}

std::string Generator::valueCpp(const Value &value) {
  if (const auto *text = std::get_if<std::string>(&value))
    return cppStringLiteral(*text);
  return exprToCpp(std::get<Expr>(value));
}

void Generator::noteCheck(const ElasticValue &value, const RankList &nodeRanks, uint32_t, const std::string &what) {
  for (const auto &entry : value.entries()) {
    const Expr *expr = std::get_if<Expr>(&entry.value);
    if (!expr || expr->loopDepthUsed() > 0 || !canFail(*expr))
      continue;
    std::string guard = rankGuard(value.isUniform() ? nodeRanks : entry.ranks, N_);
    checks_.push_back({guard, exprToCpp(*expr), what});
  }
}

std::string Generator::location(const std::string &file, uint32_t line, uint32_t column) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string Generator::siteText(const Event &event) const {
  const sio::trace::SiteInfo *site = event.site ? trace_.site(event.site) : nullptr;
  return site ? location(site->file, site->line, site->column) : "";
}

void Generator::emitEvent(const Node &node, uint32_t depth) {
  const Event &event = node.event();
  std::string site = siteText(event);
  context_ = event.op + (site.empty() ? "" : " at " + site);
  // Parameters that differ between ranks become locals: keep them in a block.
  bool elastic = false;
  for (const auto &param : event.params)
    elastic |= !param.value.isUniform();
  if (elastic)
    body_.open("");
  body_.comment(site.empty() ? event.op + " (no source location)" : site);
  Params p(*this, node, depth);
  checkObjects(node);
  std::vector<std::string> call = callText(node, p);
  noteRequestSizes(node, p, depth);
  noteSeek(event, p);
  noteWrites(node, p);
  std::string gap = gapModel(event.compute);
  body_.line("beforeCall(" + cppStringLiteral(context_) + ", " + gap + ");");
  for (const auto &line : call)
    body_.line(line);
  body_.line("afterCall();");
  if (elastic)
    body_.close();
}

void Generator::checkObjects(const Node &node) const {
  const Event &e = node.event();
  const bool failed = e.param("error") != nullptr;
  auto refuse = [&](const std::string &what, const std::string &why) {
    throw UnsupportedTrace(context_ + ": " + what + ", which the replay cannot rebuild: " + why);
  };
  for (const auto &param : e.params) {
    if (namesDatatype(param.name)) {
      auto ids = possibleIds(param.value);
      if (!ids) {
        for (const auto &t : trace_.datatypes)
          if (types_.status(t.id).kind == Rebuild::Kind::Impossible)
            refuse("its " + param.name + " is a formula, which may name datatype " + std::to_string(t.id),
                   types_.status(t.id).why);
        continue;
      }
      for (int64_t id : *ids) {
        const Rebuild &r = types_.status(id);
        if (r.kind == Rebuild::Kind::Impossible || (r.kind == Rebuild::Kind::Null && !failed))
          refuse("its " + param.name + " is datatype " + std::to_string(id), r.why);
      }
    } else if (param.name == "newtype") {
      // A constructor: the entries it made must be buildable.
      for (const auto &t : trace_.datatypes)
        if (madeAtEvent(t) && t.name == e.op && t.site == e.site) {
          const Rebuild &r = types_.status(t.id);
          if (r.kind == Rebuild::Kind::Impossible)
            refuse("it made datatype " + std::to_string(t.id), r.why);
        }
    } else if ((param.name == "comm" || param.name == "peer_comm") && !failed) {
      auto ids = possibleIds(param.value);
      for (const auto &c : trace_.comms)
        if (c.kind == "other" && members(c).empty() && (!ids || ids->count(c.id)))
          refuse("its " + param.name + " is communicator " + std::to_string(c.id),
                 "made by a call sio does not intercept, and the trace does not record its members");
    }
  }
}

std::string Generator::gapModel(const TimingStats &compute) {
  if (compute.count() == 0)
    return "nullptr";
  std::vector<std::string> bins;
  double expected = 0;
  for (int b = 0; b < TimingStats::kBins; ++b) {
    uint64_t n = compute.histogram()[size_t(b)];
    if (!n)
      continue;
    bins.push_back("{" + std::to_string(b) + ", " + std::to_string(n) + "}");
    double low = b == 0 ? 0.0 : std::ldexp(1.0, b - 1), high = b == 0 ? 0.0 : std::ldexp(1.0, b);
    low = std::max(low, double(compute.min()));
    high = std::min(high, double(compute.max()));
    expected += double(n) / double(compute.count()) * (high > low ? (low + high) / 2 : low);
  }
  double scale = expected > 0 && compute.min() != compute.max() ? compute.mean() / expected : 1.0;
  std::ostringstream model;
  model.precision(17);
  model << "{" << compute.min() << ", " << compute.max() << ", " << scale << ", {" << join(bins, ", ") << "}}";
  std::ostringstream comment;
  comment.precision(3);
  comment << "[" << gaps_.size() << "] " << context_ << ": mean " << compute.mean() / 1e6 << " ms over "
          << compute.count() << " samples";
  gaps_.push_back({model.str(), comment.str()});
  return "&gaps[" + std::to_string(gaps_.size() - 1) + "]";
}

} // namespace sio::replay::detail
