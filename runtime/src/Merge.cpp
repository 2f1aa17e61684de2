// The binomial merge at MPI_Finalize: each rank's trace goes up a tree over
// PMPI point-to-point on a private communicator, in pieces and under the
// memory cap, and rank 0 writes the merged trace. Every rank goes through
// the protocol whatever fails on it, so that no partner waits forever.
#include "RuntimeState.h"

#include "MemoryBudget.h"
#include "compress/InterRank.h"

#include "sio/trace/Json.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace sio::rt {

using namespace sio::trace;
using namespace detail;

namespace {

/// Testing hook (docs/runtime.md, "Testing hooks"): SIO_TEST_FINALIZE_FAULT=
/// STAGE:RANK makes that rank fail at that stage of finalize (build, send,
/// recv, finish), as a failed allocation would, so the tests can check that
/// the application still ends normally.
void testFault(const State &s, const char *stage) {
  static const char *spec = std::getenv("SIO_TEST_FINALIZE_FAULT");
  if (spec == nullptr)
    return;
  const std::string want = std::string(stage) + ":" + std::to_string(s.rank);
  if (want == spec)
    throw std::runtime_error(std::string("injected fault at ") + stage + " (SIO_TEST_FINALIZE_FAULT)");
}

constexpr int kTagHead = 0x510, kTagData = 0x511, kTagGo = 0x512;

/// The trace goes up as compact JSON: first its size and the subtree's call
/// count; the parent answers whether it has room for it under the cap; if
/// so, the text follows in pieces of ~64 KiB as the writer makes them (it
/// is never held whole on this side: the size comes from a first pass
/// that only counts).
///
/// Whatever fails on this side, the parent receives exactly the bytes
/// announced (the protocol must end, or the parent waits forever in
/// MPI_Finalize): a trace that cannot be measured is sent as an empty one
/// that says why; a text that fails half-way is padded, and the parent,
/// which cannot read it, notes the merge failure and counts the calls dropped.
void sendTrace(State &s, const Trace &t, int to) {
  unsigned long long head[2] = {0, s.subtreeCalls};
  const Trace *send = &t;
  Trace stand;
  try {
    writeTraceTo([&](std::string_view piece) { head[0] += piece.size(); }, t, /*pretty=*/false);
  } catch (const std::exception &e) {
    stand.header = t.header;
    stand.header.complete = false;
    stand.header.notes.push_back("rank " + std::to_string(s.rank) + " could not send its trace: " + e.what());
    send = &stand;
    head[0] = 0;
    writeTraceTo([&](std::string_view piece) { head[0] += piece.size(); }, stand, /*pretty=*/false);
  }
  PMPI_Send(head, 2, MPI_UNSIGNED_LONG_LONG, to, kTagHead, s.mergeComm);
  int go = 0;
  PMPI_Recv(&go, 1, MPI_INT, to, kTagGo, s.mergeComm, MPI_STATUS_IGNORE);
  if (!go)
    return;
  unsigned long long sent = 0;
  auto sendPiece = [&](const char *data, size_t n) {
    // Pieces are far below INT_MAX bytes (one table entry past 64 KiB).
    PMPI_Send(data, int(n), MPI_CHAR, to, kTagData, s.mergeComm);
    sent += n;
  };
  try {
    writeTraceTo(
        [&](std::string_view piece) {
          testFault(s, "send");
          const size_t n = std::min<unsigned long long>(piece.size(), head[0] - sent);
          if (n > 0)
            sendPiece(piece.data(), n);
        },
        *send, /*pretty=*/false);
  } catch (const std::exception &e) {
    message("sio: warning: rank " + std::to_string(s.rank) + " could not send its whole trace: " + e.what());
  }
  static const std::string kPad(64 << 10, ' ');
  while (sent < head[0])
    sendPiece(kPad.data(), std::min<unsigned long long>(kPad.size(), head[0] - sent));
}

/// A child's trace, or nullopt when it does not fit under the cap next to
/// what this rank holds (`held`); `calls` and `textBytes` say what it was.
std::optional<Trace> recvTrace(State &s, int from, size_t held, uint64_t &calls, size_t &textBytes) {
  unsigned long long head[2] = {0, 0};
  PMPI_Recv(head, 2, MPI_UNSIGNED_LONG_LONG, from, kTagHead, s.mergeComm, MPI_STATUS_IGNORE);
  textBytes = size_t(head[0]);
  calls = head[1];
  int go = held + mergeInputBytes(textBytes) <= s.settings.memoryCap ? 1 : 0;
  PMPI_Send(&go, 1, MPI_INT, from, kTagGo, s.mergeComm);
  if (!go)
    return std::nullopt;
  // The child sends exactly textBytes (sendTrace); whatever fails here, all
  // of them are received before the error goes on, or the child would wait
  // forever in its MPI_Finalize.
  std::string text;
  size_t received = 0;
  std::string failure;
  try {
    testFault(s, "recv");
    text.reserve(textBytes); // exactly: no doubling
  } catch (const std::exception &e) {
    failure = e.what();
  }
  std::vector<char> discard;
  while (received < textBytes) {
    MPI_Status st;
    PMPI_Probe(from, kTagData, s.mergeComm, &st);
    int n = 0;
    PMPI_Get_count(&st, MPI_CHAR, &n);
    char *into = nullptr;
    if (failure.empty() && n > 0 && received + size_t(n) <= textBytes) {
      text.resize(received + size_t(n));
      into = text.data() + received;
    } else {
      if (failure.empty())
        failure =
            "rank " + std::to_string(from) + " sent more than the " + std::to_string(textBytes) + " bytes it announced";
      discard.resize(size_t(std::max(n, 1)));
      into = discard.data();
    }
    PMPI_Recv(into, n, MPI_CHAR, from, kTagData, s.mergeComm, MPI_STATUS_IGNORE);
    received += size_t(std::max(n, 0));
    if (n <= 0)
      break; // not the protocol: nothing more will come that counts
  }
  if (!failure.empty())
    throw std::runtime_error(failure);
  return deserializeTrace(std::move(text));
}

void finalizeMerge(State &s) {
  double t0 = nowMs();
  Trace t;
  try {
    drainAll(s); // first, so the events are counted even if the rest fails
    testFault(s, "build");
    t = buildRankTrace(s);
  } catch (const std::exception &e) {
    t = Trace();
    t.header.nranks = s.nranks;
    t.header.complete = false;
    t.header.droppedEvents = s.events + g_dropped.load();
    t.header.notes.push_back("rank " + std::to_string(s.rank) + " could not build its trace: " + e.what() +
                             "; its events were dropped");
  }
  s.subtreeCalls = s.events + g_dropped.load();
  double buildMs = nowMs() - t0;

  // Binomial tree: in round k, ranks with bit k set send to rank - 2^k and
  // stop; the others receive from rank + 2^k. ceil(log2 P) rounds.
  int rounds = 0;
  std::vector<double> roundMs;
  for (int step = 1; step < s.nranks; step <<= 1, ++rounds) {
    double r0 = nowMs();
    if (s.rank & step) {
      sendTrace(s, t, s.rank - step);
      break;
    }
    if (s.rank + step < s.nranks) {
      uint64_t calls = 0; // known once the child's head arrived, even if the merge fails
      bool counted = false;
      try {
        // What this rank holds for the merge: its trace, the merge's index
        // and id map entries for its files, the record blocks threads keep.
        const size_t held = traceHeapBytes(t) + mergeTableBytes(t.files.size()) + Q().blocks.load() * blockBytes(Q());
        size_t textBytes = 0;
        std::optional<Trace> child = recvTrace(s, s.rank + step, held, calls, textBytes);
        s.subtreeCalls += calls;
        counted = true;
        if (child) {
          t = mergeTraces(std::move(t), std::move(*child));
        } else {
          // The trace stays valid: those ranks have no events in it, and
          // the header says why.
          const int last = std::min(s.rank + 2 * step, s.nranks) - 1;
          t.header.complete = false;
          t.header.droppedEvents += calls;
          t.header.notes.push_back(
              "memory cap SIO_MEMORY_CAP=" + std::to_string(s.settings.memoryCap) + " bytes: the trace of rank" +
              (last > s.rank + step ? "s " + std::to_string(s.rank + step) + "-" + std::to_string(last)
                                    : " " + std::to_string(s.rank + step)) +
              " (" + std::to_string(calls) + " calls, " + std::to_string(textBytes) +
              " bytes of JSON) did not fit next to rank " + std::to_string(s.rank) +
              "'s in the merge; their events were dropped");
        }
      } catch (const std::exception &e) {
        t.header.complete = false;
        t.header.droppedEvents += calls; // the child's ranks are not in the trace
        if (!counted)
          s.subtreeCalls += calls;
        t.header.notes.push_back(std::string("merge failed: ") + e.what());
      }
    }
    roundMs.push_back(nowMs() - r0);
  }
  if (s.rank == 0) {
    double f0 = nowMs();
    testFault(s, "finish");
    finalizeMerged(t);
    fillSiteTables(s, t);
    t.header.nranks = s.nranks;
    t.header.metadata["merge_rounds"] = std::to_string(rounds);
    double total = 0;
    for (size_t i = 0; i < roundMs.size(); ++i) {
      char b[32];
      std::snprintf(b, sizeof b, "%.3f", roundMs[i]);
      t.header.metadata["merge_round_" + std::to_string(i) + "_ms"] = b;
      total += roundMs[i];
    }
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", total);
    t.header.metadata["merge_ms"] = b;
    std::snprintf(b, sizeof b, "%.3f", nowMs() - f0);
    t.header.metadata["finalize_ms"] = b;
    std::snprintf(b, sizeof b, "%.3f", buildMs);
    t.header.metadata["rank0_build_ms"] = b;
    const std::string path = tracePath(s);
    if (writeTrace(s, t, path, false, true))
      reportTrace(s, t, path, "trace");
  }
  if (s.settings.verbose)
    message("sio: rank " + std::to_string(s.rank) + ": " + std::to_string(s.events) + " events, " +
            std::to_string(g_dropped.load()) + " dropped");
}

} // namespace

void finalizeMpi() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (s.finished || !s.initialized || s.settings.disable || !s.mpiInitialized)
    return;
  g_active.store(false);
  g_countUnrecorded.store(true);
  s.finished = true;
  // Nothing here may end the application (an exception would leave through
  // MPI_Finalize, an extern "C" function, and terminate it), and every rank
  // must go through the merge protocol whatever failed, or its partner
  // waits forever: a rank that cannot build its trace sends an empty one
  // that says why, and rank 0 that cannot finish the trace writes none.
  try {
    finalizeMerge(s);
  } catch (const std::exception &e) {
    message(std::string("sio: warning: rank ") + std::to_string(s.rank) + ": no trace: " + e.what());
  }
  PMPI_Comm_free(&s.mergeComm);
}

} // namespace sio::rt
