// From a compressed trace to one rank's access streams.
//
// Offsets come from the trace where the call carries one (`*_at*`, pread,
// pwrite) and from a replayed file pointer otherwise: opens start it at 0,
// seeks move it (SET/CUR; END makes it unknown until the next SET), reads
// and writes advance it by the bytes they move, MPI_File_set_view resets it.
// MPI-IO offsets are in etype units of the view and become bytes as
// `disp + offset * size(etype)`. For a view whose filetype is not contiguous
// those bytes are the view's logical positions, not the file's (the stream
// says so); that keeps the pattern the application expresses, which is what
// a prefetcher sitting above the view sees.
//
// Loops are not expanded when they need not be: a loop whose body is one
// access (plus synchronization) with an offset and size affine in the loop
// index becomes one Run, whatever its iteration count.
#include "sio/signature/Signature.h"

#include "RankMod.h"
#include "ViewMap.h"

#include "sio/trace/Summary.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

namespace sio::signature {

using trace::Direction;
using trace::Event;
using trace::Expr;
using trace::ExprEnv;
using trace::Layer;
using trace::Node;
using trace::Trace;

namespace {


/// Whence values: POSIX 0/1/2 and MPICH's MPI_SEEK_SET/CUR/END (600/602/604).
enum class Whence { Set, Cur, End, Unknown };
Whence whenceOf(int64_t v) {
  switch (v) {
  case 0:
  case 600:
    return Whence::Set;
  case 1:
  case 602:
    return Whence::Cur;
  case 2:
  case 604:
    return Whence::End;
  default:
    return Whence::Unknown;
  }
}

bool isSeek(std::string_view op) {
  return op == "lseek" || op == "lseek64" || op == "fseek" || op == "fseeko" || op == "fseeko64" ||
         op == "MPI_File_seek" || op == "MPI_File_seek_shared";
}
bool isClose(std::string_view op) { return op == "close" || op == "fclose" || op == "MPI_File_close"; }

/// Handle parameter names by layer; the key kind keeps fd 3 and fh 3 apart.
constexpr std::array<std::string_view, 3> kHandleParams = {"fh", "fd", "stream"};

/// The expression is affine in loop index `depth` with the outer indices
/// fixed: no power above one, no opaque atom (`%`, table) that uses it.
bool affineIn(const Expr &e, uint32_t depth) {
  for (const auto &[mono, coef] : e.terms()) {
    for (const auto &[atom, exp] : mono) {
      if (atom.kind == trace::Atom::Kind::Loop && atom.loopDepth == depth && exp != 1)
        return false;
      if (atom.kind == trace::Atom::Kind::Mod || atom.kind == trace::Atom::Kind::Table) {
        if ((atom.lhs && atom.lhs->loopDepthUsed() > depth) || (atom.rhs && atom.rhs->loopDepthUsed() > depth))
          return false;
      }
    }
  }
  return true;
}

bool usesIndex(const Expr &e, uint32_t depth) { return e.loopDepthUsed() > depth; }

/// The expression is affine in the loop indices `from` and deeper (a loop
/// nest's) with the outer indices fixed: each monomial holds at most one of
/// them, to the first power, and no opaque atom (`%`, table) uses them.
bool affineInNest(const Expr &e, uint32_t from) {
  for (const auto &[mono, coef] : e.terms()) {
    int nestAtoms = 0;
    for (const auto &[atom, exp] : mono) {
      if (atom.kind == trace::Atom::Kind::Loop && atom.loopDepth >= from) {
        if (exp != 1 || ++nestAtoms > 1)
          return false;
      }
      if ((atom.kind == trace::Atom::Kind::Mod || atom.kind == trace::Atom::Kind::Table) &&
          ((atom.lhs && atom.lhs->loopDepthUsed() > from) || (atom.rhs && atom.rhs->loopDepthUsed() > from)))
        return false;
    }
  }
  return true;
}

struct View {
  int64_t disp = 0;
  int64_t etypeSize = 1;
  bool contiguous = true;
  int64_t dispSlope = 0; ///< symbolic mode: bytes disp grows per rank
  int64_t filetype = -1; ///< a non-contiguous view's filetype (trace id)
};

/// A file of the trace's files table and, for an entry whose name is a
/// formula of loop indices (`out.<i0>`), which of its files.
using FileKey = std::pair<int64_t, int64_t>;

struct HandleState {
  int64_t file = -1;
  int64_t instance = 0;
  FileKey key() const { return {file, instance}; }
  std::optional<int64_t> pointer = 0; ///< bytes from the view's displacement
  View view;
  int64_t pointerSlope = 0; ///< symbolic mode: bytes the pointer grows per rank
};

/// Whether a filetype lays its bytes out contiguously (size == extent, or a
/// kind that is always contiguous).
bool contiguousType(const Trace &t, int64_t id, int64_t rank, int depth = 0) {
  const trace::ObjectEntry *d = t.datatype(id);
  if (!d || depth > 32)
    return false;
  if (d->kind == "named")
    return true;
  auto field = [&](const char *name) -> std::optional<int64_t> {
    auto it = d->fields.find(name);
    if (it == d->fields.end() || it->second.empty())
      return std::nullopt;
    return it->second[0].evaluate({rank, t.header.nranks, {}});
  };
  if (auto size = field("size"))
    if (auto extent = field("extent"))
      return *size == *extent;
  if (d->kind == "contiguous" || d->kind == "dup") {
    auto old = field("oldtype");
    return old && contiguousType(t, *old, rank, depth + 1);
  }
  return false;
}

class Extractor {
public:
  Extractor(const Trace &t, int64_t rank, const Options &o, bool symbolic = false,
            const trace::RankList *ranks = nullptr)
      : t_(t), rank_(rank), o_(o), symbolic_(symbolic), ranks_(ranks) {
    if (symbolic_)
      for (const trace::ObjectEntry &d : t_.datatypes)
        for (const auto &[name, values] : d.fields)
          for (const Expr &v : values)
            if (v.dependsOnRank())
              failed_ = true; // type sizes per rank: no uniform answer
  }

