// Feeds a compressor and remembers what it was fed, for expand-and-compare.
#pragma once

#include "Expand.h"
#include "IntraRank.h"

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

} // namespace sio::rt::test
