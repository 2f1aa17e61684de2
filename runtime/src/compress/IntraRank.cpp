#include "IntraRank.h"

#include "ExprUtil.h"
#include "FastPaths.h"
#include "Folder.h"
#include "Sequence.h"
#include "Structure.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace sio::rt {
namespace detail {

using namespace sio::trace;

// While a rank's trace is built, loop index atoms are *relative*: i0 is the
// innermost loop around the value, i1 the next one out, and so on. Wrapping a
// window of nodes into a new loop then never rewrites the values inside it;
// finish() renames them once to the absolute form of the trace (i0 outermost).
//
// The parts: SequenceFitter.h and ValueFitter.h fit one value over a loop's
// iterations, Folder.h samples a loop's body into them, Nests.cpp refolds a
// flat loop into the nest it follows, Sequence.h folds repeated windows, and
// FastPaths.h holds the steady-state paths. This file is the state machine
// that drives them from the plugin's loop markers and the intercepted calls.

/// The Event a RawEvent stands for (one entry per value, one timing sample).
Event toEvent(const RawEvent &raw) {
  Event ev;
  ev.op = raw.op;
  ev.layer = raw.layer;
  ev.site = raw.site;
  ev.inner = raw.inner;
  ev.params.reserve(raw.nparams);
  for (size_t i = 0; i < raw.nparams; ++i) {
    const RawParam &p = raw.params[i];
    Value v = p.text ? Value(*p.text) : Value(Expr(p.value));
    ev.params.push_back(Param{p.name, ElasticValue(std::move(v), RankList())});
  }
  ev.compute.add(raw.computeNs);
  ev.duration.add(raw.durationNs);
  return ev;
}

/// An instrumented loop being recorded (or the root, the program itself).
struct Frame {
  uint64_t loopId = 0;
  bool isRoot = false;
  bool inIteration = false; ///< false before the first iter marker
  Sequence iteration;       ///< the current iteration's nodes (root: the program)
  std::optional<Node> run;  ///< equal-structure iterations folded so far
  std::unique_ptr<Folder> runFolder;
  uint64_t runHash = 0;
  /// Retry on a sample: when the run reaches this many iterations, a run
  /// whose stored (tabled) values have turned regular again is split there,
  /// so that the rest compresses to a model; the next retry is at twice the
  /// iterations (exponential back-off: no model search in between).
  static constexpr uint64_t kFirstRetry = 256;
  uint64_t retryAt = kFirstRetry;
  FastPath fast;
  ChoicePath choiceFast;

  /// A choice run (CompressorState::endIteration) when not empty: the run's
  /// body holds one guard loop per alternative, in the order of guardHash.
  struct Alternative {
    std::vector<uint64_t> hashes; ///< of the alternative's nodes
    uint64_t guardHash = 0;       ///< of its guard loop
    size_t slots = 0;             ///< value slots of the alternative (the guard's count not included)
  };
  std::vector<Alternative> alts;
  /// Runs that start at a change of structure are choice runs: set when this
  /// execution's runs left more nodes below than its repetition detection can
  /// fold, and for every later execution of the loop.
  bool choice = false;
  int64_t nodesLeft = 0; ///< net nodes this execution's runs added to the sequence below

  /// The fast path may commit the current iteration: no retry is due.
  bool mayCommitFast() const { return runFolder && runFolder->iterations < retryAt; }
};

namespace {

/// Whether every stored slot of the folder (an integer slot whose values
/// went to a table) has its last samples and this iteration's value equally
/// spaced, and there is at least one such slot.
bool tailTurnedRegular(Folder &folder, std::vector<Node> &iteration) {
  size_t slot = 0;
  bool any = false, regular = true;
  auto onValue = [&](Value &v, uint32_t, DegenerateMask) {
    SequenceFitter *column = folder.values[slot++].columnSlot();
    if (!column || !regular)
      return;
    any = true;
    const Expr *e = std::get_if<Expr>(&v);
    std::optional<int64_t> c = e ? e->constantValue() : std::nullopt;
    regular = c && column->table()->tailFits(*c);
  };
  auto onEvent = [](Event &) {};
  visitSlots(iteration, 0, 0, onValue, onEvent);
  return any && regular;
}

} // namespace

struct CompressorState {
  CompressorOptions opts;
  std::vector<Frame> frames;
  uint64_t events = 0;
  uint64_t fastEvents = 0;

  explicit CompressorState(CompressorOptions o) : opts(o) { reset(); }

  void reset() {
    choiceLoops.clear();
    frames.clear();
    frames.emplace_back();
    frames.back().isRoot = true;
    frames.back().inIteration = true;
  }

