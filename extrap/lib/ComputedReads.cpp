// A read's result is min(requested, max(0, extent - offset)) with the file's
// extent at that point, which the trace's earlier writes give
// (ReadResults.h): which reads are computed that way (classifyReads), and
// their results at the target (computeReadResults).
#include "Extrapolator.h"

#include "ReadResults.h"

#include <functional>

namespace sio::extrap::detail {

namespace {

/// The results of a read in one loop that changes from one iteration to
/// the next on some ranks (sequential reads across the end of the file):
/// per group of ranks with the same results, a table indexed by the loop.
std::optional<ElasticValue> iterationTable(const ReadOutcome &o) {
  if (o.loopDepth != 1)
    return std::nullopt;
  std::map<std::vector<int64_t>, std::vector<int64_t>> byResults;
  for (const auto &[rank, results] : o.sequence)
    byResults[results].push_back(rank);
  if (byResults.size() > 4096)
    return std::nullopt;
  ElasticValue v;
  for (auto &[results, ranks] : byResults) {
    // The runtime's form (its IntraRank sequence fitter): a line where
    // the results are affine in the index, else a table of the
    // differences from the first result plus that result.
    bool affine = true;
    for (size_t k = 2; k < results.size() && affine; ++k)
      affine = results[k] - results[k - 1] == results[1] - results[0];
    Expr x(results.empty() ? 0 : results[0]);
    if (results.size() > 1 && affine) {
      x = x + Expr(results[1] - results[0]) * Expr::loopIndex(0);
    } else if (results.size() > 1) {
      std::vector<int64_t> shifted;
      for (int64_t r : results)
        shifted.push_back(r - results[0]);
      x = Expr::table(std::move(shifted), Expr::loopIndex(0)) + x;
    }
    v.entries().push_back({RankList::fromRanks(std::move(ranks)), Value(std::move(x))});
  }
  return v;
}

} // namespace

// A read's result is min(requested, max(0, extent - offset)) with the
// file's extent at that point, which the trace's earlier writes give
// (ReadResults.h). Each input is simulated and must reproduce its
// recorded results; the target's are then computed the same way. A read
// the simulation cannot follow (a file that existed before the run, a
// view with holes) is fitted like any value, and only when it read all
// it asked for at every input.
void Extrapolator::classifyReads() {
  std::vector<std::map<std::string, ReadOutcome>> sims;
  for (const Trace *t : in_)
    sims.push_back(simulateReads(*t, true));
  for (const auto &[path, first] : sims.back()) {
    bool supported = true, allFull = true;
    std::string mismatch, why;
    for (size_t k = 0; k < sims.size(); ++k) {
      auto it = sims[k].find(path);
      if (it == sims[k].end()) {
        supported = false;
        why = "it does not run at N=" + std::to_string(ns_[k]);
        continue;
      }
      const ReadOutcome &o = it->second;
      allFull = allFull && o.allFull;
      if (!o.supported) {
        if (supported)
          why = o.why + " at N=" + std::to_string(ns_[k]);
        supported = false;
      } else if (!o.mismatch.empty() && mismatch.empty()) {
        mismatch = "N=" + std::to_string(ns_[k]) + ": " + o.mismatch;
      }
    }
    if (supported && mismatch.empty())
      readResults_[path] = ""; // computed
    else if (supported)
      readResults_[path] = "its result does not follow from the trace's writes (" + mismatch +
                           "): it depends on data the trace does not hold, e.g. a file that existed before the run";
    else if (!allFull)
      readResults_[path] = "a short read whose result the trace cannot explain: " + why;
    // else: fitted as before (every input read all it asked for)
  }
}

void Extrapolator::computeReadResults(Trace &out) const {
  const auto sim = simulateReads(out, false);
  std::function<void(std::vector<Node> &, const std::string &)> fill = [&](std::vector<Node> &nodes,
                                                                           const std::string &path) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::string here = path + "[" + std::to_string(i) + "]";
      Node &node = nodes[i];
      if (node.isLoop()) {
        fill(node.loop().body, here + ".body");
        continue;
      }
      if (!computedReads_.count(here))
        continue;
      Event &e = node.event();
      const std::string where = describe(e, here);
      auto it = sim.find(here);
      if (it == sim.end() || !it->second.supported)
        throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": at " +
                          std::to_string(options_.targetRanks) + " ranks " +
                          (it == sim.end() ? std::string("it does not run") : it->second.why));
      const ReadOutcome &o = it->second;
      Param *result = nullptr;
      for (Param &p : e.params)
        if (p.name == "result")
          result = &p;
      if (o.iterationDependent) {
        if (auto v = iterationTable(o)) {
          result->value = std::move(*v);
          continue;
        }
        throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": at " +
                          std::to_string(options_.targetRanks) +
                          " ranks a rank's result changes from one iteration to the next of nested loops (a "
                          "loop that reads across the end of the file)");
      }
      // Every rank read all it asked for: the result is the request, still a
      // formula of nranks (count, or count times the datatype's size).
      if (o.full) {
        const Param *count = e.param("count");
        int64_t size = isPosixRead(e.op) ? 1 : 0; // 0: not known
        if (!size) {
          const Param *dt = e.param("datatype");
          const auto id = dt ? uniformConstant(dt->value) : std::nullopt;
          for (const ObjectEntry &d : out.datatypes)
            if (id && *id == d.id && d.kind == "named" && d.fields.count("size") && !d.fields.at("size").empty())
              size = d.fields.at("size")[0].constantValue().value_or(0);
        }
        if (count && size > 0) {
          ElasticValue v = count->value;
          bool exprs = true;
          for (ElasticEntry &x : v.entries())
            if (Expr *c = std::get_if<Expr>(&x.value))
              x.value = *c * Expr(size);
            else
              exprs = false;
          if (exprs) {
            result->value = std::move(v);
            continue;
          }
        }
      }
      // One entry per distinct result, over the ranks that get it.
      std::map<int64_t, std::vector<int64_t>> byValue;
      for (const auto &[rank, got] : o.perRank)
        byValue[got].push_back(rank);
      if (byValue.size() > 4096)
        throw ExtrapError("cannot extrapolate parameter 'result' of " + where + ": " + std::to_string(byValue.size()) +
                          " different results at the target");
      ElasticValue v;
      for (auto &[got, ranks] : byValue)
        v.entries().push_back({RankList::fromRanks(std::move(ranks)), Value(Expr(got))});
      result->value = std::move(v);
    }
  };
  fill(out.body, "body");
}

} // namespace sio::extrap::detail
