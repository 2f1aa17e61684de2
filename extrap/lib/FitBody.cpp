// The inputs' bodies walked node for node: calls (each parameter an elastic
// value, MPI_Dims_create's output recomputed, a read's result computed),
// loops (the iteration count and the body), the ranks of each node, and the
// timing statistics (the one approximate part: least-squares curves).
#include "Extrapolator.h"

#include "ReadResults.h"
#include "TimingFit.h"

#include <sstream>

namespace sio::extrap::detail {

TimingStats Extrapolator::fitTimingStats(const std::vector<const TimingStats *> &stats, const std::string &where) {
  std::vector<int64_t> ns;
  std::vector<double> means;
  for (size_t k = 0; k < stats.size(); ++k)
    if (stats[k]->count()) {
      ns.push_back(ns_[k]);
      means.push_back(stats[k]->mean());
    }
  if (ns.empty())
    return {};
  TimingFit fit = fitTiming(ns, means, options_.targetRanks);
  ++timingFits_;
  worstTimingError_ = std::max(worstTimingError_, fit.relativeError);
  if (options_.verbose) {
    std::ostringstream line;
    line << where << ": " << fit.model << ", " << fit.predicted << " ns at " << options_.targetRanks
         << " ranks, relative error " << fit.relativeError * 100 << "%";
    options_.verbose(line.str());
  }
  return scaleTiming(*stats.back(), fit.predicted);
}

Event Extrapolator::fitEvent(const std::vector<const Event *> &events, const std::string &path) {
  const Event &ref = *events.back();
  std::string where = describe(ref, path);
  std::vector<std::string> shown;
  for (const Event *e : events)
    shown.push_back(e->op);
  for (const Event *e : events) {
    if (e->op != ref.op || e->layer != ref.layer || e->inner != ref.inner)
      differ(path, "different calls", shown);
    if (e->site != ref.site)
      differ(where, "different call sites", shown);
    if (e->params.size() != ref.params.size())
      differ(where, "different parameters", shown);
    for (size_t p = 0; p < ref.params.size(); ++p)
      if (e->params[p].name != ref.params[p].name)
        differ(where, "different parameters", shown);
  }
  Event out;
  out.op = ref.op;
  out.layer = ref.layer;
  out.site = ref.site;
  out.inner = ref.inner;
  const bool dimsCreate = ref.op == "MPI_Dims_create" && !ref.param("error");
  for (size_t p = 0; p < ref.params.size(); ++p) {
    if (dimsCreate && ref.params[p].name.rfind("dims", 0) == 0) {
      out.params.push_back({ref.params[p].name, {}}); // recomputed below, never fitted
      continue;
    }
    if (isModeledRead(ref.op) && ref.params[p].name == "result") {
      auto how = readResults_.find(path);
      if (how != readResults_.end() && how->second.empty()) {
        out.params.push_back({"result", {}}); // computed at the target from the file's extent
        computedReads_.insert(path);
        continue;
      }
      if (how != readResults_.end())
        throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": " + how->second);
    }
    std::vector<const ElasticValue *> values;
    for (const Event *e : events)
      values.push_back(&e->params[p].value);
    out.params.push_back({ref.params[p].name, fitElastic(where, "parameter '" + ref.params[p].name + "'", values)});
  }
  if (dimsCreate)
    recomputeDims(events, where, out);
  std::vector<const TimingStats *> compute, duration;
  for (const Event *e : events) {
    compute.push_back(&e->compute);
    duration.push_back(&e->duration);
  }
  out.compute = fitTimingStats(compute, where + " compute");
  out.duration = fitTimingStats(duration, where + " duration");
  return out;
}

std::vector<Node> Extrapolator::fitBody(const std::vector<const std::vector<Node> *> &bodies, const std::string &path) {
  const size_t size = bodies.back()->size();
  for (const auto *b : bodies)
    if (b->size() != size) {
      std::vector<std::string> shown;
      for (const auto *x : bodies)
        shown.push_back(std::to_string(x->size()) + " nodes");
      differ(path, "different number of calls and loops", shown);
    }
  std::vector<Node> out;
  for (size_t i = 0; i < size; ++i) {
    std::string here = path + "[" + std::to_string(i) + "]";
    std::vector<const Node *> nodes;
    std::vector<std::string> kinds;
    for (const auto *b : bodies) {
      nodes.push_back(&(*b)[i]);
      kinds.push_back((*b)[i].isEvent() ? (*b)[i].event().op : "loop");
    }
    for (const Node *n : nodes)
      if (n->isEvent() != nodes.back()->isEvent())
        differ(here, "a call in one input is a loop in another", kinds);
    Node node;
    std::vector<const RankList *> ranks;
    for (const Node *n : nodes)
      ranks.push_back(&n->ranks);
    if (nodes.back()->isEvent()) {
      std::vector<const Event *> events;
      for (const Node *n : nodes)
        events.push_back(&n->event());
      Event e = fitEvent(events, here);
      node.ranks = fitRanks(describe(e, here), "the ranks", ranks);
      node.item = std::move(e);
    } else {
      const Loop &ref = nodes.back()->loop();
      std::vector<const ElasticValue *> iterations;
      std::vector<const std::vector<Node> *> inner;
      for (const Node *n : nodes) {
        if (n->loop().id != ref.id)
          differ(here, "different loops", kinds);
        iterations.push_back(&n->loop().iterations);
        inner.push_back(&n->loop().body);
      }
      std::string where = "loop " + here;
      if (const LoopInfo *l = in_.back()->loopInfo(ref.id))
        where += " (" + l->file + ":" + std::to_string(l->line) + ":" + std::to_string(l->column) + ")";
      Loop loop;
      loop.id = ref.id;
      loop.iterations = fitElastic(where, "the iteration count", iterations);
      node.ranks = fitRanks(where, "the ranks", ranks);
      loop.body = fitBody(inner, here + ".body");
      node.item = std::move(loop);
    }
    out.push_back(std::move(node));
  }
  return out;
}

} // namespace sio::extrap::detail
