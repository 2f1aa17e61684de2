// Every rank's streams, classified, and ranks grouped by signature: ranks
// whose signatures differ only by where they start share one entry, with the
// initial position as a function of rank when an affine one fits exactly
// (`5308416*rank`), as Byna et al. SC08 §VI reports IOR's.
#include "sio/signature/Signature.h"

#include "RankMod.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>

namespace sio::signature {

nlohmann::json streamToJson(const StreamSignature &sig); // Format.cpp

namespace {

std::string groupKey(StreamSignature sig) {
  sig.trace.initialPosition = 0;
  return streamToJson(sig).dump();
}


/// Ranks of a class: the ones whose positions are pos + slope*(rank - first).
struct Piece {
  trace::RankList ranks;
  int64_t first = 0;
  int64_t position = 0;
  int64_t slope = 0;
};

/// Groups listing more ranks than this give their initial positions by
/// formula only (when one fits), not rank by rank.
constexpr int64_t kListedPositions = 4096;

void collectLists(const std::vector<trace::Node> &body, std::vector<const trace::RankList *> &out) {
  auto value = [&](const trace::ElasticValue &v) {
    if (v.entries().size() > 1)
      for (const trace::ElasticEntry &e : v.entries())
        out.push_back(&e.ranks);
  };
  for (const trace::Node &n : body) {
    out.push_back(&n.ranks);
    if (n.isEvent()) {
      for (const trace::Param &p : n.event().params)
        value(p.value);
    } else {
      value(n.loop().iterations);
      collectLists(n.loop().body, out);
    }
  }
}

/// The partition of the analysed ranks by membership in every rank list of
/// the trace, classes in order of their first rank.
std::vector<trace::RankList> rankClasses(const trace::Trace &trace, const Options &options) {
  if (options.rank)
    return {trace::RankList::single(*options.rank)};
  if (trace.header.nranks <= 0)
    return {};
  std::vector<const trace::RankList *> lists;
  collectLists(trace.body, lists);
  std::sort(lists.begin(), lists.end(), [](const auto *a, const auto *b) { return a->blocks() < b->blocks(); });
  lists.erase(std::unique(lists.begin(), lists.end(), [](const auto *a, const auto *b) { return *a == *b; }),
              lists.end());
  std::vector<trace::RankList> classes{trace::RankList::all(trace.header.nranks)};
  for (const trace::RankList *list : lists) {
    std::vector<trace::RankList> next;
    for (const trace::RankList &c : classes) {
      trace::RankList in = c.intersect(*list);
      if (in.empty()) {
        next.push_back(c);
        continue;
      }
      trace::RankList out = c.subtract(*list);
      next.push_back(std::move(in));
      if (!out.empty())
        next.push_back(std::move(out));
    }
    classes = std::move(next);
  }
  std::sort(classes.begin(), classes.end(), [](const auto &a, const auto &b) { return *a.first() < *b.first(); });
  return classes;
}

/// The class's positions stay within 64 bits at its last rank too (they are
/// affine in the rank, so the ends bound them).
bool shiftsFit(const std::vector<std::pair<AccessStream, int64_t>> &streams, int64_t first, int64_t last) {
  for (const auto &[stream, slope] : streams)
    for (const Run &r : stream.runs) {
      int64_t shift = 0, offset = 0, span = 0, end = 0;
      if (__builtin_mul_overflow(slope, last - first, &shift) || __builtin_add_overflow(r.offset, shift, &offset) ||
          __builtin_mul_overflow(r.stride, r.count - 1, &span) || __builtin_add_overflow(offset, span, &end))
        return false;
      for (const NestLevel &l : r.nest)
        if (__builtin_mul_overflow(l.stride, l.count - 1, &span) || __builtin_add_overflow(end, span, &end))
          return false;
    }
  return true;
}

/// Ranks, the initial position formula (an exact affine fit, integer
/// coefficients, as fitAffineExpr over every rank would give) and, for small
/// groups or without a formula, the per-rank positions.
/// The initial position as A*m + B*rank + C for a `%` term m of the trace
/// (`32768*((rank + 1) % nranks)`), fitted exactly at both ends of every
/// piece (m is affine on each piece, and so is the position).
std::optional<trace::Expr> fitWithRankMod(const std::vector<Piece> &pieces, const std::vector<RankMod> &mods) {
  std::vector<std::pair<int64_t, int64_t>> points; // (rank, position)
  for (const Piece &p : pieces) {
    points.emplace_back(p.first, p.position);
    const int64_t last = *p.ranks.last();
    if (last != p.first)
      points.emplace_back(last, p.position + p.slope * (last - p.first));
  }
  using trace::Rational;
  for (const RankMod &mod : mods) {
    // Three points whose rows (m, rank, 1) are independent give A, B, C.
    auto det3 = [](const std::array<std::array<Rational, 3>, 3> &x) {
      return x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1]) - x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0]) +
             x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]);
    };
    std::optional<std::array<Rational, 3>> coef;
    for (size_t i = 0; i < points.size() && !coef && i < 8; ++i)
      for (size_t j = i + 1; j < points.size() && !coef && j < 8; ++j)
        for (size_t k = j + 1; k < points.size() && !coef && k < 8; ++k) {
          std::array<std::array<Rational, 3>, 3> m;
          std::array<Rational, 3> y;
          size_t row = 0;
          for (size_t idx : {i, j, k}) {
            m[row] = {Rational(mod.valueAt(points[idx].first)), Rational(points[idx].first), Rational(1)};
            y[row++] = Rational(points[idx].second);
          }
          const Rational d = det3(m);
          if (d == Rational(0))
            continue;
          std::array<Rational, 3> c;
          for (size_t col = 0; col < 3; ++col) {
            auto mc = m;
            for (size_t r = 0; r < 3; ++r)
              mc[r][col] = y[r];
            c[col] = det3(mc) / d;
          }
          coef = c;
        }
    if (!coef || !(*coef)[0].isInteger() || !(*coef)[1].isInteger() || !(*coef)[2].isInteger())
      continue;
    bool fits = true;
    for (const auto &[rank, pos] : points)
      fits =
          fits && (*coef)[0] * Rational(mod.valueAt(rank)) + (*coef)[1] * Rational(rank) + (*coef)[2] == Rational(pos);
    if (fits)
      return trace::Expr((*coef)[0]) * trace::Expr::ofMonomial({{mod.atom, 1}}) +
             trace::Expr((*coef)[1]) * trace::Expr::rank() + trace::Expr((*coef)[2]);
  }
  return std::nullopt;
}

