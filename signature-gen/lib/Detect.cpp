// Classifying one access stream: the detectors of Byna et al.'s (SC08) Figure 3, run
// offline over Runs (arithmetic runs of accesses) so a stream is never
// expanded access by access.
//
// Order, as in Figure 3, after the repetition dimension is taken out:
//   identical repetition  the runs repeat exactly (same offsets): R copies of a body
//   single access         init: nothing to learn from
//   fixed stride          one segment: every access `stride` after the previous
//   k-d strides           the segment sequence is a cycle of up to 8 segments
//                         (k = distinct strides in it: 2-d, 3-d nested loops)
//   evolving k-d          R repetitions of k <= 3 components (children of the
//                         outermost loop) whose starts, counts advance by fixed
//                         steps: the out-of-core LU pattern
//   Markov chain          strides recur and the likeliest successor of a stride
//                         is right >= 90% of the time
//   random                anything else; never reported as a pattern
// A segment is a maximal stretch of accesses with the same stride to the next
// access and sizes in arithmetic progression; negative strides are segments
// like any other and only change the spatial class.
#include "sio/signature/Signature.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace sio::signature {

namespace {

/// Most loop nests under a table of starts described one component each.
constexpr size_t kMaxTableComponents = 16;

/// Longest cycle of segments the k-d detector looks for: the 2-d and 3-d
/// patterns of Figure 3, with room for 3-d loops whose inner rows are short.
constexpr size_t kMaxCycle = 8;

/// Accesses with one stride to their successor; `stride` empty for the last
/// access of the stream (its successor is unknown: it matches any stride).
struct Piece {
  int64_t start = 0;
  std::optional<int64_t> stride;
  int64_t sizeFirst = 0;
  int64_t sizeStep = 0;
  int64_t count = 0;
};

struct Segment {
  int64_t start = 0;
  std::optional<int64_t> stride;
  Progression size;
  int64_t count = 0;
  bool sameShape(const Segment &o) const {
    return size == o.size && count == o.count && (!stride || !o.stride || *stride == *o.stride);
  }
};

std::vector<Piece> piecesOf(const std::vector<Run> &runs) {
  std::vector<Piece> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run &r = runs[i];
    if (r.count >= 2)
      out.push_back({r.offset, r.stride, r.sizeFirst, r.sizeStep, r.count - 1});
    Piece last{r.lastOffset(), std::nullopt, r.lastSize(), r.sizeStep, 1};
    if (i + 1 < runs.size())
      last.stride = runs[i + 1].offset - r.lastOffset();
    out.push_back(last);
  }
  return out;
}

/// Whether piece `p` continues segment `s` (stride and size progression).
bool extend(Segment &s, const Piece &p) {
  if (s.stride && p.stride && *s.stride != *p.stride)
    return false;
  if (!s.stride && p.stride)
    return false; // the open-ended last access only ends a segment
  if (s.count == 1 && s.size.step == 0 && p.count >= 2 && p.sizeFirst == s.size.first + p.sizeStep) {
    s.size.step = p.sizeStep;
  } else {
    if (p.sizeFirst != s.size.at(s.count))
      return false;
    if (p.count >= 2 && p.sizeStep != s.size.step)
      return false;
  }
  if (!s.stride)
    s.stride = p.stride;
  s.count += p.count;
  return true;
}

/// Segments; the open-ended last access stays apart unless `mergeLast`.
std::vector<Segment> segmentsOf(const std::vector<Piece> &pieces, bool mergeLast) {
  std::vector<Segment> out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece &p = pieces[i];
    const bool isLast = i + 1 == pieces.size();
    if (!out.empty() && (!isLast || mergeLast) && extend(out.back(), p))
      continue;
    Segment s;
    s.start = p.start;
    s.stride = p.stride;
    s.size = {p.sizeFirst, p.count >= 2 ? p.sizeStep : (isLast ? 0 : p.sizeStep)};
    s.count = p.count;
    out.push_back(s);
  }
  return out;
}

