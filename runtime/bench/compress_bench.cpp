// Per-event cost of the intra-rank compressor and the cost of merging two
// per-rank traces of 1,000 nodes.
#include "InterRank.h"
#include "IntraRank.h"

#include <benchmark/benchmark.h>

using namespace sio::trace;

namespace {

Event writeEvent(int64_t offset) {
  Event ev;
  ev.op = "MPI_File_write_at";
  ev.layer = Layer::MPIIO;
  ev.site = 42;
  ev.params.push_back({"fh", ElasticValue(Value(Expr(0)), RankList())});
  ev.params.push_back({"offset", ElasticValue(Value(Expr(offset)), RankList())});
  ev.params.push_back({"count", ElasticValue(Value(Expr(4096)), RankList())});
  ev.compute.add(1000);
  ev.duration.add(5000);
  return ev;
}

void BM_EventInMarkerLoop(benchmark::State &state) {
  sio::rt::IntraRankCompressor c;
  c.loopEnter(1);
  int64_t k = 0;
  for (auto _ : state) {
    c.loopIter(1);
    c.event(writeEvent(4096 * k++));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventInMarkerLoop);

/// The runtime's path (convert() hands the compressor RawEvents): in a marker
/// loop's steady state each call is checked against the prediction and
/// counted, with no Event built.
/// A RawEvent of one call site over `params` (the caller varies their values).
template <size_t N>
sio::rt::RawEvent rawEvent(const char *op, Layer layer, uint64_t site, sio::rt::RawParam (&params)[N]) {
  sio::rt::RawEvent ev;
  ev.op = op;
  ev.layer = layer;
  ev.site = site;
  ev.params = params;
  ev.nparams = N;
  return ev;
}

void BM_RawEventInMarkerLoop(benchmark::State &state) {
  sio::rt::IntraRankCompressor c;
  c.loopEnter(1);
  int64_t k = 0;
  sio::rt::RawParam params[3] = {{"fh", nullptr, 0}, {"offset", nullptr, 0}, {"count", nullptr, 4096}};
  sio::rt::RawEvent ev = rawEvent("MPI_File_write_at", Layer::MPIIO, 42, params);
  ev.computeNs = 1000;
  ev.durationNs = 5000;
  for (auto _ : state) {
    c.loopIter(1);
    params[1].value = 4096 * k++;
    c.event(ev);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["fast_fraction"] = double(c.fastEventCount()) / double(c.eventCount());
}
BENCHMARK(BM_RawEventInMarkerLoop);

/// Issue 20's loop (bench/runtime-random-writes.cpp) as the runtime hands it
/// over: a marker loop whose body is one pwrite, in steady state. Params are
/// the wrapper's (fd, count, offset, result); `offset` is random (a column
/// slot: each value appended to a packed table) or affine (predicted).
/// Per item: one loopIter and one event; without `markers` (a program built
/// without the plugin) only the event, the loop being found on line.
void rawPwriteLoop(benchmark::State &state, bool randomOffset, bool markers = true) {
  sio::rt::IntraRankCompressor c;
  if (markers)
    c.loopEnter(1);
  sio::rt::RawParam params[4] = {
      {"fd", nullptr, 3}, {"count", nullptr, 1}, {"offset", nullptr, 0}, {"result", nullptr, 1}};
  sio::rt::RawEvent ev = rawEvent("pwrite", Layer::POSIX, 7, params);
  uint64_t x = 88172645463325252ull; // xorshift64, as the program
  int64_t k = 0;
  for (auto _ : state) {
    if (markers)
      c.loopIter(1);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    params[2].value = randomOffset ? static_cast<int64_t>(x % 100000) : 4096 * k++;
    ev.computeNs = 60 + (x >> 60);
    ev.durationNs = 300 + (x >> 56);
    c.event(ev);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["fast_fraction"] = double(c.fastEventCount()) / double(c.eventCount());
}
void BM_RawPwriteRandomOffset(benchmark::State &state) { rawPwriteLoop(state, true); }
BENCHMARK(BM_RawPwriteRandomOffset);
void BM_RawPwriteAffineOffset(benchmark::State &state) { rawPwriteLoop(state, false); }
BENCHMARK(BM_RawPwriteAffineOffset);
void BM_RawPwriteRandomOffsetNoMarkers(benchmark::State &state) { rawPwriteLoop(state, true, false); }
BENCHMARK(BM_RawPwriteRandomOffsetNoMarkers);
void BM_RawPwriteAffineOffsetNoMarkers(benchmark::State &state) { rawPwriteLoop(state, false, false); }
BENCHMARK(BM_RawPwriteAffineOffsetNoMarkers);

/// A loop that branches (lit-tests/runtime/Inputs/branchy.cpp `optional`):
/// each iteration writes a byte at a random offset and one in three reads
/// it back, so the loop becomes a choice run of two alternatives that share
/// their first call. Per item: one iteration (loopIter, one or two events).
void BM_RawChoiceRunWriteSometimesRead(benchmark::State &state) {
  sio::rt::IntraRankCompressor c;
  c.loopEnter(1);
  sio::rt::RawParam writeParams[4] = {
      {"fd", nullptr, 3}, {"count", nullptr, 1}, {"offset", nullptr, 0}, {"result", nullptr, 1}};
  sio::rt::RawParam readParams[4] = {
      {"fd", nullptr, 3}, {"count", nullptr, 1}, {"offset", nullptr, 0}, {"result", nullptr, 1}};
  sio::rt::RawEvent write = rawEvent("pwrite", Layer::POSIX, 7, writeParams);
  sio::rt::RawEvent read = rawEvent("pread", Layer::POSIX, 8, readParams);
  uint64_t x = 88172645463325252ull;
  for (auto _ : state) {
    c.loopIter(1);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    writeParams[2].value = readParams[2].value = static_cast<int64_t>(x % 100000);
    write.computeNs = read.computeNs = 60 + (x >> 60);
    write.durationNs = read.durationNs = 300 + (x >> 56);
    c.event(write);
    if (x / 100000 % 3 == 0)
      c.event(read);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["fast_fraction"] = double(c.fastEventCount()) / double(c.eventCount());
}
BENCHMARK(BM_RawChoiceRunWriteSometimesRead);

void BM_EventWithoutMarkers(benchmark::State &state) {
  sio::rt::IntraRankCompressor c;
  int64_t k = 0;
  for (auto _ : state)
    c.event(writeEvent(4096 * k++));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventWithoutMarkers);

/// A nest without markers (issue 15): 16 time steps of 256 cells with a gap
/// between steps, so the flat loop's offsets are a table until finish()
/// refolds them into the nest; finish() every 4096 events is included.
void BM_NestWithoutMarkers(benchmark::State &state) {
  sio::rt::IntraRankCompressor c;
  int64_t k = 0;
  bool nested = false; // the last finish() gave the 16 x 256 nest
  for (auto _ : state) {
    int64_t step = k / 256 % 16, cell = k % 256;
    c.event(writeEvent(step * (256 * 4096 + 512) + cell * 4096));
    if (++k % 4096 == 0) {
      std::vector<Node> body = c.finish(0, 1);
      nested = body.size() == 1 && body[0].isLoop() && !body[0].loop().body.empty() && body[0].loop().body[0].isLoop();
      benchmark::DoNotOptimize(body);
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nested"] = nested ? 1 : 0;
}
BENCHMARK(BM_NestWithoutMarkers);

void BM_EventNoRepetition(benchmark::State &state) {
  // Worst case for the detector: every event differs in structure.
  sio::rt::IntraRankCompressor c;
  uint64_t k = 0;
  for (auto _ : state) {
    Event ev = writeEvent(0);
    ev.site = k++;
    c.event(std::move(ev));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventNoRepetition);

Trace rankTrace(int64_t rank) {
  sio::rt::IntraRankCompressor c(sio::rt::CompressorOptions{64, false});
  for (int64_t k = 0; k < 1000; ++k) {
    Event ev = writeEvent(rank * 1000000 + k);
    ev.site = static_cast<uint64_t>(k);
    c.event(std::move(ev));
  }
  Trace t;
  t.header.nranks = 2;
  t.body = c.finish(rank, 2);
  return t;
}

void BM_Merge1000Nodes(benchmark::State &state) {
  Trace a = rankTrace(0), b = rankTrace(1);
  for (auto _ : state) {
    Trace merged = sio::rt::mergeTraces(a, b);
    benchmark::DoNotOptimize(merged.body.data());
  }
}
BENCHMARK(BM_Merge1000Nodes)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
