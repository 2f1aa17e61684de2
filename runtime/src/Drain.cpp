// The drain side of the per-thread record blocks: blocks taken and given
// back, the records of all threads converted in the rank's sequence order
// into the IntraRankCompressor (by the thread whose block filled, or by the
// drain thread), and the memory cap checked as they are. The calling side
// (appending records) is inline in Runtime.h.
#include "RuntimeState.h"

#include "Signals.h"
#include "WriterProcess.h"

#include <chrono>
#include <csignal>
#include <ctime>
#include <pthread.h>
#include <thread>

namespace sio::rt {

using namespace detail;

namespace {

constexpr uint64_t kMaxQueued = 16; // blocks a thread may have unconverted before it converts itself

void convert(State &s, ThreadBuffer *b, const Record &r) {
  if (r.iter)
    s.comp.loopIter(r.iter);
  switch (r.kind) {
  case RecKind::LoopEnter:
    s.comp.loopEnter(r.id);
    return;
  case RecKind::LoopExit:
    s.comp.loopExit(r.id);
    return;
  case RecKind::Void:
    return;
  case RecKind::Event:
    break;
  }
  const CallInfo &ci = kCallInfo[r.call];
  RawParam params[kMaxSlots]; // the first r.nslots are filled
  for (int i = 0; i < r.nslots; ++i)
    params[i] = {r.slots[i].name, nullptr, r.slots[i].value};
  for (unsigned mask = r.strMask; mask; mask &= mask - 1) { // text slots (file names, modes): rare
    int i = __builtin_ctz(mask);
    int64_t id = r.slots[i].value;
    static const std::string kNoString;
    params[i].text = id >= 0 && size_t(id) < s.strings.size() ? &s.strings[size_t(id)] : &kNoString;
  }
  RawEvent ev;
  ev.op = ci.op;
  ev.layer = ci.layer;
  ev.site = r.id;
  ev.inner = r.inner != 0;
  ev.params = params;
  ev.nparams = r.nslots;
  // Compute time: since the previous event of this thread, or since MPI_Init
  // returned if that is later; inner events count from the start of their
  // MPI-IO call or the previous inner event.
  uint64_t &ref = r.inner ? b->lastInnerRef : b->lastEnd;
  if (ref == 0)
    ref = s.startTicks;
  if (s.mpiInitEndTicks && ref < s.mpiInitEndTicks && r.t0 >= s.mpiInitEndTicks)
    ref = s.mpiInitEndTicks;
  const double nsPerTick = s.nsPerTick;
  ev.computeNs = r.t0 > ref ? uint64_t(double(r.t0 - ref) * nsPerTick) : 0;
  ev.durationNs = r.t1 > r.t0 ? uint64_t(double(r.t1 - r.t0) * nsPerTick) : 0;
  if (r.inner) {
    ref = r.t1;
  } else {
    b->lastEnd = r.t1;
    b->lastInnerRef = r.t0;
  }
  s.comp.event(ev);
  ++s.events;
}

/// The memory the cap counts while the rank traces: compressor state,
/// record blocks, the file and string tables, and what the file table will
/// take at finalize (reserved now, so that finalize fits too).
size_t heldBytes(State &s) {
  size_t b = s.comp.approxBytes() + Q().blocks.load(std::memory_order_relaxed) * blockBytes(Q()) +
             s.fileBytes.heldBytes() + s.fileBytes.finalizeBytes() + s.stringBytes.heldBytes();
  // Heap fragmentation: the tables freed at finalize leave holes the trace
  // does not fill exactly (measured: up to ~1/10 of the heap in RSS).
  return b + b / 8;
}

/// A block for a thread's stream: from the free list, or new.
Block *takeBlock(DrainQueue &q) {
  {
    std::lock_guard lk(q.mu);
    if (!q.freeBlocks.empty()) {
      Block *b = q.freeBlocks.back();
      q.freeBlocks.pop_back();
      b->next.store(nullptr, std::memory_order_relaxed);
      return b;
    }
  }
  void *mem = std::aligned_alloc(64, blockBytes(q));
  if (!mem)
    return nullptr;
  q.blocks.fetch_add(1, std::memory_order_relaxed);
  return new (mem) Block;
}

void recycle(DrainQueue &q, Block *block) {
  std::lock_guard lk(q.mu);
  q.freeBlocks.push_back(block);
}

/// The record at the drain side's position in b's stream, moving on to the
/// next block (and giving the finished one back) at a block's end. The
/// caller checked that the position is below `published`.
Record *headRecord(DrainQueue &q, ThreadBuffer *b) {
  uint64_t off = b->consumed - b->rdBlock->base;
  if (off == q.blockRecords) {
    // Published past this block's end: the thread linked the next one first.
    Block *nx = b->rdBlock->next.load(std::memory_order_acquire);
    recycle(q, b->rdBlock);
    b->recycled.fetch_add(1, std::memory_order_relaxed);
    b->rdBlock = nx;
    off = 0;
  }
  return b->rdBlock->records() + off;
}

/// Converts the call at b's position and the inner events that follow it,
/// then b's next calls for as long as each is the rank's next in sequence
/// order (every call of a rank that records on one thread), without going
/// back to the search over all threads' buffers.
void convertRun(State &s, DrainQueue &q, ThreadBuffer *b) {
  Record *h = headRecord(q, b);
  while (true) {
    uint64_t seq = h->seq;
    convert(s, b, *h);
    ++b->consumed;
    Record *next = nullptr;
    while (b->consumed < b->seen) {
      Record *r = headRecord(q, b);
      if ((r->kind != RecKind::Event && r->kind != RecKind::Void) || !r->inner) {
        next = r;
        break;
      }
      convert(s, b, *r);
      ++b->consumed;
    }
    if (seq >= s.nextSeq)
      s.nextSeq = seq + 1;
    if (++s.convertedSinceCapCheck >= q.blockRecords || g_dropping.load(std::memory_order_relaxed)) {
      s.convertedSinceCapCheck = 0;
      checkCap(s);
    }
    writerProgress(); // a partial trace's conversion moves on (WriterProcess.h)
    if (!next || next->open || next->seq > s.nextSeq)
      return;
    h = next;
  }
}

/// Converts what all threads have published, in the rank's sequence order:
/// the call holding the next number, wherever it is (calls that published
/// after a later one, which only a signal handler interrupting a call can
/// cause, right away). A number taken by a call that has not published yet
/// is waited for: by the drain thread for up to a second (it comes back
/// later), at the end (`final`) up to ~200 ms in all; then it is skipped
/// and counted. False if stopped at such a gap. Caller holds State::mu.
bool convertPublished(State &s, bool final) {
  DrainQueue &q = Q();
  ThreadBuffer *last = nullptr;
  while (true) {
    ThreadBuffer *hit = nullptr;
    uint64_t minSeq = UINT64_MAX;
    bool any = false;
    auto consider = [&](ThreadBuffer *b) {
      // `published` is read only when what was seen of it is used up: each
      // read pulls the cache line from the writing thread.
      if (b->consumed >= b->seen && b->consumed >= (b->seen = b->published.load(std::memory_order_acquire)))
        return false;
      Record *h = headRecord(q, b);
      if (h->open)
        return false; // interrupted by a signal whose handler's call published
      any = true;
      if (h->seq <= s.nextSeq) {
        hit = b;
        return true;
      }
      minSeq = std::min(minSeq, h->seq);
      return false;
    };
    if (!last || !consider(last))
      for (ThreadBuffer *b = s.buffers; b && !hit; b = b->next)
        if (b != last)
          consider(b);
    if (hit) {
      convertRun(s, q, hit);
      last = hit;
      continue;
    }
    if (!any)
      return true;
    if (final) {
      if (s.finalWaits < 200) {
        ++s.finalWaits;
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, nullptr);
        continue;
      }
    } else {
      double now = nowMs();
      if (s.gapSeq != s.nextSeq) {
        s.gapSeq = s.nextSeq;
        s.gapSinceMs = now;
      }
      if (now - s.gapSinceMs < 1000)
        return false;
    }
    s.gapsSkipped += minSeq - s.nextSeq;
    s.nextSeq = minSeq;
  }
}

void drainThreadMain() {
  ++tls.blocked; // nothing this thread does is the application's
  // A process-directed SIGTERM must reach a thread that can write the
  // partial trace: on this one (blocked) the handler would skip it.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  State &s = S();
  DrainQueue &q = Q();
  bool stalled = false;
  while (true) {
    {
      std::unique_lock lk(q.mu);
      if (stalled)
        q.cv.wait_for(lk, std::chrono::milliseconds(1), [&] { return q.filled > 0; });
      else
        q.cv.wait(lk, [&] { return q.filled > 0; });
      q.filled = 0;
    }
    std::lock_guard lk(s.mu);
    stalled = !s.finished && !convertPublished(s, false);
  }
}

} // namespace