Component componentOf(const Segment &s) {
  Component c;
  c.stride = s.stride.value_or(0);
  c.size.progression = s.count >= 2 ? s.size : Progression{s.size.first, 0};
  c.count = {s.count, 0};
  return c;
}

bool runsEqual(const Run &a, const Run &b) {
  return a.offset == b.offset && a.stride == b.stride && a.count == b.count && a.sizeFirst == b.sizeFirst &&
         a.sizeStep == b.sizeStep && a.op == b.op && a.nest == b.nest;
}

/// Smallest p < runs.size() with runs periodic in p and size divisible by p.
std::optional<size_t> exactRepetitionPeriod(const std::vector<Run> &runs) {
  const size_t m = runs.size();
  if (m < 2)
    return std::nullopt;
  std::vector<size_t> pi(m, 0); // prefix function (KMP)
  for (size_t i = 1; i < m; ++i) {
    size_t k = pi[i - 1];
    while (k > 0 && !runsEqual(runs[i], runs[k]))
      k = pi[k - 1];
    if (runsEqual(runs[i], runs[k]))
      ++k;
    pi[i] = k;
  }
  const size_t period = m - pi[m - 1];
  if (period < m && m % period == 0)
    return period;
  return std::nullopt;
}

/// Values advancing by a fixed step; nullopt otherwise.
std::optional<Progression> progressionOf(const std::vector<int64_t> &v) {
  if (v.empty())
    return std::nullopt;
  Progression p{v[0], v.size() > 1 ? v[1] - v[0] : 0};
  for (size_t g = 0; g < v.size(); ++g)
    if (v[g] != p.at(int64_t(g)))
      return std::nullopt;
  return p;
}

struct Shape {
  std::vector<Component> components;
  int64_t cycles = 1;
  int64_t repetitions = 1;
  Spatial spatial = Spatial::Random;
  int dimension = 1;
};

/// Spatial class of a flat cycle of segments.
void classifyFlat(Shape &shape, const std::vector<Segment> &cycle) {
  std::map<int64_t, int> strideUses;
  bool stridesAreSizes = true, allSingle = true;
  int64_t displacement = 0;
  for (const Segment &s : cycle) {
    const int64_t stride = s.stride.value_or(cycle[0].stride.value_or(0));
    ++strideUses[stride];
    stridesAreSizes = stridesAreSizes && s.size.step == 0 && stride == s.size.first;
    allSingle = allSingle && s.count == 1;
    displacement += stride * s.count;
  }
  bool eachStrideOnce = true;
  for (const auto &[stride, uses] : strideUses)
    eachStrideOnce = eachStrideOnce && uses == 1;
  if (stridesAreSizes) {
    shape.spatial = Spatial::Contiguous;
  } else if (strideUses.size() == 1) {
    shape.spatial = strideUses.begin()->first < 0 ? Spatial::NegativeStrided : Spatial::FixedStrided;
  } else if (allSingle && eachStrideOnce) {
    // k interleaved single accesses, each advancing by the cycle's
    // displacement: fixed strided (Byna et al. SC08 §VI.E, nested strided).
    shape.spatial = displacement < 0 ? Spatial::NegativeStrided : Spatial::FixedStrided;
  } else {
    // Nested loops: one stride per level (the innermost one and a carry
    // stride per outer level), so k distinct strides make a k-d pattern.
    shape.spatial = Spatial::KdStrided;
    shape.dimension = int(strideUses.size());
  }
}