  /// Symbolic mode: false when some value the analysis used depends on the
  /// rank other than as `slope*rank` in a position.
  bool exact() const { return !failed_; }
  /// Symbolic mode, after run(): bytes per rank the positions of each
  /// stream move by (one per stream, in order).
  const std::vector<int64_t> &slopes() const { return slopes_; }

  std::vector<AccessStream> run() {
    std::vector<int64_t> indices;
    for (const Node &n : t_.body) {
      top_ = &n;
      topIteration_ = 0;
      visit(n, indices);
    }
    return split();
  }

private:
  struct Located {
    FileKey file;
    Run run;
  };

  ExprEnv env(const std::vector<int64_t> &indices) const {
    return ExprEnv{rank_, t_.header.nranks, std::span<const int64_t>(indices)};
  }

  const Expr *exprParam(const Event &ev, std::string_view name) const {
    const trace::Param *p = ev.param(name);
    if (!p)
      return nullptr;
    const trace::Value *v = p->value.valueFor(rank_);
    return v ? std::get_if<Expr>(v) : nullptr;
  }

  std::optional<int64_t> evalParam(const Event &ev, std::string_view name, const std::vector<int64_t> &indices) const {
    const Expr *e = exprParam(ev, name);
    if (!e)
      return std::nullopt;
    try {
      return e->evaluate(env(indices));
    } catch (const std::exception &) {
      return std::nullopt;
    }
  }

  /// A position parameter's value and its slope per rank (symbolic mode).
  std::optional<std::pair<int64_t, int64_t>> evalPosition(const Event &ev, std::string_view name,
                                                          const std::vector<int64_t> &indices) {
    auto v = evalParam(ev, name, indices);
    if (!v)
      return std::nullopt;
    int64_t slope = 0;
    if (symbolic_)
      if (const Expr *e = exprParam(ev, name))
        slope = slopeOf(*e).value_or(0);
    return std::pair<int64_t, int64_t>{*v, slope};
  }

  std::optional<int64_t> slopeOf(const Expr &e) {
    auto it = slopeCache_.find(&e);
    if (it == slopeCache_.end())
      it = slopeCache_.emplace(&e, rankSlopeOver(e, t_.header.nranks, ranks_)).first;
    return it->second;
  }