  /// Where a node produced at frame `below` (exclusive) goes: the nearest
  /// frame under it that is inside an iteration. Calls made between a loop's
  /// enter and its first iteration (a loop condition) precede the loop.
  Sequence &targetBelow(size_t below) {
    for (size_t k = below; k-- > 0;)
      if (frames[k].inIteration)
        return frames[k].iteration;
    return frames[0].iteration;
  }

  void append(Node node) {
    uint64_t hash = structureHash(node);
    targetBelow(frames.size()).append(std::move(node), hash, opts);
  }

  std::optional<size_t> findFrame(uint64_t loopId) const {
    for (size_t k = frames.size(); k-- > 1;)
      if (frames[k].loopId == loopId)
        return k;
    return std::nullopt;
  }

  /// Loops whose runs became choice runs in an earlier execution.
  std::set<uint64_t> choiceLoops;

  void flushRun(size_t k) {
    Frame &f = frames[k];
    if (!f.run)
      return;
    materialize(f.run->loop(), *f.runFolder);
    Node node = std::move(*f.run);
    f.run.reset();
    f.runFolder.reset();
    f.alts.clear();
    Sequence &below = targetBelow(k);
    const size_t before = below.nodes.size();
    below.append(std::move(node), f.runHash, opts);
    // Repetition detection folds a pattern of p runs once it has seen it
    // twice, leaving at most ~2p nodes: more than that, and the runs follow
    // no pattern of up to kChoiceAfterNodes / 2 runs (periodic branches, a
    // checkpoint every k iterations, fold long before).
    f.nodesLeft += static_cast<int64_t>(below.nodes.size()) - static_cast<int64_t>(before);
    if (!f.choice && !f.isRoot && f.nodesLeft > choiceAfterNodes()) {
      f.choice = true;
      choiceLoops.insert(f.loopId);
    }
  }

  /// Folds the current iteration into the loop's current run, or starts a new
  /// run when its structure differs. Empty iterations are not counted.
  ///
  /// Iterations whose structure changes with the data (a branch inside the
  /// loop: read or write, write and sometimes a read back) make runs of one
  /// or two iterations, each a node below. Once they outgrow what repetition
  /// detection can fold (Frame::choice), a change of structure starts a
  /// *choice run* instead: its body has one guard loop per alternative
  /// structure (up to kMaxAlternatives), which runs once in the iterations
  /// that took it and not at all in the others, so an iteration costs a bit
  /// per alternative in the guards' trip counts (packed tables) and the
  /// values of the calls it made.
  void endIteration(size_t k) {
    Frame &f = frames[k];
    if (f.iteration.empty())
      return;
    // The common case, an iteration like the previous ones, samples the
    // iteration in place so that its vectors keep their capacity.
    f.iteration.materializeAll();
    std::vector<Node> &nodes = f.iteration.nodes;
    if (f.run && !f.alts.empty()) {
      const ChoiceSample sampled = sampleChoice(f, nodes);
      if (sampled == ChoiceSample::Taken) {
        f.iteration.clear();
        return;
      }
      if (sampled == ChoiceSample::NewStructure && f.alts.size() < kMaxAlternatives) {
        std::vector<uint64_t> hashes = f.iteration.hashes;
        addAlternative(f, std::move(hashes), f.iteration.take());
        return;
      }
    } else if (f.run &&
               std::equal(f.iteration.hashes.begin(), f.iteration.hashes.end(), f.runFolder->bodyHashes.begin(),
                          f.runFolder->bodyHashes.end()) &&
               sameStructure(std::span<const Node>(f.run->loop().body), std::span<const Node>(nodes)) &&
               accepts(*f.runFolder, nodes) && !retrySplits(f, nodes)) {
      sampleIteration(*f.runFolder, f.run->loop().body, nodes);
      f.iteration.clear();
      return;
    }
    std::vector<uint64_t> hashes = f.iteration.hashes;
    std::vector<Node> body = f.iteration.take();
    const bool changed = f.run.has_value();
    flushRun(k);
    Frame &g = frames[k]; // flushRun does not reallocate frames, but be explicit
    if (g.choice && changed) {
      startChoice(g, std::move(hashes), std::move(body));
      return;
    }
    g.runHash = loopHash(g.loopId, hashes);
    g.retryAt = Frame::kFirstRetry;
    Loop loop;
    loop.id = g.loopId;
    loop.iterations = ElasticValue(Value(Expr(1)), RankList());
    loop.body = std::move(body);
    g.runFolder = startFolder(loop.body, std::move(hashes));
    g.run = Node{RankList(), std::move(loop)};
  }

  // --- Choice runs (see endIteration) ---