std::optional<Shape> flatShape(const std::vector<Run> &runs, uint64_t accesses) {
  if (accesses == 1) {
    Shape s;
    Component c;
    c.size.progression = {runs[0].sizeFirst, 0};
    c.count = {1, 0};
    s.components.push_back(c);
    s.spatial = Spatial::None;
    return s;
  }
  const std::vector<Piece> pieces = piecesOf(runs);
  std::vector<Segment> merged = segmentsOf(pieces, true);
  if (merged.size() == 1) {
    Shape s;
    s.components.push_back(componentOf(merged[0]));
    classifyFlat(s, merged);
    return s;
  }
  if (merged.size() == 2 && merged[1].count == 1 && !merged[1].stride) {
    // One stride throughout and a last request of another size (the short
    // tail of a file read in chunks): still one fixed stride.
    Shape s;
    Component c = componentOf(merged[0]);
    c.count = {merged[0].count + 1, 0};
    c.size.regular = false;
    c.size.min = std::min(merged[0].size.first, merged[1].size.first);
    c.size.max = std::max(merged[0].size.at(merged[0].count - 1), merged[1].size.first);
    c.size.min = std::min(c.size.min, merged[0].size.at(merged[0].count - 1));
    c.size.max = std::max(c.size.max, merged[0].size.first);
    c.size.progression = {};
    s.components.push_back(c);
    classifyFlat(s, {merged[0]});
    return s;
  }
  const std::vector<Segment> segs = segmentsOf(pieces, false);
  const size_t q = segs.size();
  for (size_t p = 1; p <= kMaxCycle && p < q; ++p) {
    if (q % p)
      continue;
    bool periodic = true;
    for (size_t i = p; i < q && periodic; ++i)
      periodic = segs[i].sameShape(segs[i - p]);
    if (!periodic)
      continue;
    Shape s;
    s.cycles = int64_t(q / p);
    std::vector<Segment> cycle(segs.begin(), segs.begin() + long(p));
    if (!cycle.back().stride && q > p)
      cycle.back().stride = segs[p - 1].stride; // wildcard: take a full cycle's
    for (const Segment &seg : cycle)
      s.components.push_back(componentOf(seg));
    classifyFlat(s, cycle);
    return s;
  }
  return std::nullopt;
}

/// The LU shape: repetitions (iterations of the outermost loop) of the same
/// k components whose starts, counts and strides advance by fixed steps.
std::optional<Shape> evolvingShape(const std::vector<Run> &runs) {
  struct Part {
    const trace::Node *component;
    Run run;
  };
  std::vector<std::vector<Part>> groups;
  bool positional = false;
  const trace::Node *top = runs[0].top;
  int64_t iteration = runs[0].topIteration;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run &r = runs[i];
    if (r.top != top)
      return std::nullopt;
    if (groups.empty() || r.topIteration != iteration) {
      groups.emplace_back();
      iteration = r.topIteration;
    }
    auto &g = groups.back();
    if (!g.empty() && g.back().component == r.component) {
      // Several runs of one component in one repetition chain up when they
      // can; loop nests under a table (one per table entry) stay apart and
      // are matched by position.
      Run &p = g.back().run;
      const int64_t stride = p.count > 1 ? p.stride : r.offset - p.offset;
      if (r.nest.empty() && p.nest.empty() && r.offset == p.lastOffset() + stride &&
          (r.count <= 1 || r.stride == stride) && r.sizeStep == 0 && p.sizeStep == 0 && r.sizeFirst == p.sizeFirst) {
        p.stride = stride;
        p.count += r.count;
        continue;
      }
      if (r.nest.empty() && p.nest.empty())
        return std::nullopt;
      positional = true;
    }
    g.push_back({r.component, r});
  }
  if (groups.size() < 2)
    return std::nullopt;
  const size_t k = groups[0].size();
  if (k == 0 || k > (positional ? kMaxTableComponents : 3))
    return std::nullopt;
  for (const auto &g : groups) {
    if (g.size() != k)
      return std::nullopt;
    for (size_t j = 0; j < k; ++j)
      if (g[j].component != groups[0][j].component)
        return std::nullopt;
  }
  const int64_t initial = runs[0].offset;
  Shape s;
  size_t levels = 0;
  for (size_t j = 0; j < k; ++j) {
    std::vector<int64_t> starts, counts;
    std::optional<int64_t> stride, sizeFirst, sizeStep;
    for (const auto &g : groups) {
      const Run &r = g[j].run;
      if (r.nest != groups[0][j].run.nest)
        return std::nullopt;
      starts.push_back(r.offset - initial);
      counts.push_back(r.count);
      if (r.count >= 2) {
        if (stride && *stride != r.stride)
          return std::nullopt;
        stride = r.stride;
        // Sizes restart with each repetition: first and step must not move.
        if (sizeStep && *sizeStep != r.sizeStep)
          return std::nullopt;
        sizeStep = r.sizeStep;
      }
      if (sizeFirst && *sizeFirst != r.sizeFirst)
        return std::nullopt;
      sizeFirst = r.sizeFirst;
    }
    auto start = progressionOf(starts);
    auto count = progressionOf(counts);
    if (!start || !count)
      return std::nullopt;
    Component c;
    c.start = *start;
    c.stride = stride.value_or(0);
    c.size.progression = {*sizeFirst, sizeStep.value_or(0)};
    c.count = *count;
    c.nest = groups[0][j].run.nest;
    levels = std::max(levels, c.nest.size());
    s.components.push_back(c);
  }
  s.repetitions = int64_t(groups.size());
  s.spatial = Spatial::KdStrided;
  // One dimension per component (LU) or per level of the deepest nest, the
  // repetitions being the outermost one.
  s.dimension = levels ? int(levels) + 2 : std::max<int>(int(k), 2);
  return s;
}