namespace detail {

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void checkCap(State &s) {
  if (g_dropping.load())
    return;
  if (heldBytes(s) > s.settings.memoryCap) {
    g_dropping.store(true);
    s.capNotes.push_back("memory cap SIO_MEMORY_CAP=" + std::to_string(s.settings.memoryCap) + " bytes reached after " +
                         std::to_string(s.events) + " events on rank " + std::to_string(s.rank) +
                         " (file table: " + std::to_string(s.fileBytes.entries()) + " names, string table: " +
                         std::to_string(s.stringBytes.entries()) + "); later events were dropped");
  }
}

/// Gives the blocks no thread uses back to the system (at finalize: a thread
/// that calls on starts a block of its own).
void freeSpareBlocks(DrainQueue &q) {
  std::lock_guard lk(q.mu);
  for (Block *b : q.freeBlocks) {
    b->~Block();
    std::free(b);
  }
  q.blocks.fetch_sub(q.freeBlocks.size(), std::memory_order_relaxed);
  std::vector<Block *>().swap(q.freeBlocks);
}

void drainAll(State &s) { convertPublished(s, true); }

} // namespace detail

ThreadBuffer *createThreadBuffer() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  auto *b = new ThreadBuffer;
  if (Block *first = takeBlock(Q())) {
    b->block = b->rdBlock = first;
    first->base = 0;
    b->begin = b->cur = first->records();
    b->end = b->begin + Q().blockRecords;
    b->linked = 1;
  }
  if (s.buffers)
    g_manyThreads.store(true);
  b->next = s.buffers;
  s.buffers = b;
  return b;
}

