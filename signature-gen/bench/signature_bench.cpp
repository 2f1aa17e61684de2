// sio-signature on large compressed traces: a loop of N single reads is one
// Run however large N is (BM_FixedStrideLoop stays flat as N grows), while a
// loop whose offsets follow no model must be walked access by access
// (BM_RandomTable grows with N). BM_LuSteps is the evolving 3-d pattern,
// whose outer loop is expanded but whose inner loops are not.
#include "sio/signature/Signature.h"

#include <benchmark/benchmark.h>

#include <random>
#include <sstream>

using namespace sio::signature;
using sio::trace::Expr;
using sio::trace::Layer;
using sio::trace::Node;
using sio::trace::RankList;
using sio::trace::Trace;

namespace {

Trace base(int64_t nranks) {
  Trace t;
  t.header.nranks = nranks;
  t.files = {sio::trace::FileEntry{0, {sio::trace::FileNamePart{"data.bin", std::nullopt, 0}}}};
  sio::trace::ObjectEntry byte;
  byte.kind = "named";
  byte.name = "MPI_BYTE";
  t.datatypes = {byte};
  return t;
}

Node readAt(const Trace &t, Expr offset, Expr count) {
  sio::trace::Event ev;
  ev.op = "MPI_File_read_at";
  ev.layer = Layer::MPIIO;
  const RankList all = RankList::all(t.header.nranks);
  for (auto &[name, v] : std::vector<std::pair<std::string, Expr>>{
           {"fh", Expr(0)}, {"offset", offset}, {"count", count}, {"datatype", Expr(0)}})
    ev.params.push_back({name, sio::trace::ElasticValue(v, all)});
  return Node{all, std::move(ev)};
}

Node open(const Trace &t) {
  sio::trace::Event ev;
  ev.op = "MPI_File_open";
  ev.layer = Layer::MPIIO;
  const RankList all = RankList::all(t.header.nranks);
  ev.params.push_back({"file", sio::trace::ElasticValue(Expr(0), all)});
  ev.params.push_back({"fh", sio::trace::ElasticValue(Expr(0), all)});
  return Node{all, std::move(ev)};
}

Node loop(const Trace &t, Expr iterations, std::vector<Node> body) {
  sio::trace::Loop l;
  l.iterations = sio::trace::ElasticValue(iterations, RankList::all(t.header.nranks));
  l.body = std::move(body);
  return Node{RankList::all(t.header.nranks), std::move(l)};
}

void BM_FixedStrideLoop(benchmark::State &state) {
  Trace t = base(4);
  t.body = {open(t), loop(t, Expr(state.range(0)), {readAt(t, Expr::parse("4096*rank + 8192*i0"), Expr(4096))})};
  for (auto _ : state)
    benchmark::DoNotOptimize(analyze(t, {}));
  state.counters["accesses_per_rank"] = double(state.range(0));
}
BENCHMARK(BM_FixedStrideLoop)->Arg(1000)->Arg(1'000'000)->Arg(1'000'000'000)->Unit(benchmark::kMicrosecond);

void BM_LuSteps(benchmark::State &state) {
  Trace t = base(1);
  t.body = {open(t), loop(t, Expr(state.range(0)),
                          {readAt(t, Expr::parse("1049088 + 524544*i0"), Expr(524544)),
                           loop(t, Expr::parse("i0 + 1"),
                                {readAt(t, Expr::parse("524544 + 524544*i1"), Expr::parse("518272 - 4096*i1"))}),
                           readAt(t, Expr(0), Expr(522368))})};
  for (auto _ : state)
    benchmark::DoNotOptimize(analyze(t, {}));
  state.counters["accesses"] = double(state.range(0) * (state.range(0) + 5) / 2);
}
BENCHMARK(BM_LuSteps)->Arg(125)->Arg(1000)->Arg(10'000)->Unit(benchmark::kMillisecond);

void BM_RandomTable(benchmark::State &state) {
  std::mt19937_64 rng(1);
  std::ostringstream table;
  table << "[";
  for (int64_t i = 0; i < state.range(0); ++i)
    table << (i ? ", " : "") << (rng() % (1 << 20)) * 4096;
  table << "][i0]";
  Trace t = base(1);
  t.body = {open(t), loop(t, Expr(state.range(0)), {readAt(t, Expr::parse(table.str()), Expr(4096))})};
  for (auto _ : state)
    benchmark::DoNotOptimize(analyze(t, {}));
}
BENCHMARK(BM_RandomTable)->Arg(1000)->Arg(100'000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
