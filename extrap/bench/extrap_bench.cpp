// Extrapolation cost against the target rank count: the output size and the
// work are independent of N (docs/extrap.md quotes these numbers).
#include "sio/extrap/Extrapolate.h"
#include "sio/trace/Json.h"

#include <benchmark/benchmark.h>

using namespace sio::trace;

namespace {

Trace strongTrace(int64_t n) {
  Trace t;
  t.header.program = "strong";
  t.header.nranks = n;
  t.files.push_back({0, {FileNamePart{"out_", std::nullopt, 0}, FileNamePart{"", Expr::rank(), 5}}});
  RankList all = RankList::all(n);
  for (int k = 0; k < 50; ++k) { // 50 loops of two events: a mid-sized trace
    Loop l;
    l.id = 100 + k;
    l.iterations = ElasticValue(Value(Expr(10)), all); // weak scaling: exact at any N
    for (int e = 0; e < 2; ++e) {
      Event ev;
      ev.op = e ? "MPI_File_read_at" : "MPI_File_write_at";
      ev.layer = Layer::MPIIO;
      ev.site = 1000 + 2 * k + e;
      ev.params = {{"fh", ElasticValue(Value(Expr(0)), all)},
                   {"offset", ElasticValue(Value(Expr(4096) * Expr::rank() + Expr(4096 * n) * Expr::loopIndex(0)), all)},
                   {"count", ElasticValue(Value(Expr(4096)), all)}};
      ev.duration.add(1000 + 10 * n);
      l.body.push_back(Node{all, ev});
    }
    t.body.push_back(Node{all, l});
  }
  Event last;
  last.op = "MPI_File_close";
  last.layer = Layer::MPIIO;
  t.body.push_back(Node{RankList::single(n - 1), last});
  return t;
}

void BM_Extrapolate(benchmark::State &state) {
  std::vector<Trace> in = {strongTrace(4), strongTrace(8), strongTrace(12), strongTrace(16)};
  sio::extrap::ExtrapOptions o;
  o.targetRanks = state.range(0);
  size_t bytes = 0;
  for (auto _ : state) {
    Trace x = sio::extrap::extrapolate(in, o);
    benchmark::DoNotOptimize(x);
    state.PauseTiming();
    bytes = writeTraceString(x).size();
    state.ResumeTiming();
  }
  state.counters["output_bytes"] = double(bytes);
}

} // namespace

BENCHMARK(BM_Extrapolate)->Arg(64)->Arg(1024)->Arg(1048576)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