void finishGroup(SignatureGroup &g, const std::vector<Piece> &pieces, const std::vector<RankMod> &mods) {
  // The pieces' blocks, abutting intervals joined: RankList::unite of pieces
  // it cannot combine lists every rank (9 MB at 2^20 ranks).
  std::vector<trace::RankBlock> blocks;
  for (const Piece &p : pieces)
    for (const trace::RankBlock &b : p.ranks.blocks())
      blocks.push_back(b);
  std::sort(blocks.begin(), blocks.end(), [](const auto &x, const auto &y) { return x.start < y.start; });
  auto interval = [](const trace::RankBlock &b) {
    return b.dims.empty() || (b.dims.size() == 1 && (b.dims[0].stride == 1 || b.dims[0].count == 1));
  };
  std::vector<trace::RankBlock> joined;
  for (const trace::RankBlock &b : blocks) {
    if (!joined.empty() && interval(joined.back()) && interval(b) && joined.back().last() + 1 == b.start) {
      joined.back().dims = {{1, joined.back().size() + b.size()}};
      continue;
    }
    joined.push_back(b);
  }
  g.ranks = trace::RankList::fromBlocks(std::move(joined));
  const int64_t total = g.ranks.size();
  if (total == 1) {
    g.initialPosition = trace::Expr(pieces.front().position);
  } else {
    // The line through the pieces: from one of several ranks, or two points.
    std::optional<trace::Rational> slope, intercept;
    for (const Piece &p : pieces)
      if (p.ranks.size() > 1) {
        slope = trace::Rational(p.slope);
        intercept = trace::Rational(p.position) - *slope * trace::Rational(p.first);
        break;
      }
    if (!slope) {
      const Piece &a = pieces[0], &b = pieces[1];
      slope = trace::Rational(b.position - a.position) / trace::Rational(b.first - a.first);
      intercept = trace::Rational(a.position) - *slope * trace::Rational(a.first);
    }
    bool fits = true;
    for (const Piece &p : pieces) {
      if (p.ranks.size() > 1 && trace::Rational(p.slope) != *slope)
        fits = false;
      if (*intercept + *slope * trace::Rational(p.first) != trace::Rational(p.position))
        fits = false;
    }
    if (fits && slope->isInteger() && intercept->isInteger())
      g.initialPosition = trace::Expr(*intercept) + trace::Expr(*slope) * trace::Expr::rank();
    else if (pieces.size() <= 4096) {
      try {
        g.initialPosition = fitWithRankMod(pieces, mods);
      } catch (const std::exception &) {
        // coefficients beyond 64 bits: no formula, positions are listed
      }
    }
  }
  if (g.initialPosition && total > kListedPositions)
    return;
  for (const Piece &p : pieces)
    for (int64_t r : p.ranks.ranks())
      g.initialPositions.emplace_back(r, p.position + p.slope * (r - p.first));
  std::sort(g.initialPositions.begin(), g.initialPositions.end());
}

