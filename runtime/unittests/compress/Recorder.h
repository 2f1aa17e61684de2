// Feeds compressors and remembers what they were fed, for expand-and-compare.
#pragma once

#include "Expand.h"
#include "InterRank.h"
#include "IntraRank.h"

#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>
#include <vector>

namespace sio::rt::test {

struct Recorder {
  IntraRankCompressor compressor;
  std::vector<FlatEvent> fed;

  explicit Recorder(CompressorOptions opts = {}) : compressor(opts) {}
  void event(FlatEvent e) {
    fed.push_back(e);
    compressor.event(makeEvent(e));
  }
  void write(int64_t offset, uint64_t site = 1, int64_t count = 64) {
    event(makeFlat("MPI_File_write_at", site, {{"fh", 0}, {"offset", offset}, {"count", count}}));
  }
  void enter(uint64_t id) { compressor.loopEnter(id); }
  void iter(uint64_t id) { compressor.loopIter(id); }
  void exit(uint64_t id) { compressor.loopExit(id); }
};

/// Feeds one compressor Events and another RawEvents (the runtime's path)
/// with the same parameters and timing; check() fails the test if the two
/// bodies differ or do not expand to what was fed.
struct Twin {
  IntraRankCompressor viaEvent, viaRaw;
  std::vector<FlatEvent> fed;
  uint64_t clock = 0;
  std::set<std::string> interned;
  std::deque<std::string> copies;
  uint64_t addresses = 0;

  /// A name as the runtime passes it (RawParam::name, RawEvent::op): an
  /// address whose text never changes while the Twin lives, the same address
  /// for a text most of the time; every third call a fresh copy, so that
  /// matching on a new address is exercised too.
  const char *address(const std::string &text) {
    if (++addresses % 3 == 0)
      return copies.emplace_back(text).c_str();
    return interned.insert(text).first->c_str();
  }

  void event(const FlatEvent &e) {
    std::vector<const char *> names;
    for (const auto &[name, v] : e.params)
      names.push_back(address(name));
    event(e, address(e.op), names);
  }

  /// event(e) with the addresses the RawEvent carries for e's op and
  /// parameter names (the same texts).
  void event(const FlatEvent &e, const char *op, const std::vector<const char *> &names) {
    fed.push_back(e);
    const uint64_t compute = 50 + clock % 7 * 100, duration = 5 + clock % 3;
    ++clock;
    sio::trace::Event ev = makeEvent(e);
    ev.compute = sio::trace::TimingStats();
    ev.duration = sio::trace::TimingStats();
    ev.compute.add(compute);
    ev.duration.add(duration);
    viaEvent.event(std::move(ev));

    std::vector<RawParam> params;
    for (const auto &[name, v] : e.params) {
      RawParam p{names[params.size()], nullptr, 0};
      if (const int64_t *i = std::get_if<int64_t>(&v))
        p.value = *i;
      else
        p.text = &std::get<std::string>(v);
      params.push_back(p);
    }
    RawEvent raw;
    raw.op = op;
    raw.layer = sio::trace::Layer::MPIIO;
    raw.site = e.site;
    raw.params = params.data();
    raw.nparams = params.size();
    raw.computeNs = compute;
    raw.durationNs = duration;
    viaRaw.event(raw);
  }
  void enter(uint64_t id) { viaEvent.loopEnter(id), viaRaw.loopEnter(id); }
  void iter(uint64_t id) { viaEvent.loopIter(id), viaRaw.loopIter(id); }
  void exit(uint64_t id) { viaEvent.loopExit(id), viaRaw.loopExit(id); }

  /// The body (the RawEvent compressor's), after checking both agree.
  std::vector<sio::trace::Node> check(const std::string &what) {
    EXPECT_EQ(viaRaw.eventCount(), viaEvent.eventCount()) << what;
    auto a = viaEvent.finish(0, 1), b = viaRaw.finish(0, 1);
    EXPECT_EQ(a, b) << what;
    EXPECT_EQ(expandNodes(b, 0, 1), fed) << what;
    return b;
  }
};

/// Merges one trace per rank (in rank order) as rank 0 does and checks that
/// every rank of the merged trace expands to what it was fed.
inline void expectMergedExpandsToFed(const std::vector<sio::trace::Trace> &traces,
                                     const std::vector<std::vector<FlatEvent>> &fed, const std::string &what) {
  sio::trace::Trace merged = traces[0];
  for (size_t r = 1; r < traces.size(); ++r)
    merged = mergeTraces(std::move(merged), traces[r]);
  finalizeMerged(merged);
  for (size_t r = 0; r < traces.size(); ++r)
    ASSERT_EQ(expandRank(merged, static_cast<int64_t>(r)), fed[r]) << what << " merged rank " << r;
}

} // namespace sio::rt::test