  static constexpr size_t kMaxAlternatives = 16;
  static constexpr int64_t kChoiceAfterExecutionLeft = 16;
  /// Nodes an execution's runs may leave below before its later runs become
  /// choice runs: patterns of up to 16 runs (or maxWindow, if smaller) fold
  /// first.
  int64_t choiceAfterNodes() const { return 2 * static_cast<int64_t>(std::min<size_t>(opts.maxWindow, 16)); }
  /// Where an alternative's body is in the run's folder: under its guard's
  /// trip count, one loop deep, the guard having run once.
  static SlotRange alternativeSlots(size_t guardSlot) { return {guardSlot + 1, 1, 1}; }

  static bool isAlternative(const Frame &f, size_t a, const std::vector<uint64_t> &hashes, std::vector<Node> &nodes) {
    return f.alts[a].hashes == hashes &&
           sameStructure(std::span<const Node>(f.run->loop().body[a].loop().body), std::span<const Node>(nodes));
  }

  /// One iteration's guard samples: 1 for alternative `taken` (none when
  /// taken >= alts), 0 and free values for every other.
  static void sampleGuards(Frame &f, size_t taken) {
    Folder &folder = *f.runFolder;
    for (size_t a = 0, slot = 0; a < f.alts.size(); slot += 1 + f.alts[a++].slots) {
      folder.values[slot].add(Value(Expr(a == taken ? 1 : 0)), 0);
      if (a != taken)
        for (size_t s = 1; s <= f.alts[a].slots; ++s)
          folder.values[slot + s].addFree(1);
    }
  }

  enum class ChoiceSample {
    Taken,        ///< sampled into the alternative of its structure
    Refused,      ///< that alternative cannot take its values
    NewStructure, ///< no alternative has its structure
  };

  /// Samples the iteration into the choice run when one of its alternatives
  /// has its structure and takes its values.
  static ChoiceSample sampleChoice(Frame &f, std::vector<Node> &nodes) {
    Folder &folder = *f.runFolder;
    for (size_t a = 0, slot = 0; a < f.alts.size(); slot += 1 + f.alts[a++].slots) {
      if (!isAlternative(f, a, f.iteration.hashes, nodes))
        continue;
      if (!accepts(folder, nodes, alternativeSlots(slot)))
        return ChoiceSample::Refused; // alternatives differ in structure: no other has it
      sampleGuards(f, a);
      sampleSlots(folder, f.run->loop().body[a].loop().body, nodes, alternativeSlots(slot));
      ++folder.iterations;
      return ChoiceSample::Taken;
    }
    return ChoiceSample::NewStructure;
  }

  static Node guardLoop(std::vector<Node> body) {
    Loop guard; // id 0: a loop the runtime made, not the program
    guard.iterations = ElasticValue(Value(Expr(1)), RankList());
    guard.body = std::move(body);
    return Node{RankList(), std::move(guard)};
  }

  /// The run's hash and its folder's body hashes after a change of guards.
  static void rehashChoice(Frame &f) {
    std::vector<uint64_t> guardHashes;
    for (const Frame::Alternative &alt : f.alts)
      guardHashes.push_back(alt.guardHash);
    f.runHash = loopHash(f.loopId, guardHashes);
    f.runFolder->bodyHashes = std::move(guardHashes);
  }

  /// A choice run whose first iteration is `body`.
  static void startChoice(Frame &g, std::vector<uint64_t> hashes, std::vector<Node> body) {
    const uint64_t guardHash = loopHash(0, hashes);
    Loop loop;
    loop.id = g.loopId;
    loop.iterations = ElasticValue(Value(Expr(1)), RankList());
    loop.body.push_back(guardLoop(std::move(body)));
    g.runFolder = startFolder(loop.body, {guardHash});
    g.alts = {Frame::Alternative{std::move(hashes), guardHash, g.runFolder->values.size() - 1}};
    g.run = Node{RankList(), std::move(loop)};
    rehashChoice(g);
  }