namespace {

void linkNextBlock(ThreadBuffer *b) {
  State &s = S();
  DrainQueue &q = Q();
  Blocked blk;
  if (s.finished) {
    b->cur = b->begin; // events after the end are dropped silently
    return;
  }
  if (!b->block) {
    std::lock_guard lk(s.mu); // the first block could not be had: the drain side reads rdBlock
    if (Block *first = takeBlock(q)) {
      first->base = 0;
      b->block = b->rdBlock = first;
      b->begin = b->cur = first->records();
      b->end = b->begin + q.blockRecords;
      b->linked = 1;
    }
    return;
  }
  Block *fresh = takeBlock(q);
  if (!fresh)
    return; // no memory: this call is not recorded
  fresh->base = b->base + q.blockRecords;
  b->block->next.store(fresh, std::memory_order_release);
  b->block = fresh;
  b->base = fresh->base;
  b->begin = b->cur = fresh->records();
  b->end = b->begin + q.blockRecords;
  ++b->linked;
  bool tooMany = b->linked - b->recycled.load(std::memory_order_relaxed) > kMaxQueued;
  if (!s.settings.drainThread || tooMany) {
    // No drain thread (the default), or it falls behind: convert here, which
    // keeps memory bounded.
    std::lock_guard lk(s.mu);
    if (!s.finished)
      convertPublished(s, false);
    return;
  }
  bool start = false;
  {
    std::lock_guard lk(q.mu);
    ++q.filled;
    start = !q.started;
    q.started = true;
  }
  if (start) {
    // Started on first need: processes that trace little never get a thread.
    try {
      std::thread(drainThreadMain).detach();
    } catch (...) {
      s.settings.drainThread = false;
    }
  }
  q.cv.notify_one();
}

} // namespace

void nextBlock(ThreadBuffer *b) {
  // Converting here, or waiting for the lock while the drain thread does, can
  // take milliseconds: a SIGTERM landing then waits for the end (onSignal).
  ++tls.converting;
  linkNextBlock(b);
  --tls.converting;
  // A signal that landed during the batch (onSignal): handled now, outside
  // the runtime's lock, as if it had arrived here.
  if (tls.deferredSignal)
    handleHeldSignal();
}

void drainPublished() {
  State &s = S();
  Blocked blk;
  std::lock_guard lk(s.mu);
  if (!s.finished)
    drainAll(s);
}

} // namespace sio::rt