int64_t runBytes(const Run &r) {
  const int64_t one =
      r.sizeStep == 0 ? r.sizeFirst * r.count : r.sizeFirst * r.count + r.sizeStep * (r.count * (r.count - 1) / 2);
  return one * (r.total() / r.count);
}

/// The stream cut where its accesses move from one top-level loop of the
/// trace to the next (consecutive top-level calls outside loops stay one
/// phase): a program's phases, as its loops delimit them.
std::vector<AccessStream> phasesOf(const AccessStream &stream) {
  std::vector<AccessStream> out;
  const trace::Node *current = nullptr;
  for (const Run &r : stream.runs) {
    const trace::Node *key = r.top && r.top->isLoop() ? r.top : nullptr;
    if (out.empty() || key != current || (key == nullptr && out.back().runs.back().top->isLoop())) {
      AccessStream p;
      p.file = stream.file;
      p.instance = stream.instance;
      p.op = stream.op;
      p.logicalOffsets = stream.logicalOffsets;
      p.throughView = stream.throughView;
      p.truncated = stream.truncated;
      out.push_back(std::move(p));
      current = key;
    }
    out.back().runs.push_back(r);
    out.back().accesses += uint64_t(r.total());
    out.back().bytes += runBytes(r);
  }
  if (!out.empty())
    out.front().unknownPositions = stream.unknownPositions;
  return out;
}

struct Described {
  StreamSignature sig;
  int64_t slope = 0;
};

/// The signatures of one rank's (or class's) streams: a stream that follows
/// no pattern as a whole is described phase by phase when it has several;
/// files of one name formula (`out.<i0>`) with equal signatures become one
/// signature with a count of files.
std::vector<Described> describe(const std::vector<std::pair<AccessStream, int64_t>> &streams, const Options &o) {
  std::vector<Described> out;
  for (const auto &[stream, slope] : streams) {
    StreamSignature whole = detect(stream, o);
    const bool patternless =
        whole.pattern.spatial == Spatial::Random || whole.pattern.spatial == Spatial::VariableStrided;
    std::vector<AccessStream> phases;
    if (patternless)
      phases = phasesOf(stream);
    if (phases.size() < 2) {
      out.push_back({std::move(whole), slope});
      continue;
    }
    for (size_t i = 0; i < phases.size(); ++i) {
      StreamSignature sig = detect(phases[i], o);
      sig.phase = i;
      sig.phases = phases.size();
      out.push_back({std::move(sig), slope});
    }
  }
  std::map<std::string, size_t> seen;
  std::vector<Described> merged;
  for (Described &d : out) {
    auto [it, fresh] = seen.emplace(streamToJson(d.sig).dump() + "/" + std::to_string(d.slope), merged.size());
    if (fresh)
      merged.push_back(std::move(d));
    else
      ++merged[it->second].sig.fileInstances;
  }
  return merged;
}

} // namespace