/// Stride transitions, counted over pieces without expanding them.
MarkovChain markovOf(const std::vector<Run> &runs) {
  std::map<std::pair<int64_t, int64_t>, uint64_t> counts;
  std::optional<int64_t> prev;
  uint64_t total = 0;
  for (const Piece &p : piecesOf(runs)) {
    if (!p.stride)
      continue;
    if (prev) {
      ++counts[{*prev, *p.stride}];
      ++total;
    }
    if (p.count > 1) {
      counts[{*p.stride, *p.stride}] += uint64_t(p.count - 1);
      total += uint64_t(p.count - 1);
    }
    prev = p.stride;
  }
  MarkovChain m;
  std::map<int64_t, uint64_t> fromTotals, fromBest;
  std::set<int64_t> states;
  for (const auto &[key, n] : counts) {
    states.insert(key.first);
    states.insert(key.second);
    fromTotals[key.first] += n;
    fromBest[key.first] = std::max(fromBest[key.first], n);
    m.transitions.push_back({key.first, key.second, n});
  }
  std::sort(m.transitions.begin(), m.transitions.end(), [](const auto &a, const auto &b) {
    return a.from != b.from ? a.from < b.from : a.count != b.count ? a.count > b.count : a.to < b.to;
  });
  m.distinctStrides = states.size();
  uint64_t best = 0;
  for (const auto &[from, n] : fromBest)
    best += n;
  m.predictability = total ? double(best) / double(total) : 0;
  double h = 0;
  for (const auto &t : m.transitions) {
    const double pJoint = double(t.count) / double(total);
    const double pCond = double(t.count) / double(fromTotals[t.from]);
    h -= pJoint * std::log2(pCond);
  }
  m.entropyBits = h;
  return m;
}

SizePattern overallSizes(const std::vector<Run> &runs) {
  SizePattern sp;
  sp.min = INT64_MAX;
  sp.max = INT64_MIN;
  for (const Run &r : runs) {
    sp.min = std::min({sp.min, r.sizeFirst, r.lastSize()});
    sp.max = std::max({sp.max, r.sizeFirst, r.lastSize()});
  }
  sp.regular = sp.min == sp.max;
  if (sp.regular) {
    sp.progression = {sp.min, 0};
    sp.min = sp.max = 0; // min/max describe irregular sizes only
  }
  return sp;
}

