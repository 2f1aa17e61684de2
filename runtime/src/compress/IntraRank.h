// On-line compression of one rank's event stream into a loop-structured trace
// body (ScalaTrace's intra-node compression, ScalaIOExtrap §2).
//
// Usage (capture): one compressor per rank (per thread that traces); feed it
// the plugin's loop markers and every intercepted call in program order, then
// call finish() at MPI_Finalize and hand the nodes to a Trace whose tables
// (sites, loops, files, datatypes, comms, infos) capture fills itself.
//
//   IntraRankCompressor c;
//   c.loopEnter(L); c.loopIter(L); c.event(ev); ...; c.loopExit(L);
//   trace.body = c.finish(rank, nranks);
//
// Loops: with markers, each instrumented loop becomes a Loop node (id = plugin
// loop id) whose parameters are exact functions of the loop indices (affine,
// or an explicit table `[..][i0]` when no affine model holds). Iterations that
// record no event are not counted (they replay as nothing). A loop whose
// iterations differ in structure is kept as consecutive Loop nodes, one per run
// of equal-structure iterations. Without markers, repeated windows of the tail
// (up to CompressorOptions::maxWindow nodes) fold into loops with id 0, and
// repeated loops nest (PRSDs).
//
// Not thread-safe: one instance per thread. Pure computation, no MPI, no I/O.
#pragma once

#include "sio/trace/Trace.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sio::rt {

struct CompressorOptions {
  /// Longest repeated window (in nodes) the marker-less detector looks for.
  size_t maxWindow = 64;
  /// Marker-less repetition detection; off keeps marker loops only.
  bool detectRepetition = true;
};

/// One intercepted call in the runtime's flat form, built without
/// allocation: what event(Event) receives, before it becomes an Event.
/// RawEvent::op and RawParam::name are compared by address before text (the
/// steady-state path remembers the address that matched): the text at an
/// address they were given must not change while the compressor lives, as
/// with string literals and static tables.
struct RawParam {
  const char *name;
  const std::string *text; ///< non-null: a text value (a file name)
  int64_t value;           ///< otherwise the integer value (no initialiser: the
                           ///< runtime fills an array of these per event)
};
struct RawEvent {
  const char *op;
  sio::trace::Layer layer = sio::trace::Layer::POSIX;
  uint64_t site = 0;
  bool inner = false;
  const RawParam *params = nullptr;
  size_t nparams = 0;
  uint64_t computeNs = 0, durationNs = 0; ///< one sample each
};

namespace detail {
struct CompressorState;
}

class IntraRankCompressor {
public:
  explicit IntraRankCompressor(CompressorOptions opts = {});
  ~IntraRankCompressor();
  IntraRankCompressor(IntraRankCompressor &&) noexcept;
  IntraRankCompressor &operator=(IntraRankCompressor &&) noexcept;

  /// Plugin loop markers (siotrace_abi.h). Tolerant: an iter of a loop that
  /// was not entered enters it; exit(id) closes every loop above id; exits of
  /// unknown loops are ignored; enter of a loop already open nests (recursion).
  void loopEnter(uint64_t loopId);
  void loopIter(uint64_t loopId);
  void loopExit(uint64_t loopId);

  /// One intercepted call. Parameter values are concrete: integer constants
  /// (Expr) or strings, each an ElasticValue with one entry (its rank list is
  /// ignored and may be empty). ev.compute and ev.duration hold one sample
  /// each. Values that index a table (see InterRank.h, tableOfParam) are ids
  /// in this rank's tables.
  void event(sio::trace::Event ev);

  /// The same call in flat form; the result is exactly that of
  /// event(Event). In a marker loop's steady state (the loop has run twice,
  /// its body is events only, every integer parameter is a constant or
  /// affine in the index) the call is checked against the prediction for the
  /// next iteration and only counted, with no Event built; anything else
  /// takes the general path.
  void event(const RawEvent &ev);

  /// Closes open loops and returns the rank's body: every node, elastic entry
  /// and loop count carries RankList::single(rank). The compressor is empty
  /// afterwards and may be reused.
  std::vector<sio::trace::Node> finish(int64_t rank, int64_t nranks);

  /// Approximate heap bytes held, for the memory cap. Cost is linear in the
  /// compressed state (small for compressible programs); call it every few
  /// thousand events, not on every call.
  size_t approxBytes() const;

  /// Events received since construction or the last finish().
  uint64_t eventCount() const;
  /// Of those, the ones the steady-state path counted without building an
  /// Event (see event(const RawEvent &)).
  uint64_t fastEventCount() const;

private:
  std::unique_ptr<detail::CompressorState> state_;
};

} // namespace sio::rt