  /// Symbolic mode: every parameter of `ev` must be the same for all ranks
  /// of the class, except positions, which may move by a fixed slope.
  void checkUniform(const Event &ev) {
    if (!symbolic_ || failed_ || !checked_.insert(&ev).second)
      return;
    const bool positions = ev.op == "MPI_File_set_view" || isSeek(ev.op) || isAccess(ev);
    for (const trace::Param &p : ev.params) {
      const trace::Value *v = p.value.valueFor(rank_);
      const Expr *e = v ? std::get_if<Expr>(v) : nullptr;
      if (!e || !e->dependsOnRank())
        continue;
      const bool position = positions && (p.name == "offset" || (p.name == "disp" && ev.op == "MPI_File_set_view"));
      if (!position || !slopeOf(*e))
        failed_ = true;
    }
  }

  /// (kind, handle value) of the handle an event uses.
  std::optional<std::pair<int, int64_t>> handleOf(const Event &ev, const std::vector<int64_t> &indices) const {
    for (size_t k = 0; k < kHandleParams.size(); ++k)
      if (ev.param(kHandleParams[k]))
        if (auto v = evalParam(ev, kHandleParams[k], indices))
          return std::pair<int, int64_t>{int(k), *v};
    return std::nullopt;
  }

  /// A read or write that happened: a failed one (an `error` result) moved
  /// nothing and left the file pointer where it was.
  static bool isAccess(const Event &ev) {
    return !ev.inner && ev.layer != Layer::SYNC && trace::direction(ev.op) != Direction::None && !ev.param("error");
  }

  /// Events that change no I/O state this analysis tracks.
  static bool isInert(const Event &ev) {
    return ev.inner || ev.layer == Layer::SYNC || (trace::direction(ev.op) != Direction::None && ev.param("error"));
  }

  void visit(const Node &n, std::vector<int64_t> &indices) {
    if (!n.ranks.contains(rank_) || truncated_)
      return;
    if (indices.empty()) {
      // A top-level node is its own component until a loop says otherwise.
      component_ = &n;
      topIteration_ = 0;
    }
    if (n.isEvent()) {
      event(n.event(), indices);
      return;
    }
    const trace::Loop &loop = n.loop();
    const trace::Value *iv = loop.iterations.valueFor(rank_);
    const Expr *ie = iv ? std::get_if<Expr>(iv) : nullptr;
    std::optional<int64_t> iters;
    if (ie && symbolic_ && ie->dependsOnRank())
      failed_ = true;
    if (ie) {
      try {
        iters = ie->evaluate(env(indices));
      } catch (const std::exception &) {
      }
    }
    if (!iters || *iters <= 0) {
      if (!iters)
        ++unknown_[FileKey{-1, 0}]; // accesses inside cannot be counted either
      return;
    }
    const uint32_t depth = uint32_t(indices.size());
    indices.push_back(0);
    if (tryNest(loop, *iters, indices, depth) || tryFastLoop(loop, *iters, indices, depth)) {
      indices.pop_back();
      return;
    }
    for (int64_t j = 0; j < *iters && !truncated_; ++j) {
      if (++expanded_ > o_.maxExpandedIterations) {
        truncated_ = true;
        break;
      }
      indices.back() = j;
      if (depth == 0)
        topIteration_ = j;
      for (const Node &c : loop.body) {
        // The children of a top-level loop are the components of its pattern.
        if (depth == 0)
          component_ = &c;
        visit(c, indices);
      }
    }
    indices.pop_back();
  }

  /// A loop whose body (for this rank) is one access with offset and size
  /// affine in the loop index, among inert events: one Run.
  /// The event's offset and sizes are `affine` in the loop indices from
  /// `depth` on, and no other parameter uses them: the loop can be walked
  /// by formula instead of iteration by iteration.
  bool paramsFollowTheLoop(const Event &ev, uint32_t depth, bool (*affine)(const Expr &, uint32_t)) const {
    for (const trace::Param &p : ev.params) {
      const trace::Value *v = p.value.valueFor(rank_);
      const Expr *e = v ? std::get_if<Expr>(v) : nullptr;
      if (!e)
        continue;
      const bool sizeOrOffset = p.name == "offset" || p.name == "count" || p.name == "size" || p.name == "nmemb" ||
                                p.name == "bytes" || p.name == "result";
      if (sizeOrOffset ? !affine(*e, depth) : usesIndex(*e, depth))
        return false;
    }
    return true;
  }