SignatureReport analyze(const trace::Trace &trace, const Options &options) {
  SignatureReport report;
  report.program = trace.header.program;
  report.nranks = trace.header.nranks;
  report.pageSize = options.pageSize;
  for (const trace::FileEntry &f : trace.files) {
    if (f.id < 0 || f.id > 1'000'000)
      continue;
    if (report.fileNames.size() <= size_t(f.id))
      report.fileNames.resize(size_t(f.id) + 1);
    report.fileNames[size_t(f.id)] = f.formatStr();
  }
  if (options.pageSize <= 0)
    throw SignatureError("page size must be positive");
  if (options.rank && (*options.rank < 0 || *options.rank >= trace.header.nranks))
    throw SignatureError("rank " + std::to_string(*options.rank) + " is not in the trace (it has " +
                         std::to_string(trace.header.nranks) + " ranks)");
  if (!trace.header.complete)
    report.notes.push_back("the trace is incomplete (the runtime dropped events): signatures describe what was kept");

  // Ranks are analysed by class: ranks that belong to the same rank lists of
  // the trace (nodes, elastic entries) take the same path through it, and
  // where their values differ only in positions that move by a fixed number
  // of bytes per rank, one extraction stands for the whole class (its
  // signatures are shifted copies). A 10^6-rank SPMD trace has a handful of
  // classes. Classes whose values depend on the rank otherwise are analysed
  // rank by rank.
  std::vector<trace::RankList> classes = rankClasses(trace, options);
  // `%` terms of the rank in positions are affine on pieces of the ranks:
  // cut the classes there, so each piece is still analysed once.
  const std::vector<RankMod> mods = options.rank ? std::vector<RankMod>{} : rankMods(trace);
  if (!mods.empty())
    classes = splitByRankMods(std::move(classes), mods, trace.header.nranks, 1024);
  int64_t analysed = 0;
  auto progress = [&](int64_t ranks) {
    const int64_t before = analysed;
    analysed += ranks;
    if (options.progress && (analysed >> 12) != (before >> 12))
      options.progress(analysed, options.rank ? 1 : trace.header.nranks);
  };

  std::map<std::string, size_t> groupOf;
  std::vector<std::vector<Piece>> pieces;
  std::vector<std::pair<int64_t, size_t>> firstSeen; // (rank, stream index) where each group first appears
  bool logical = false, unknown = false, truncated = false;
  auto add = [&](const StreamSignature &sig, const Piece &piece, size_t streamIndex) {
    logical = logical || sig.logicalOffsets;
    unknown = unknown || sig.unknownPositions;
    truncated = truncated || sig.truncated;
    if (sig.accesses == 0)
      return;
    const std::string key = groupKey(sig);
    auto [it, fresh] = groupOf.emplace(key, report.groups.size());
    if (fresh) {
      SignatureGroup g;
      g.signature = sig;
      report.groups.push_back(std::move(g));
      pieces.emplace_back();
      firstSeen.emplace_back(piece.first, streamIndex);
    } else if (std::pair(piece.first, streamIndex) < firstSeen[it->second]) {
      firstSeen[it->second] = {piece.first, streamIndex};
      report.groups[it->second].signature = sig;
    }
    pieces[it->second].push_back(piece);
  };
  for (const trace::RankList &cls : classes) {
    const int64_t r0 = *cls.first();
    std::optional<std::vector<std::pair<AccessStream, int64_t>>> uniform;
    if (cls.size() > 1)
      uniform = extractUniformStreams(trace, r0, options, &cls);
    if (uniform && !shiftsFit(*uniform, r0, *cls.last()))
      uniform.reset();
    if (uniform) {
      const std::vector<Described> sigs = describe(*uniform, options);
      for (size_t k = 0; k < sigs.size(); ++k)
        add(sigs[k].sig, Piece{cls, r0, sigs[k].sig.trace.initialPosition, sigs[k].slope}, k);
      progress(cls.size());
      continue;
    }
    for (int64_t rank : cls.ranks()) {
      std::vector<std::pair<AccessStream, int64_t>> streams;
      for (AccessStream &s : extractStreams(trace, rank, options))
        streams.emplace_back(std::move(s), 0);
      const std::vector<Described> sigs = describe(streams, options);
      for (size_t k = 0; k < sigs.size(); ++k)
        add(sigs[k].sig, Piece{trace::RankList::single(rank), rank, sigs[k].sig.trace.initialPosition, 0}, k);
      progress(1);
    }
  }
  if (report.groups.empty()) {
    std::string what = options.ops == OpFilter::Read ? "reads" : options.ops == OpFilter::Write ? "writes" : "reads or writes";
    std::string where = options.rank ? " of rank " + std::to_string(*options.rank) : "";
    throw SignatureError("the trace has no " + what + where + " whose file positions are known");
  }
  // Groups in order of first appearance, ranks ascending, as a rank-by-rank
  // walk would list them.
  std::vector<size_t> order(report.groups.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return firstSeen[a] < firstSeen[b]; });
  std::vector<SignatureGroup> sorted;
  for (size_t i : order) {
    SignatureGroup g = std::move(report.groups[i]);
    finishGroup(g, pieces[i], mods);
    sorted.push_back(std::move(g));
  }
  report.groups = std::move(sorted);
  if (logical)
    report.notes.push_back("some files are accessed through non-contiguous MPI-IO views: their offsets are the "
                           "views' logical byte positions (disp + offset * etype size)");
  if (unknown)
    report.notes.push_back("some accesses had no reconstructible position (seek from the end, handle opened "
                           "before tracing, unevaluable value) and are left out");
  if (truncated)
    report.notes.push_back("some streams were longer than the analysis limit; their prefix is described");
  return report;
}

} // namespace sio::signature