/// One loop nest read off the trace: its levels are the signature.
Shape nestShape(const Run &r) {
  Shape s;
  Component c;
  c.stride = r.stride;
  c.size.progression = {r.sizeFirst, r.sizeStep};
  c.count = {r.count, 0};
  c.nest = r.nest;
  s.components.push_back(c);
  s.spatial = Spatial::KdStrided;
  s.dimension = int(r.nest.size()) + 1;
  return s;
}

/// Every access starts where the previous one ended, whatever the sizes
/// (a region written in pieces): contiguous, sizes listed when few.
std::optional<Shape> contiguousShape(const std::vector<Run> &runs, uint64_t accesses) {
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run &r = runs[i];
    if (!r.nest.empty() || (r.count > 1 && (r.sizeStep != 0 || r.stride != r.sizeFirst)))
      return std::nullopt;
    if (i + 1 < runs.size() && runs[i + 1].offset != r.lastOffset() + r.lastSize())
      return std::nullopt;
    if (accesses <= kListedSizes)
      for (int64_t k = 0; k < r.count; ++k)
        sizes.push_back(r.sizeFirst);
  }
  Shape s;
  Component c;
  c.strideKind = StrideKind::Contiguous;
  c.size = overallSizes(runs);
  if (!c.size.regular)
    c.size.values = std::move(sizes);
  c.count = {int64_t(accesses), 0};
  s.components.push_back(c);
  s.spatial = Spatial::Contiguous;
  return s;
}

/// Nests as plain runs, one per iteration of their outer levels (for the
/// detectors that work on sequences), at most `limit` runs.
std::vector<Run> flattenNests(const std::vector<Run> &runs, size_t limit) {
  std::vector<Run> out;
  for (const Run &r : runs) {
    if (r.nest.empty()) {
      out.push_back(r);
      continue;
    }
    std::vector<int64_t> idx(r.nest.size(), 0);
    while (out.size() < limit) {
      Run flat = r;
      flat.nest.clear();
      for (size_t l = 0; l < idx.size(); ++l)
        flat.offset += r.nest[l].stride * idx[l];
      out.push_back(flat);
      size_t l = idx.size();
      while (l > 0 && ++idx[l - 1] == r.nest[l - 1].count)
        idx[--l] = 0;
      if (l == 0)
        break;
    }
    if (out.size() >= limit)
      break;
  }
  return out;
}

Shape shapeOf(const std::vector<Run> &runs, uint64_t accesses, const Options &o) {
  if (runs.size() == 1 && !runs[0].nest.empty()) {
    // Outermost levels that go nowhere repeat the rest: repetitions.
    Run r = runs[0];
    int64_t reps = 1;
    while (!r.nest.empty() && r.nest.front().stride == 0) {
      reps *= r.nest.front().count;
      r.nest.erase(r.nest.begin());
    }
    Shape s = r.nest.empty() ? shapeOf({r}, uint64_t(r.count), o) : nestShape(r);
    s.repetitions *= reps;
    return s;
  }
  if (auto period = exactRepetitionPeriod(runs)) {
    std::vector<Run> body(runs.begin(), runs.begin() + long(*period));
    uint64_t bodyAccesses = 0;
    for (const Run &r : body)
      bodyAccesses += uint64_t(r.count);
    Shape s = shapeOf(body, bodyAccesses, o);
    s.repetitions *= int64_t(runs.size() / *period);
    return s;
  }
  const bool nested = std::any_of(runs.begin(), runs.end(), [](const Run &r) { return !r.nest.empty(); });
  if (nested) {
    if (auto s = evolvingShape(runs))
      return *s;
    return shapeOf(flattenNests(runs, o.maxAccesses), accesses, o);
  }
  if (auto s = flatShape(runs, accesses))
    return *s;
  if (auto s = evolvingShape(runs))
    return *s;
  if (auto s = contiguousShape(runs, accesses))
    return *s;
  Shape s;
  MarkovChain m = markovOf(runs);
  const uint64_t transitions = accesses >= 2 ? accesses - 2 : 0;
  Component c;
  c.size = overallSizes(runs);
  c.count = {int64_t(accesses), 0};
  // A chain is learned only when strides recur: with (nearly) every stride
  // new, a table "predicts" perfectly and means nothing.
  const bool recurs = transitions >= 8 && m.distinctStrides * o.markovMinRecurrence <= transitions;
  if (recurs && m.predictability >= o.markovMinPredictability) {
    c.strideKind = StrideKind::Markov;
    c.markov = std::move(m);
    s.spatial = Spatial::VariableStrided;
  } else {
    c.strideKind = StrideKind::Random;
    s.spatial = Spatial::Random;
  }
  s.components.push_back(std::move(c));
  return s;
}

} // namespace