  bool tryFastLoop(const trace::Loop &loop, int64_t iters, std::vector<int64_t> &indices, uint32_t depth) {
    const Node *access = nullptr;
    for (const Node &c : loop.body) {
      if (!c.ranks.contains(rank_))
        continue;
      if (!c.isEvent())
        return false;
      if (isAccess(c.event())) {
        if (access)
          return false;
        access = &c;
      } else if (!isInert(c.event())) {
        return false;
      }
    }
    if (!access)
      return true; // nothing this analysis sees
    const Event &ev = access->event();
    checkUniform(ev);
    if (!paramsFollowTheLoop(ev, depth, affineIn))
      return false;
    // Affine and integral at indices 0 and 1 means integral coefficients, so
    // size(i) = s0 + i*(s1 - s0) and offset(i) likewise for every i.
    // Sizes are the requests (the pattern the application issues); a file
    // pointer moves by what was transferred, so a loop whose calls moved
    // less than they asked for is expanded.
    indices.back() = 0;
    auto s0 = trace::requestedBytes(t_, ev, env(indices));
    std::optional<int64_t> s1 = s0;
    if (iters > 1) {
      indices.back() = 1;
      s1 = trace::requestedBytes(t_, ev, env(indices));
    }
    if (!s0 || !s1)
      return false;
    if (!ev.param("offset") && ev.param("result")) {
      for (int64_t i : {int64_t(0), iters - 1}) {
        indices.back() = i;
        if (trace::transferBytes(t_, ev, env(indices)) != trace::requestedBytes(t_, ev, env(indices)))
          return false;
      }
    }
    const int64_t sizeStep = *s1 - *s0;
    if (depth == 0)
      component_ = access; // a top-level loop of single accesses: one component
    indices.back() = 0;
    const bool explicitOffset = ev.param("offset") != nullptr;
    if (explicitOffset) {
      auto h = handleOf(ev, indices);
      HandleState &hs = handle(h);
      auto o0 = evalParam(ev, "offset", indices);
      std::optional<int64_t> o1 = o0;
      if (iters > 1) {
        indices.back() = 1;
        o1 = evalParam(ev, "offset", indices);
      }
      if (!o0 || !o1)
        return false;
      const int64_t unit = ev.layer == Layer::MPIIO ? hs.view.etypeSize : 1;
      Run r;
      r.offset = hs.view.disp + *o0 * unit;
      if (symbolic_)
        r.rankSlope = hs.view.dispSlope + slopeOf(*exprParam(ev, "offset")).value_or(0) * unit;
      r.stride = (*o1 - *o0) * unit;
      r.count = iters;
      r.sizeFirst = *s0;
      r.sizeStep = sizeStep;
      r.op = trace::direction(ev.op) == Direction::Read ? Operation::Read : Operation::Write;
      r.event = &ev;
      emit(hs, r, ev.layer == Layer::MPIIO && !hs.view.contiguous);
      return true;
    }
    if (sizeStep != 0)
      return false; // pointer offsets would grow quadratically: expand instead
    auto h = handleOf(ev, indices);
    HandleState &hs = handle(h);
    if (!hs.pointer) {
      unknown_[hs.key()] += uint64_t(iters);
      return true;
    }
    Run r;
    r.offset = (ev.layer == Layer::MPIIO ? hs.view.disp : 0) + *hs.pointer;
    r.rankSlope = (ev.layer == Layer::MPIIO ? hs.view.dispSlope : 0) + hs.pointerSlope;
    r.stride = *s0;
    r.count = iters;
    r.sizeFirst = *s0;
    r.op = trace::direction(ev.op) == Direction::Read ? Operation::Read : Operation::Write;
    r.event = &ev;
    int64_t advance = 0;
    if (__builtin_mul_overflow(*s0, iters, &advance) || __builtin_add_overflow(*hs.pointer, advance, &*hs.pointer)) {
      hs.pointer.reset();
      unknown_[hs.key()] += uint64_t(iters);
      return true;
    }
    emit(hs, r, ev.layer == Layer::MPIIO && !hs.view.contiguous);
    return true;
  }

  /// Which file of entry `file` an open at these indices opens: 0 unless the
  /// entry's name is a formula of loop indices, then one per distinct name.
  int64_t instanceOf(int64_t file, const std::vector<int64_t> &indices) {
    const trace::FileEntry *f = t_.file(file);
    if (!f || f->loopDepthUsed() == 0)
      return 0;
    auto name = f->nameFor(rank_, t_.header.nranks, std::span<const int64_t>(indices));
    if (!name)
      return 0;
    auto &names = instances_[file];
    return names.emplace(*name, int64_t(names.size())).first->second;
  }