  /// A new alternative, taken by this iteration (`body`) for the first time:
  /// its guard ran 0 times in the earlier iterations, its values are free there.
  static void addAlternative(Frame &f, std::vector<uint64_t> hashes, std::vector<Node> body) {
    Folder &folder = *f.runFolder;
    const uint64_t before = folder.iterations;
    sampleGuards(f, f.alts.size());
    std::vector<ValueFitter> fitters;
    fitters.emplace_back(0);
    fitters.back().addZeros(before);
    fitters.back().add(Value(Expr(1)), 0);
    auto onValue = [&](Value &v, uint32_t nesting, DegenerateMask mask) {
      fitters.emplace_back(nesting);
      fitters.back().addFree(before);
      fitters.back().add(v, mask);
    };
    auto onEvent = [](Event &) {};
    const SlotRange under = alternativeSlots(0);
    visitSlots(body, under.nesting, under.mask, onValue, onEvent);
    // Guards in the order of their hashes, so that ranks that took the same
    // alternatives in another order have runs of the same structure.
    const uint64_t guardHash = loopHash(0, hashes);
    size_t at = 0, slot = 0;
    while (at < f.alts.size() && f.alts[at].guardHash <= guardHash)
      slot += 1 + f.alts[at++].slots;
    folder.values.insert(folder.values.begin() + static_cast<std::ptrdiff_t>(slot),
                         std::make_move_iterator(fitters.begin()), std::make_move_iterator(fitters.end()));
    std::vector<Node> &guards = f.run->loop().body;
    guards.insert(guards.begin() + static_cast<std::ptrdiff_t>(at), guardLoop(std::move(body)));
    f.alts.insert(f.alts.begin() + static_cast<std::ptrdiff_t>(at),
                  Frame::Alternative{std::move(hashes), guardHash, fitters.size() - 1});
    rehashChoice(f);
    ++folder.iterations;
  }

  /// At a retry point of the run (Frame::retryAt): whether the iteration
  /// starts a new run because the stored values turned regular.
  static bool retrySplits(Frame &f, std::vector<Node> &nodes) {
    if (f.runFolder->iterations < f.retryAt)
      return false;
    f.retryAt = 2 * f.runFolder->iterations;
    return tailTurnedRegular(*f.runFolder, nodes);
  }

  // --- Steady-state fast path (see FastPath) ---

  /// Arms the top frame after an iteration when its run is in steady state.
  void tryArm() {
    Frame &f = frames.back();
    disarm(f.fast);
    if (!f.alts.empty()) {
      tryArmChoice();
      return;
    }
    if (f.isRoot || !f.inIteration || !f.run || !f.runFolder || f.runFolder->iterations < 2 ||
        !f.iteration.empty())
      return;
    arm(f.fast, f.run->loop().body, *f.runFolder, false);
  }

  /// Arms the top frame after a call of the general path when its iteration
  /// ends with a marker-less loop that the next calls can only extend.
  void tryArmOpen() {
    Frame &f = frames.back();
    Sequence &seq = f.iteration;
    if (f.fast.armed || !f.inIteration || seq.empty() || !seq.open.back() || !seq.appendsOnlyExtendLast(opts.maxWindow))
      return;
    arm(f.fast, seq.nodes.back().loop().body, *seq.open.back(), true);
  }

  /// The path over `body` (events only, else not armed) and its folder.
  void arm(FastPath &fp, std::vector<Node> &body, Folder &folder, bool open) {
    fp.calls.clear();
    fp.slots.clear();
    fp.moving.clear();
    size_t slot = 0;
    for (Node &n : body) {
      if (!n.isEvent())
        return;
      Event &e = n.event();
      // The templates' own buffers as the first `seen` addresses: never null
      // (a null would match a null name), and replayFast passes them.
      fp.calls.push_back({&e, fp.slots.size(), e.op.c_str()});
      for (Param &p : e.params) {
        ValueFitter &vf = folder.values[slot++];
        FastPath::Slot s{&vf, &p.name, p.name.c_str(), vf.text(), 0, 0, nullptr, nullptr};
        if (s.text || vf.predictNext(s.next, s.step))
          s.line = vf.predictedLine();
        else if (!(s.column = vf.columnSlot()))
          return;
        if (s.column || s.step != 0)
          fp.moving.push_back(fp.slots.size());
        fp.slots.push_back(s);
      }
    }
    if (fp.calls.empty())
      return;
    fp.timings.resize(fp.calls.size());
    fp.matched = 0;
    fp.open = open;
    fp.folder = &folder;
    fp.armed = true;
  }

  bool matchFast(FastPath &fp, const RawEvent &e) {
    if (fp.matched == fp.calls.size())
      return false; // a call more than the iteration has
    FastPath::Call &c = fp.calls[fp.matched];
    const Event &t = *c.templ;
    if (e.site != t.site || e.layer != t.layer || e.inner != t.inner || e.nparams != t.params.size() ||
        !sameName(t.op, e.op, c.opSeen))
      return false;
    for (size_t i = 0; i < e.nparams; ++i) {
      FastPath::Slot &s = fp.slots[c.firstSlot + i];
      const RawParam &p = e.params[i];
      if (!sameName(*s.name, p.name, s.nameSeen))
        return false;
      if (s.column) {
        if (p.text)
          return false;
        // Taken before the whole call matched: harmless, since a call that
        // does not match is never committed nor replayed from its slots.
        s.next = p.value;
      } else if (s.text ? !p.text || *p.text != *s.text : p.text || p.value != s.next) {
        return false;
      }
    }
    fp.timings[fp.matched++] = {e.computeNs, e.durationNs};
    return true;
  }