StreamSignature detect(const AccessStream &stream, const Options &options) {
  StreamSignature sig;
  sig.file = stream.file;
  sig.accesses = stream.accesses;
  sig.bytes = stream.bytes;
  sig.unknownPositions = stream.unknownPositions;
  sig.logicalOffsets = stream.logicalOffsets;
  sig.throughView = stream.throughView;
  sig.truncated = stream.truncated;
  sig.trace.op = stream.op;
  sig.pattern.op = stream.op;
  if (stream.runs.empty()) {
    sig.pattern.spatial = Spatial::None;
    sig.pattern.temporal = Temporal::None;
    return sig;
  }
  sig.trace.initialPosition = stream.runs[0].offset;
  Shape shape = shapeOf(stream.runs, stream.accesses, options);
  sig.trace.components = std::move(shape.components);
  sig.trace.cycles = shape.cycles;
  sig.trace.repetitions = shape.repetitions;
  sig.pattern.spatial = shape.spatial;
  sig.pattern.dimension = shape.dimension;
  sig.pattern.repetitive = shape.repetitions > 1;

  // Sizes: fixed when every component asks for one size throughout.
  bool fixed = true;
  for (const Component &c : sig.trace.components)
    fixed = fixed && c.size.regular && c.size.progression.step == 0;
  sig.pattern.fixedSize = fixed;
  const double mean = stream.accesses ? double(stream.bytes) / double(stream.accesses) : 0;
  const double page = double(options.pageSize);
  sig.pattern.sizeClass = mean <= page                                  ? SizeClass::Small
                          : mean <= page * double(options.largePages) ? SizeClass::Medium
                                                                         : SizeClass::Large;

  // Temporal: the computation gaps before the accesses, from the trace's
  // timing statistics (merged over iterations and ranks).
  trace::TimingStats compute, duration;
  std::set<const trace::Event *> events;
  for (const Run &r : stream.runs)
    if (r.event && events.insert(r.event).second) {
      compute.merge(r.event->compute);
      duration.merge(r.event->duration);
    }
  sig.pattern.timingSamples = compute.count();

  // Figure 3's states over the stream's first accesses, for the prefetcher's
  // warm-up; runs are expanded only as far as the window reaches.
  OnlineDetector online;
  uint64_t seen = 0;
  for (const Run &r : flattenNests(stream.runs, options.onlineWindow)) {
    for (int64_t k = 0; k < r.count && seen < options.onlineWindow && !sig.stableAfter; ++k) {
      online.observe(r.offset + k * r.stride);
      ++seen;
      if (online.state() == DetectorState::Stable)
        sig.stableAfter = seen;
    }
    if (seen >= options.onlineWindow || sig.stableAfter)
      break;
  }
  if (stream.accesses <= 1) {
    sig.pattern.temporal = Temporal::None;
  } else if (compute.count() >= 2 && compute.mean() >= options.periodicMinNs &&
             std::sqrt(compute.variance()) <= options.periodicMaxCv * compute.mean()) {
    sig.pattern.temporal = Temporal::Periodic;
    sig.pattern.periodNs = compute.mean() + duration.mean();
    for (Component &c : sig.trace.components)
      c.periodNs = sig.pattern.periodNs;
  } else {
    sig.pattern.temporal = Temporal::Irregular;
  }
  return sig;
}

} // namespace sio::signature