  /// A perfect loop nest of at least two levels (each level's body, for
  /// this rank, is the next loop or, innermost, one access with an explicit
  /// offset, among inert events), whose offset is affine in the nest's
  /// indices and whose inner iteration counts do not depend on them: one Run
  /// with nest levels, read off the formulas (ScalaIOTrace's PRSDs are such
  /// nests), whatever the iteration counts.
  bool tryNest(const trace::Loop &loop, int64_t iters, std::vector<int64_t> &indices, uint32_t depth) {
    std::vector<int64_t> counts{iters};
    const trace::Loop *cur = &loop;
    const Node *access = nullptr;
    while (!access) {
      const Node *only = nullptr;
      for (const Node &c : cur->body) {
        if (!c.ranks.contains(rank_) || (c.isEvent() && !isAccess(c.event()) && isInert(c.event())))
          continue;
        if (only || (c.isEvent() && !isAccess(c.event())))
          return false;
        only = &c;
      }
      if (!only)
        return false;
      if (only->isEvent()) {
        access = only;
        break;
      }
      if (counts.size() >= 16)
        return false;
      const trace::Value *iv = only->loop().iterations.valueFor(rank_);
      const Expr *ie = iv ? std::get_if<Expr>(iv) : nullptr;
      if (!ie || ie->loopDepthUsed() > depth || (symbolic_ && ie->dependsOnRank()))
        return false;
      std::optional<int64_t> n;
      try {
        n = ie->evaluate(env(indices));
      } catch (const std::exception &) {
      }
      if (!n || *n <= 0)
        return false;
      counts.push_back(*n);
      cur = &only->loop();
    }
    if (counts.size() < 2)
      return false;
    const Event &ev = access->event();
    if (!ev.param("offset"))
      return false;
    if (!paramsFollowTheLoop(ev, depth, affineInNest))
      return false;
    checkUniform(ev);
    const size_t levels = counts.size();
    indices.resize(depth + levels, 0);
    auto at = [&](std::optional<size_t> unit) {
      std::fill(indices.begin() + depth, indices.end(), 0);
      if (unit)
        indices[depth + *unit] = 1;
      return std::pair(evalParam(ev, "offset", indices), trace::requestedBytes(t_, ev, env(indices)));
    };
    const auto [o0, s0] = at(std::nullopt);
    if (!o0 || !s0)
      return cleanup(indices, depth);
    std::vector<int64_t> strides;
    int64_t sizeStep = 0;
    for (size_t l = 0; l < levels; ++l) {
      const auto [o, sz] = at(l);
      if (!o || !sz)
        return cleanup(indices, depth);
      // Sizes restart with each iteration of an outer level: only the
      // innermost one may change them.
      if (l + 1 < levels && *sz != *s0)
        return cleanup(indices, depth);
      if (l + 1 == levels)
        sizeStep = *sz - *s0;
      strides.push_back(*o - *o0);
    }
    std::fill(indices.begin() + depth, indices.end(), 0);
    auto h = handleOf(ev, indices);
    cleanup(indices, depth);
    HandleState &hs = handle(h);
    const int64_t unit = ev.layer == Layer::MPIIO ? hs.view.etypeSize : 1;
    Run r;
    r.offset = (ev.layer == Layer::MPIIO ? hs.view.disp : 0) + *o0 * unit;
    if (symbolic_)
      r.rankSlope =
          (ev.layer == Layer::MPIIO ? hs.view.dispSlope : 0) + slopeOf(*exprParam(ev, "offset")).value_or(0) * unit;
    r.stride = strides.back() * unit;
    r.count = counts.back();
    for (size_t l = 0; l + 1 < levels; ++l)
      r.nest.push_back({strides[l] * unit, counts[l]});
    r.sizeFirst = *s0;
    r.sizeStep = sizeStep;
    r.op = trace::direction(ev.op) == Direction::Read ? Operation::Read : Operation::Write;
    r.event = &ev;
    if (depth == 0)
      component_ = access;
    normalizeNest(r);
    emit(hs, r, ev.layer == Layer::MPIIO && !hs.view.contiguous);
    return true;
  }

  static bool cleanup(std::vector<int64_t> &indices, uint32_t depth) {
    indices.resize(depth + 1);
    return false;
  }