  /// The iteration matched in full: what sampleIteration would do.
  void commitFast(FastPath &fp) {
    for (size_t j = 0; j < fp.calls.size(); ++j) {
      fp.calls[j].templ->compute.add(fp.timings[j].first);
      fp.calls[j].templ->duration.add(fp.timings[j].second);
    }
    bool overflow = false;
    for (size_t k : fp.moving) {
      FastPath::Slot &s = fp.slots[k];
      if (s.column)
        s.fitter->addColumn(*s.column, s.next);
      else
        overflow |= __builtin_add_overflow(s.next, s.step, &s.next);
    }
    ++fp.uncounted;
    ++fp.folder->iterations;
    fp.matched = 0;
    if (overflow)
      disarm(fp);
  }

  /// Leaves the fast path: the predicted slots' fitters count the committed
  /// iterations, so that they are exact for whatever reads them next.
  static void disarm(FastPath &fp) {
    if (fp.uncounted > 0)
      for (FastPath::Slot &s : fp.slots)
        if (!s.column)
          s.fitter->addPredicted(s.line, fp.uncounted);
    fp.uncounted = 0;
    fp.armed = false;
  }

  /// The calls matched so far, as the Events they stand for, into the
  /// general path; the frame is disarmed.
  void replayFast(Frame &f) {
    FastPath &fp = f.fast;
    disarm(fp);
    // All Events first: an open loop's templates are in the sequence the
    // appends go to (appendsOnlyExtendLast says they fold nothing there;
    // copies make that an optimisation's assumption, not memory safety's).
    std::vector<Event> events;
    events.reserve(fp.matched);
    std::vector<RawParam> params;
    for (size_t j = 0; j < fp.matched; ++j) {
      const FastPath::Slot *slots = &fp.slots[fp.calls[j].firstSlot];
      events.push_back(matchedEvent(
          *fp.calls[j].templ, slots, [&](size_t i) { return slots[i].next; }, fp.timings[j], params));
    }
    fp.matched = 0;
    for (Event &e : events)
      append(Node{RankList(), std::move(e)});
  }

  /// The Event a call matched on a steady-state path stands for: the
  /// template's op and parameter names (text values from the slots, which
  /// matched), the call's integer values (`value(i)`) and timing.
  template <typename Slot, typename ValueOf>
  static Event matchedEvent(const Event &t, const Slot *slots, ValueOf value, std::pair<uint64_t, uint64_t> timing,
                            std::vector<RawParam> &params) {
    params.clear();
    for (size_t i = 0; i < t.params.size(); ++i)
      params.push_back({slots[i].name->c_str(), slots[i].text, value(i)});
    return toEvent(
        RawEvent{t.op.c_str(), t.layer, t.site, t.inner, params.data(), params.size(), timing.first, timing.second});
  }

  // --- Steady state of a choice run (see ChoicePath) ---

  /// A slot's steady state under `steady` (its samples' mask): text, a line
  /// or a column; false when it has none yet.
  static bool steadySlot(ValueFitter &vf, DegenerateMask steady, ChoicePath::Slot &s) {
    s.fitter = &vf;
    s.text = vf.text();
    if (s.text) {
      s.line = vf.predictedLine();
      return true;
    }
    if (vf.predictNext(s.base, s.step, steady)) {
      s.line = vf.predictedLine();
      return true;
    }
    return (s.column = vf.columnSlot(steady)) != nullptr;
  }

  /// The value a predicted slot predicts for run iteration j; false on overflow.
  static bool predicted(const ChoicePath &cp, const ChoicePath::Slot &s, uint64_t j, int64_t &value) {
    int64_t offset;
    return !__builtin_mul_overflow(s.step, static_cast<int64_t>(j - cp.j0), &offset) &&
           !__builtin_add_overflow(s.base, offset, &value);
  }

