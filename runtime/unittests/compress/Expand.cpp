#include "Expand.h"

#include <stdexcept>

namespace sio::rt::test {

using namespace sio::trace;

std::ostream &operator<<(std::ostream &os, const FlatEvent &e) {
  os << e.op << "@" << e.site << "(";
  for (const auto &[name, v] : e.params) {
    os << name << "=";
    if (auto *i = std::get_if<int64_t>(&v))
      os << *i;
    else
      os << '"' << std::get<std::string>(v) << '"';
    os << " ";
  }
  return os << ")";
}

namespace {

int64_t evaluate(const ElasticValue &value, int64_t rank, int64_t nranks, const std::vector<int64_t> &idx,
                 const char *what) {
  const Value *v = value.valueFor(rank);
  if (!v || !std::holds_alternative<Expr>(*v))
    throw std::runtime_error(std::string("no integer value for ") + what);
  auto r = std::get<Expr>(*v).evaluate({rank, nranks, idx});
  if (!r)
    throw std::runtime_error(std::string(what) + " does not evaluate: " + std::get<Expr>(*v).str());
  return *r;
}

void expand(const std::vector<Node> &nodes, int64_t rank, int64_t nranks, std::vector<int64_t> &idx,
            std::vector<FlatEvent> &out) {
  for (const Node &node : nodes) {
    if (!node.ranks.contains(rank))
      continue;
    if (node.isEvent()) {
      const Event &ev = node.event();
      FlatEvent flat{ev.op, ev.site, {}};
      for (const Param &p : ev.params) {
        const Value *v = p.value.valueFor(rank);
        if (v && std::holds_alternative<std::string>(*v))
          flat.params.emplace_back(p.name, std::get<std::string>(*v));
        else
          flat.params.emplace_back(p.name, evaluate(p.value, rank, nranks, idx, p.name.c_str()));
      }
      out.push_back(std::move(flat));
    } else {
      int64_t n = evaluate(node.loop().iterations, rank, nranks, idx, "iterations");
      for (int64_t i = 0; i < n; ++i) {
        idx.push_back(i);
        expand(node.loop().body, rank, nranks, idx, out);
        idx.pop_back();
      }
    }
  }
}

size_t count(const std::vector<Node> &nodes) {
  size_t n = 0;
  for (const Node &node : nodes)
    n += 1 + (node.isLoop() ? count(node.loop().body) : 0);
  return n;
}

} // namespace

std::vector<FlatEvent> expandNodes(const std::vector<Node> &nodes, int64_t rank, int64_t nranks) {
  std::vector<FlatEvent> out;
  std::vector<int64_t> idx;
  expand(nodes, rank, nranks, idx, out);
  return out;
}

std::vector<FlatEvent> expandRank(const Trace &trace, int64_t rank) {
  return expandNodes(trace.body, rank, trace.header.nranks);
}

Event makeEvent(const FlatEvent &e) {
  Event ev;
  ev.op = e.op;
  ev.layer = Layer::MPIIO;
  ev.site = e.site;
  for (const auto &[name, v] : e.params) {
    Param p;
    p.name = name;
    if (const int64_t *i = std::get_if<int64_t>(&v))
      p.value = ElasticValue(Value(Expr(*i)), RankList());
    else
      p.value = ElasticValue(Value(std::get<std::string>(v)), RankList());
    ev.params.push_back(std::move(p));
  }
  ev.compute.add(100);
  ev.duration.add(10);
  return ev;
}

FlatEvent makeFlat(std::string op, uint64_t site,
                   std::vector<std::pair<std::string, std::variant<int64_t, std::string>>> params) {
  return FlatEvent{std::move(op), site, std::move(params)};
}

size_t countNodes(const std::vector<Node> &nodes) { return count(nodes); }

} // namespace sio::rt::test