  /// Levels of one iteration drop out; a level that continues the one inside
  /// it (its stride is where the inner level's next iteration would be)
  /// merges with it: a nest of contiguous rows is one longer run.
  static void normalizeNest(Run &r) {
    std::erase_if(r.nest, [](const NestLevel &l) { return l.count == 1; });
    while (!r.nest.empty()) {
      NestLevel &l = r.nest.back();
      if (r.count == 1) {
        r.stride = l.stride;
        r.count = l.count;
      } else if (r.sizeStep == 0 && l.stride == r.stride * r.count) {
        r.count *= l.count;
      } else {
        break;
      }
      r.nest.pop_back();
    }
    for (size_t k = r.nest.size(); k-- > 1;) {
      const NestLevel inner = r.nest[k];
      if (r.nest[k - 1].stride == inner.stride * inner.count) {
        r.nest[k - 1] = {inner.stride, inner.count * r.nest[k - 1].count};
        r.nest.erase(r.nest.begin() + long(k));
      }
    }
  }

  HandleState &handle(const std::optional<std::pair<int, int64_t>> &h) {
    if (!h)
      return orphan_;
    auto it = handles_.find(*h);
    if (it == handles_.end()) {
      // A handle opened before tracing started: file and position unknown.
      HandleState s;
      s.pointer.reset();
      it = handles_.emplace(*h, s).first;
    }
    return it->second;
  }

  void event(const Event &ev, std::vector<int64_t> &indices) {
    if (ev.inner || ev.layer == Layer::SYNC)
      return;
    checkUniform(ev);
    const std::string_view op = ev.op;
    auto h = handleOf(ev, indices);
    if (ev.param("file") && h) {
      HandleState s;
      s.file = evalParam(ev, "file", indices).value_or(-1);
      s.instance = instanceOf(s.file, indices);
      handles_[*h] = s;
      return;
    }
    if (!h)
      return;
    if (isClose(op)) {
      handles_.erase(*h);
      return;
    }
    HandleState &hs = handle(h);
    if (op == "MPI_File_set_view") {
      View v;
      const auto disp = evalPosition(ev, "disp", indices);
      v.disp = disp ? disp->first : 0;
      v.dispSlope = disp ? disp->second : 0;
      if (auto et = evalParam(ev, "etype", indices))
        v.etypeSize = trace::datatypeSize(t_, *et, rank_).value_or(1);
      if (auto ft = evalParam(ev, "filetype", indices)) {
        v.contiguous = contiguousType(t_, *ft, rank_);
        v.filetype = v.contiguous ? -1 : *ft;
      }
      hs.view = v;
      hs.pointer = 0;
      hs.pointerSlope = 0;
      return;
    }
    if (op == "rewind") {
      hs.pointer = 0;
      hs.pointerSlope = 0;
      return;
    }
    if (isSeek(op)) {
      const auto pos = evalPosition(ev, "offset", indices);
      auto wh = evalParam(ev, "whence", indices);
      const int64_t unit = ev.layer == Layer::MPIIO ? hs.view.etypeSize : 1;
      const Whence w = wh ? whenceOf(*wh) : Whence::Unknown;
      if (pos && w == Whence::Set) {
        hs.pointer = pos->first * unit;
        hs.pointerSlope = pos->second * unit;
      } else if (pos && w == Whence::Cur && hs.pointer) {
        hs.pointer = *hs.pointer + pos->first * unit;
        hs.pointerSlope += pos->second * unit;
      } else {
        hs.pointer.reset();
      }
      return;
    }
    if (!isAccess(ev))
      return;
    auto size = trace::requestedBytes(t_, ev, env(indices));
    auto moved = trace::transferBytes(t_, ev, env(indices));
    if (!size || !moved) {
      ++unknown_[hs.key()];
      return;
    }
    Run r;
    r.count = 1;
    r.sizeFirst = *size;
    r.op = trace::direction(op) == Direction::Read ? Operation::Read : Operation::Write;
    r.event = &ev;
    const bool mpi = ev.layer == Layer::MPIIO;
    if (ev.param("offset")) {
      const auto pos = evalPosition(ev, "offset", indices);
      if (!pos) {
        ++unknown_[hs.key()];
        return;
      }
      r.offset = mpi ? hs.view.disp + pos->first * hs.view.etypeSize : pos->first;
      r.rankSlope = mpi ? hs.view.dispSlope + pos->second * hs.view.etypeSize : pos->second;
    } else {
      if (!hs.pointer) {
        ++unknown_[hs.key()];
        return;
      }
      r.offset = (mpi ? hs.view.disp : 0) + *hs.pointer;
      r.rankSlope = (mpi ? hs.view.dispSlope : 0) + hs.pointerSlope;
      *hs.pointer += *moved;
    }
    emit(hs, r, mpi && !hs.view.contiguous);
  }