  /// Arms the top frame's choice run after an iteration, when every guard
  /// and every slot of every alternative (events only) is in steady state.
  void tryArmChoice() {
    Frame &f = frames.back();
    ChoicePath &cp = f.choiceFast;
    cp.armed = false;
    if (f.isRoot || !f.inIteration || !f.run || !f.runFolder || !f.iteration.empty())
      return;
    Folder &folder = *f.runFolder;
    std::vector<Node> &guards = f.run->loop().body;
    cp.alts.clear();
    cp.slots.clear();
    cp.columns.clear();
    cp.columnsAt.clear();
    cp.frozen.clear();
    cp.all = 0;
    size_t slot = 0;
    for (size_t a = 0; a < f.alts.size(); ++a) {
      ChoicePath::Alternative alt;
      if (!steadySlot(folder.values[slot++], 0, alt.guard) || alt.guard.text)
        return;
      cp.columnsAt.push_back(cp.columns.size());
      const size_t firstSlot = slot, slotsBefore = cp.slots.size();
      bool steady = true;
      for (Node &n : guards[a].loop().body) {
        if (!(steady = n.isEvent()))
          break;
        Event &e = n.event();
        alt.calls.push_back({&e, cp.slots.size(), e.op.c_str()});
        for (Param &p : e.params) {
          ChoicePath::Slot s{};
          s.name = &p.name;
          s.nameSeen = p.name.c_str();
          if (!(steady = steadySlot(folder.values[slot++], alternativeSlots(0).mask, s)))
            break;
          if (s.column)
            cp.columns.push_back(cp.slots.size());
          cp.slots.push_back(s);
        }
        if (!steady)
          break;
      }
      slot = firstSlot + f.alts[a].slots;
      if (steady) {
        cp.all |= uint32_t(1) << a; // kMaxAlternatives <= 16
      } else {                      // taken too rarely yet (or holds a loop): its iterations take the general path
        alt.calls.clear();
        cp.slots.resize(slotsBefore);
        cp.columns.resize(cp.columnsAt.back());
        for (size_t k = firstSlot; k < slot; ++k)
          cp.frozen.push_back(&folder.values[k]);
      }
      cp.alts.push_back(std::move(alt));
    }
    cp.columnsAt.push_back(cp.columns.size());
    if (!cp.all)
      return;
    cp.j0 = folder.iterations;
    cp.uncounted = 0;
    cp.matched.clear();
    cp.values.clear();
    cp.candidates = cp.all;
    cp.folder = &folder;
    cp.armed = true;
  }

  static bool matchChoiceCall(ChoicePath &cp, ChoicePath::Call &c, const RawEvent &e, uint64_t j) {
    const Event &t = *c.templ;
    if (e.site != t.site || e.layer != t.layer || e.inner != t.inner || e.nparams != t.params.size() ||
        !sameName(t.op, e.op, c.opSeen))
      return false;
    for (size_t i = 0; i < e.nparams; ++i) {
      ChoicePath::Slot &s = cp.slots[c.firstSlot + i];
      const RawParam &p = e.params[i];
      if (!sameName(*s.name, p.name, s.nameSeen))
        return false;
      if (s.text ? !p.text || *p.text != *s.text : p.text != nullptr)
        return false;
      int64_t want;
      if (!s.text && !s.column && (!predicted(cp, s, j, want) || p.value != want))
        return false;
    }
    return true;
  }

  /// The call against the candidates' next call: false (nothing changed)
  /// when it matches none.
  bool matchChoice(ChoicePath &cp, const RawEvent &e) {
    const size_t m = cp.matched.size();
    const uint64_t j = cp.folder->iterations;
    uint32_t still = 0;
    const ChoicePath::Call *first = nullptr;
    for (uint32_t bits = cp.candidates; bits; bits &= bits - 1) {
      const size_t a = static_cast<size_t>(__builtin_ctz(bits));
      std::vector<ChoicePath::Call> &calls = cp.alts[a].calls;
      if (m < calls.size() && matchChoiceCall(cp, calls[m], e, j)) {
        still |= uint32_t(1) << a;
        if (!first)
          first = &calls[m];
      }
    }
    if (!still)
      return false;
    cp.candidates = still;
    cp.matched.push_back({first, cp.values.size(), e.computeNs, e.durationNs});
    for (size_t i = 0; i < e.nparams; ++i)
      cp.values.push_back(e.params[i].value);
    return true;
  }