  /// A run through a non-contiguous view in file offsets: each access's
  /// first byte where the filetype puts it. Possible when every stride (and
  /// the rank slope) is a whole number of filetype tiles, which then move by
  /// whole extents; otherwise the run stays in logical bytes.
  bool toFileOffsets(const View &v, Run &r) const {
    if (v.filetype < 0)
      return false;
    auto l = typeLayout(t_, v.filetype, rank_);
    if (!l || l->size <= 0 || l->extent <= 0)
      return false;
    const int64_t S = l->size, E = l->extent;
    const int64_t slope = r.rankSlope - v.dispSlope;
    if ((r.count > 1 && r.stride % S != 0) || slope % S != 0)
      return false;
    for (const NestLevel &n : r.nest)
      if (n.stride % S != 0)
        return false;
    auto first = fileOffsetOf(t_, v.filetype, rank_, r.offset - v.disp);
    if (!first)
      return false;
    r.offset = v.disp + *first;
    r.stride = r.stride / S * E;
    r.rankSlope = v.dispSlope + slope / S * E;
    for (NestLevel &n : r.nest)
      n.stride = n.stride / S * E;
    return true;
  }

  void emit(const HandleState &hs, Run r, bool logical) {
    if (logical && toFileOffsets(hs.view, r)) {
      logical = false;
      throughView_[hs.key()] = true;
    }
    // Positions beyond 64 bits (a hostile or corrupt trace) are unknowable.
    int64_t span = 0, last = 0, growth = 0, lastSize = 0, bytes = 0, total = r.count;
    bool overflow = __builtin_mul_overflow(r.stride, r.count - 1, &span) ||
                    __builtin_add_overflow(r.offset, span, &last) ||
                    __builtin_mul_overflow(r.sizeStep, r.count - 1, &growth) ||
                    __builtin_add_overflow(r.sizeFirst, growth, &lastSize);
    for (const NestLevel &l : r.nest)
      overflow = overflow || __builtin_mul_overflow(l.stride, l.count - 1, &span) ||
                 __builtin_add_overflow(last, span, &last) || __builtin_mul_overflow(total, l.count, &total);
    if (overflow || __builtin_mul_overflow(std::max(r.sizeFirst, lastSize), total, &bytes)) {
      unknown_[hs.key()] += uint64_t(r.count);
      return;
    }
    r.top = top_;
    r.topIteration = topIteration_;
    r.component = component_;
    if (logical)
      logical_[hs.key()] = true;
    auto &count = accessCount_[hs.key()];
    if (count >= o_.maxAccesses) {
      truncatedFiles_[hs.key()] = true;
      return;
    }
    count += uint64_t(total);
    if (!located_.empty() && r.nest.empty()) {
      // Consecutive single accesses of one component continue a run.
      for (auto it = located_.rbegin(); it != located_.rend(); ++it) {
        if (it->file != hs.key())
          continue;
        Run &p = it->run;
        if (p.nest.empty() && p.op == r.op && p.component == r.component && p.top == r.top &&
            p.topIteration == r.topIteration && p.event == r.event && r.count == 1 && p.sizeStep == 0 &&
            p.sizeFirst == r.sizeFirst) {
          const int64_t stride = p.count > 1 ? p.stride : r.offset - p.offset;
          if (r.offset == p.lastOffset() + stride) {
            p.stride = stride;
            ++p.count;
            return;
          }
        }
        break;
      }
    }
    located_.push_back({hs.key(), r});
  }

  std::vector<AccessStream> split() {
    std::vector<FileKey> order;
    std::map<FileKey, std::vector<const Run *>> byFile;
    for (const Located &l : located_) {
      if (!byFile.count(l.file))
        order.push_back(l.file);
      byFile[l.file].push_back(&l.run);
    }
    for (const auto &[file, n] : unknown_)
      if (!byFile.count(file) && n) {
        order.push_back(file);
        byFile[file];
      }
    std::vector<AccessStream> out;
    for (const FileKey &file : order) {
      const auto &runs = byFile[file];
      uint64_t reads = 0, writes = 0, switches = 0;
      for (size_t i = 0; i < runs.size(); ++i) {
        (runs[i]->op == Operation::Read ? reads : writes) += uint64_t(runs[i]->total());
        if (i && runs[i]->op != runs[i - 1]->op)
          ++switches;
      }
      // Interleaved reads and writes are one read/write pattern; phases
      // (write everything, then read it back) are two.
      const bool interleaved =
          o_.ops == OpFilter::All && reads && writes && switches >= 2 && switches * 2 >= std::min(reads, writes);
      auto make = [&](Operation op) {
        AccessStream s;
        s.file = file.first;
        s.instance = file.second;
        s.op = op;
        for (const Run *r : runs)
          if (op == Operation::ReadWrite || r->op == op) {
            s.runs.push_back(*r);
            s.accesses += uint64_t(r->total());
            s.bytes += (r->sizeStep == 0 ? r->sizeFirst * r->count
                                         : r->sizeFirst * r->count + r->sizeStep * (r->count * (r->count - 1) / 2)) *
                       (r->total() / r->count);
          }
        s.unknownPositions = unknown_.count(file) ? unknown_.at(file) : 0;
        s.logicalOffsets = logical_.count(file) > 0;
        s.throughView = throughView_.count(file) > 0;
        s.truncated = truncated_ || truncatedFiles_.count(file) > 0;
        if (!s.runs.empty() || s.unknownPositions) {
          // One slope per file: every position of the stream moves alike,
          // and the run merges of emit() compared positions of one file.
          int64_t slope = runs.empty() ? 0 : runs.front()->rankSlope;
          for (const Run *r : runs)
            if (r->rankSlope != slope)
              failed_ = true;
          slopes_.push_back(slope);
          out.push_back(std::move(s));
        }
      };
      if (interleaved) {
        make(Operation::ReadWrite);
        continue;
      }
      // Phases in order of their first access.
      std::vector<Operation> ops;
      for (const Run *r : runs)
        if (std::find(ops.begin(), ops.end(), r->op) == ops.end())
          ops.push_back(r->op);
      for (Operation op : ops)
        if ((op == Operation::Read && o_.ops != OpFilter::Write) || (op == Operation::Write && o_.ops != OpFilter::Read))
          make(op);
    }
    return out;
  }

  const Trace &t_;
  int64_t rank_;
  const Options &o_;
  bool symbolic_ = false;
  const trace::RankList *ranks_ = nullptr; ///< symbolic mode: the class's ranks, for `%` terms of the rank
  bool failed_ = false;
  std::vector<int64_t> slopes_;
  std::map<const Expr *, std::optional<int64_t>> slopeCache_;
  std::set<const Event *> checked_;
  std::map<std::pair<int, int64_t>, HandleState> handles_;
  HandleState orphan_{-1, 0, std::nullopt, {}};
  std::vector<Located> located_;
  std::map<FileKey, uint64_t> unknown_;
  std::map<FileKey, uint64_t> accessCount_;
  std::map<FileKey, bool> logical_;
  std::map<FileKey, bool> throughView_; ///< accesses mapped through a non-contiguous view
  std::map<FileKey, bool> truncatedFiles_;
  std::map<int64_t, std::map<std::string, int64_t>> instances_; ///< per file id: concrete name -> instance
  const Node *top_ = nullptr;
  int64_t topIteration_ = 0;
  const Node *component_ = nullptr;
  uint64_t expanded_ = 0;
  bool truncated_ = false;
};

} // namespace

std::vector<AccessStream> extractStreams(const Trace &trace, int64_t rank, const Options &options) {
  return Extractor(trace, rank, options).run();
}

std::optional<std::vector<std::pair<AccessStream, int64_t>>>
extractUniformStreams(const Trace &trace, int64_t rank, const Options &options, const trace::RankList *ranks) {
  Extractor x(trace, rank, options, true, ranks);
  std::vector<AccessStream> streams = x.run();
  if (!x.exact())
    return std::nullopt;
  std::vector<std::pair<AccessStream, int64_t>> out;
  for (size_t i = 0; i < streams.size(); ++i)
    out.emplace_back(std::move(streams[i]), x.slopes()[i]);
  return out;
}

} // namespace sio::signature