  /// The iteration ends: what sampleChoice would do for the one candidate
  /// matched in full; false (nothing changed) when none is, or when a guard
  /// on a line did not predict it.
  static bool commitChoice(ChoicePath &cp) {
    const uint64_t j = cp.folder->iterations;
    size_t taken = cp.alts.size();
    for (uint32_t bits = cp.candidates; bits; bits &= bits - 1) {
      const size_t a = static_cast<size_t>(__builtin_ctz(bits));
      if (cp.alts[a].calls.size() == cp.matched.size()) {
        taken = a;
        break;
      }
    }
    if (taken == cp.alts.size())
      return false;
    for (size_t a = 0; a < cp.alts.size(); ++a) {
      const ChoicePath::Slot &g = cp.alts[a].guard;
      int64_t want;
      if (!g.column && (!predicted(cp, g, j, want) || want != (a == taken ? 1 : 0)))
        return false;
    }
    for (size_t a = 0; a < cp.alts.size(); ++a) {
      ChoicePath::Alternative &alt = cp.alts[a];
      if (alt.guard.column)
        alt.guard.fitter->addColumn(*alt.guard.column, a == taken ? 1 : 0);
      if (a == taken)
        continue;
      for (size_t k = cp.columnsAt[a]; k < cp.columnsAt[a + 1]; ++k)
        cp.slots[cp.columns[k]].fitter->addFree(1);
    }
    ChoicePath::Alternative &alt = cp.alts[taken];
    for (size_t c = 0; c < alt.calls.size(); ++c) {
      const ChoicePath::Call &call = alt.calls[c];
      const ChoicePath::Matched &m = cp.matched[c];
      for (size_t i = 0; i < call.templ->params.size(); ++i) {
        ChoicePath::Slot &s = cp.slots[call.firstSlot + i];
        if (s.column)
          s.fitter->addColumn(*s.column, cp.values[m.firstValue + i]);
      }
      call.templ->compute.add(m.computeNs);
      call.templ->duration.add(m.durationNs);
    }
    ++cp.uncounted;
    ++cp.folder->iterations;
    cp.matched.clear();
    cp.values.clear();
    cp.candidates = cp.all;
    return true;
  }

  /// Leaves the path: the predicted slots and guards count the committed
  /// iterations (taken or free, each fits the line).
  static void disarmChoice(ChoicePath &cp) {
    if (cp.uncounted > 0) {
      for (ChoicePath::Alternative &alt : cp.alts)
        if (!alt.guard.column)
          alt.guard.fitter->addPredicted(alt.guard.line, cp.uncounted);
      for (ChoicePath::Slot &s : cp.slots)
        if (!s.column)
          s.fitter->addPredicted(s.line, cp.uncounted);
      for (ValueFitter *v : cp.frozen)
        v->addFree(cp.uncounted);
    }
    cp.uncounted = 0;
    cp.armed = false;
  }

  /// The calls matched so far, as the Events they stand for, into the
  /// general path; the path is disarmed.
  void replayChoice(Frame &f) {
    ChoicePath &cp = f.choiceFast;
    disarmChoice(cp);
    std::vector<Event> events;
    events.reserve(cp.matched.size());
    std::vector<RawParam> params;
    for (const ChoicePath::Matched &m : cp.matched)
      events.push_back(matchedEvent(
          *m.call->templ, &cp.slots[m.call->firstSlot], [&](size_t i) { return cp.values[m.firstValue + i]; },
          {m.computeNs, m.durationNs}, params));
    cp.matched.clear();
    cp.values.clear();
    for (Event &e : events)
      append(Node{RankList(), std::move(e)});
  }

  /// Before anything but a matching call touches the top frame: a complete
  /// matched iteration is committed if the iteration ends here, a partial
  /// one replayed; the frame is disarmed either way.
  void settle(bool iterationEnds) {
    Frame &f = frames.back();
    if (f.choiceFast.armed) {
      if (!(iterationEnds && !f.choiceFast.matched.empty() && commitChoice(f.choiceFast)))
        replayChoice(f);
      disarmChoice(f.choiceFast);
      return;
    }
    if (!f.fast.armed)
      return;
    if (!f.fast.open && iterationEnds && f.fast.matched == f.fast.calls.size() && f.mayCommitFast())
      commitFast(f.fast);
    else
      replayFast(f);
    disarm(f.fast);
  }

  void closeFrame() {
    size_t k = frames.size() - 1;
    if (frames[k].inIteration)
      endIteration(k);
    flushRun(k);
    // An execution too short to reach the switch that still left more nodes
    // than a pattern repetition detection folds would (a short loop of
    // random branches inside a time-step loop): the next ones start choice
    // runs at their first change of structure.
    if (!frames[k].isRoot && frames[k].nodesLeft > kChoiceAfterExecutionLeft)
      choiceLoops.insert(frames[k].loopId);
    frames.pop_back();
  }
};

namespace {

/// Relative loop indices to absolute ones and rank lists on everything.
void finalizeNodes(std::vector<Node> &nodes, uint32_t depth, const RankList &ranks) {
  auto absolute = [depth](uint32_t relative) { return depth - 1 - relative; };
  auto fix = [&](ElasticValue &ev) {
    Value &v = soleValue(ev);
    if (!isText(v) && std::get<Expr>(v).loopDepthUsed() > 0)
      v = renameLoops(std::get<Expr>(v), absolute);
    ev.entries().resize(1);
    ev.entries().front().ranks = ranks;
  };
  for (Node &node : nodes) {
    node.ranks = ranks;
    if (node.isEvent()) {
      for (Param &p : node.event().params)
        fix(p.value);
    } else {
      fix(node.loop().iterations);
      finalizeNodes(node.loop().body, depth + 1, ranks);
    }
  }
}

} // namespace
} // namespace detail

IntraRankCompressor::IntraRankCompressor(CompressorOptions opts)
    : state_(std::make_unique<detail::CompressorState>(opts)) {}
IntraRankCompressor::~IntraRankCompressor() = default;
IntraRankCompressor::IntraRankCompressor(IntraRankCompressor &&) noexcept = default;
IntraRankCompressor &IntraRankCompressor::operator=(IntraRankCompressor &&) noexcept = default;

void IntraRankCompressor::loopEnter(uint64_t loopId) {
  state_->settle(false);
  state_->frames.emplace_back();
  state_->frames.back().loopId = loopId;
  state_->frames.back().choice = state_->choiceLoops.count(loopId) > 0;
}

void IntraRankCompressor::loopIter(uint64_t loopId) {
  detail::Frame &top = state_->frames.back();
  if (top.choiceFast.armed && !top.isRoot && top.loopId == loopId) {
    if (top.choiceFast.matched.empty())
      return; // an empty iteration counts for nothing
    if (state_->commitChoice(top.choiceFast))
      return;
  }
  if (top.fast.armed && !top.fast.open && !top.isRoot && top.loopId == loopId) {
    if (top.fast.matched == top.fast.calls.size() && top.mayCommitFast()) {
      state_->commitFast(top.fast);
      if (!top.fast.armed) // the prediction overflowed: ask the fitters again
        state_->tryArm();
      return;
    }
    if (top.fast.matched == 0)
      return; // an empty iteration counts for nothing
  }
  auto k = state_->findFrame(loopId);
  // An iter of a loop that is open ends the top frame's iteration (its own,
  // or by closing it); one of an unknown loop enters it inside the iteration.
  state_->settle(k.has_value());
  if (!k) {
    loopEnter(loopId);
    k = state_->frames.size() - 1;
  }
  while (state_->frames.size() - 1 > *k)
    state_->closeFrame();
  auto &frame = state_->frames[*k];
  if (frame.inIteration)
    state_->endIteration(*k);
  state_->frames[*k].inIteration = true;
  state_->tryArm();
}

void IntraRankCompressor::loopExit(uint64_t loopId) {
  auto k = state_->findFrame(loopId);
  if (!k)
    return;
  state_->settle(true);
  while (state_->frames.size() > *k)
    state_->closeFrame();
}

void IntraRankCompressor::event(sio::trace::Event ev) {
  state_->settle(false);
  for (auto &p : ev.params)
    detail::soleValue(p.value); // exactly one entry from here on
  ++state_->events;
  state_->append(sio::trace::Node{sio::trace::RankList(), std::move(ev)});
}

void IntraRankCompressor::event(const RawEvent &raw) {
  detail::Frame &top = state_->frames.back();
  if (top.choiceFast.armed && state_->matchChoice(top.choiceFast, raw)) {
    ++state_->events;
    ++state_->fastEvents;
    return;
  }
  if (top.fast.armed && state_->matchFast(top.fast, raw)) {
    ++state_->events;
    ++state_->fastEvents;
    if (top.fast.open && top.fast.matched == top.fast.calls.size()) {
      state_->commitFast(top.fast); // what append() would do: extend the loop
      if (!top.fast.armed)          // the prediction overflowed: ask the fitters again
        state_->tryArmOpen();
    }
    return;
  }
  event(detail::toEvent(raw)); // settles the fast path first
  state_->tryArmOpen();
}

std::vector<sio::trace::Node> IntraRankCompressor::finish(int64_t rank, int64_t nranks) {
  state_->settle(true);
  while (state_->frames.size() > 1)
    state_->closeFrame();
  std::vector<sio::trace::Node> nodes = state_->frames[0].iteration.take();
  detail::finalizeNodes(nodes, 0, sio::trace::RankList::single(rank));
  state_->reset();
  state_->events = 0;
  state_->fastEvents = 0;
  return nodes;
}

size_t IntraRankCompressor::approxBytes() const {
  size_t b = sizeof(*state_);
  for (const auto &f : state_->frames) {
    b += sizeof(f) + f.iteration.bytes();
    if (f.run)
      b += detail::nodeBytes(*f.run);
    if (f.runFolder)
      for (const auto &v : f.runFolder->values)
        b += v.bytes();
  }
  return b;
}

uint64_t IntraRankCompressor::eventCount() const { return state_->events; }
uint64_t IntraRankCompressor::fastEventCount() const { return state_->fastEvents; }

} // namespace sio::rt
