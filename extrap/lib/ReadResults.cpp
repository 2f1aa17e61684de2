#include "ReadResults.h"

#include <algorithm>
#include <optional>

namespace sio::extrap {

using namespace sio::trace;

bool isModeledRead(const std::string &op) {
  return op == "pread" || op == "read" || op == "MPI_File_read_at" || op == "MPI_File_read_at_all" ||
         op == "MPI_File_read" || op == "MPI_File_read_all";
}

bool isPosixRead(const std::string &op) { return op == "pread" || op == "read"; }

namespace {

constexpr int64_t kOCreat = 0100, kOExcl = 0200, kOTrunc = 01000, kOAppend = 02000; // Linux open flags
constexpr int64_t kMpiModeCreate = 1, kMpiModeAppend = 128;                         // MPICH's amode bits
constexpr int64_t kMpiSeekSet = 600, kMpiSeekCur = 602, kMpiSeekEnd = 604;          // MPICH's whence values

/// An open file description of POSIX (shared by dup'ed descriptors): its
/// file and offset (nullopt: not known, e.g. after a call that moves it by
/// an amount the trace does not hold).
struct Description {
  int64_t file = -1;
  std::optional<int64_t> pos = 0;
  bool append = false;
};

struct View {
  bool contiguous = true; ///< etype = filetype, a type without holes
  int64_t disp = 0;
  int64_t esize = 1;
  /// The individual file pointer, in etypes from disp (MPI 4.0 §14.4.3);
  /// nullopt where the trace does not say where it is (after a short read,
  /// a nonblocking or split access, an append-mode open).
  std::optional<int64_t> pointer = 0;
};

/// Read results are computed rank by rank: beyond this many ranks, refused.
constexpr int64_t kMaxSimulatedRanks = 1'000'000;

class Simulator {
public:
  // The per-rank tables are sized only for a rank count run() will walk (a
  // trace saying 2^31-1 ranks is refused there, not allocated here).
  Simulator(const Trace &t, bool compare, int64_t maxWork)
      : t_(t), n_(t.header.nranks), compare_(compare), budget_(maxWork), limit_(maxWork), fd_(simulatedRanks()),
        desc_(simulatedRanks()), fh_(simulatedRanks()), view_(simulatedRanks()) {
    innerWrites_ = hasInnerWrites(t.body);
  }

  size_t simulatedRanks() const { return n_ > 0 && n_ <= kMaxSimulatedRanks ? size_t(n_) : 0; }

  std::map<std::string, ReadOutcome> run() {
    std::vector<char> active(simulatedRanks(), 1);
    std::vector<int64_t> idx;
    if (n_ <= 0 || n_ > kMaxSimulatedRanks)
      giveUp("too large: " + std::to_string(n_) + " ranks to compute read results rank by rank");
    else
      walk(t_.body, "body", idx, active);
    if (!tooLarge_.empty())
      for (auto &[path, o] : reads_) {
        o.supported = false;
        o.why = tooLarge_;
      }
    return reads_;
  }

private:
  static bool hasInnerWrites(const std::vector<Node> &nodes) {
    for (const Node &n : nodes) {
      if (n.isLoop()) {
        if (hasInnerWrites(n.loop().body))
          return true;
        continue;
      }
      const Event &e = n.event();
      if (e.inner && (e.op == "pwrite" || e.op == "write" || e.op == "pwritev" || e.op == "writev"))
        return true;
    }
    return false;
  }

  void giveUp(const std::string &why) {
    if (tooLarge_.empty())
      tooLarge_ = why;
  }

  std::optional<int64_t> eval(const ElasticValue &v, int64_t r, const std::vector<int64_t> &idx) const {
    const Value *x = v.valueFor(r);
    const Expr *e = x ? std::get_if<Expr>(x) : nullptr;
    return e ? e->evaluate({r, n_, idx}) : std::nullopt;
  }
  std::optional<int64_t> param(const Event &e, const char *name, int64_t r, const std::vector<int64_t> &idx) const {
    const Param *p = e.param(name);
    return p ? eval(p->value, r, idx) : std::nullopt;
  }

  /// A datatype's size, and whether it has no holes (size == extent).
  std::optional<std::pair<int64_t, bool>> typeOf(int64_t id, int64_t r) const {
    for (const ObjectEntry &d : t_.datatypes)
      if (d.id == id) {
        auto field = [&](const char *name) -> std::optional<int64_t> {
          auto it = d.fields.find(name);
          if (it == d.fields.end() || it->second.empty())
            return std::nullopt;
          return it->second[0].evaluate({r, n_, {}});
        };
        auto size = field("size"), extent = field("extent");
        if (!size)
          return std::nullopt;
        return std::pair(*size, extent && *extent == *size);
      }
    return std::nullopt;
  }

  void walk(const std::vector<Node> &nodes, const std::string &path, std::vector<int64_t> &idx,
            const std::vector<char> &active) {
    for (size_t i = 0; i < nodes.size() && tooLarge_.empty(); ++i) {
      const Node &node = nodes[i];
      const std::string here = path + "[" + std::to_string(i) + "]";
      std::vector<char> act(active.size(), 0);
      bool any = false;
      for (int64_t r = 0; r < n_; ++r)
        any |= (act[size_t(r)] = active[size_t(r)] && node.ranks.contains(r));
      if (!any)
        continue;
      if (node.isLoop()) {
        std::vector<int64_t> iters(size_t(n_), 0);
        int64_t most = 0;
        for (int64_t r = 0; r < n_; ++r)
          if (act[size_t(r)]) {
            iters[size_t(r)] = eval(node.loop().iterations, r, idx).value_or(0);
            most = std::max(most, iters[size_t(r)]);
          }
        idx.push_back(0);
        for (int64_t it = 0; it < most && tooLarge_.empty(); ++it) {
          idx.back() = it;
          std::vector<char> inner(act.size(), 0);
          for (int64_t r = 0; r < n_; ++r)
            inner[size_t(r)] = act[size_t(r)] && it < iters[size_t(r)];
          walk(node.loop().body, here + ".body", idx, inner);
        }
        idx.pop_back();
        continue;
      }
      for (int64_t r = 0; r < n_ && tooLarge_.empty(); ++r)
        if (act[size_t(r)]) {
          if (--budget_ < 0)
            giveUp("too large: more rank-events than the limit to compute read results");
          event(node.event(), here, r, idx);
        }
    }
  }

  void grow(int64_t file, int64_t end) {
    auto it = extent_.find(file);
    if (it != extent_.end() && it->second)
      *it->second = std::max(*it->second, end);
  }
  void unknown(int64_t file) { extent_[file] = std::nullopt; }

  Description *descOf(const Event &e, const char *name, int64_t r, const std::vector<int64_t> &idx) {
    auto fd = param(e, name, r, idx);
    if (!fd)
      return nullptr;
    auto it = fd_[size_t(r)].find(*fd);
    return it == fd_[size_t(r)].end() ? nullptr : &desc_[size_t(r)][it->second];
  }
  View *viewOf(const Event &e, int64_t r, const std::vector<int64_t> &idx) {
    auto fh = param(e, "fh", r, idx);
    if (!fh || !fh_[size_t(r)].count(*fh))
      return nullptr;
    return &view_[size_t(r)][*fh];
  }

  /// Bytes an MPI-IO access asks for: count times the datatype's size.
  std::optional<int64_t> requestedBytes(const Event &e, int64_t r, const std::vector<int64_t> &idx) const {
    auto count = param(e, "count", r, idx), dt = param(e, "datatype", r, idx);
    auto type = dt ? typeOf(*dt, r) : std::nullopt;
    if (!count || !type)
      return std::nullopt;
    return *count * type->first;
  }

  /// Moves an individual file pointer by `bytes` of a contiguous view: whole
  /// etypes only, otherwise the pointer is no longer known.
  static void advance(View &v, std::optional<int64_t> bytes) {
    if (v.pointer && bytes && v.esize > 0 && *bytes % v.esize == 0)
      *v.pointer += *bytes / v.esize;
    else
      v.pointer.reset();
  }

  void event(const Event &e, const std::string &path, int64_t r, const std::vector<int64_t> &idx) {
    const std::string &op = e.op;
    const bool failed = e.param("error") != nullptr;
    auto fdFile = [&]() -> std::optional<int64_t> {
      const Description *d = descOf(e, "fd", r, idx);
      return d ? std::optional<int64_t>(d->file) : std::nullopt;
    };
    auto fhFile = [&]() -> std::optional<int64_t> {
      auto fh = param(e, "fh", r, idx);
      if (!fh)
        return std::nullopt;
      auto it = fh_[size_t(r)].find(*fh);
      return it == fh_[size_t(r)].end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    if (isModeledRead(op)) {
      read(e, path, r, idx, isPosixRead(op) ? fdFile() : fhFile());
      return;
    }
    if (failed)
      return;
    if (op == "open" || op == "creat" || op == "openat") {
      auto file = param(e, "file", r, idx), fd = param(e, "fd", r, idx);
      if (!file || !fd || *fd < 0)
        return;
      const int64_t flags = op == "creat" ? (kOCreat | kOTrunc) : param(e, "flags", r, idx).value_or(0);
      fd_[size_t(r)][*fd] = desc_[size_t(r)].size();
      desc_[size_t(r)].push_back({*file, 0, (flags & kOAppend) != 0});
      // Truncated, or created by this run: the trace holds all its bytes. A
      // file opened with O_CREAT that existed before the run is the one case
      // taken on trust (a read's recorded result then disagrees at an input).
      if ((flags & kOTrunc) || (flags & kOExcl))
        extent_[*file] = 0;
      else if ((flags & kOCreat) && !extent_.count(*file))
        extent_[*file] = 0;
      else if (!extent_.count(*file))
        extent_[*file] = std::nullopt; // existed before the run: its size is not in the trace
    } else if (op == "dup" || op == "dup2") {
      // The new descriptor shares the old one's description (and offset).
      auto fd = param(e, "fd", r, idx), old = param(e, "oldfd", r, idx);
      if (!fd || *fd < 0)
        return;
      auto it = old ? fd_[size_t(r)].find(*old) : fd_[size_t(r)].end();
      if (it != fd_[size_t(r)].end())
        fd_[size_t(r)][*fd] = it->second;
      else
        fd_[size_t(r)].erase(*fd);
    } else if (op == "close") {
      if (auto fd = param(e, "fd", r, idx))
        fd_[size_t(r)].erase(*fd);
    } else if (op == "lseek") {
      Description *d = descOf(e, "fd", r, idx);
      if (!d)
        return;
      auto off = param(e, "offset", r, idx), whence = param(e, "whence", r, idx);
      std::optional<int64_t> base;
      if (whence == 0)
        base = 0;
      else if (whence == 1)
        base = d->pos;
      else if (whence == 2)
        base = extentOf(d->file);
      d->pos = base && off ? std::optional<int64_t>(*base + *off) : std::nullopt;
    } else if (op == "MPI_File_open") {
      auto file = param(e, "file", r, idx), fh = param(e, "fh", r, idx), amode = param(e, "amode", r, idx);
      if (!file || !fh || *fh < 0)
        return;
      fh_[size_t(r)][*fh] = *file;
      View v;
      if (!amode || (*amode & kMpiModeAppend))
        v.pointer.reset(); // starts at the end of the file
      view_[size_t(r)][*fh] = v;
      if (!extent_.count(*file))
        extent_[*file] = (amode && (*amode & kMpiModeCreate)) ? std::optional<int64_t>(0) : std::nullopt;
    } else if (op == "MPI_File_set_view") {
      auto fh = param(e, "fh", r, idx), disp = param(e, "disp", r, idx), et = param(e, "etype", r, idx),
           ft = param(e, "filetype", r, idx);
      if (!fh)
        return;
      View v; // the individual pointer is reset to 0
      auto etype = et ? typeOf(*et, r) : std::nullopt;
      v.contiguous = disp && etype && etype->second && ft == et;
      v.disp = disp.value_or(0);
      v.esize = etype ? etype->first : 1;
      view_[size_t(r)][*fh] = v;
    } else if (op == "MPI_File_seek") {
      View *v = viewOf(e, r, idx);
      if (!v)
        return;
      auto off = param(e, "offset", r, idx), whence = param(e, "whence", r, idx);
      std::optional<int64_t> base;
      if (whence == kMpiSeekSet) {
        base = 0;
      } else if (whence == kMpiSeekCur) {
        base = v->pointer;
      } else if (whence == kMpiSeekEnd && v->contiguous && v->esize > 0) {
        auto file = fhFile();
        auto ext = file ? extentOf(*file) : std::nullopt;
        if (ext && (*ext - v->disp) % v->esize == 0)
          base = (*ext - v->disp) / v->esize;
      }
      v->pointer = base && off ? std::optional<int64_t>(*base + *off) : std::nullopt;
    } else if (op == "pwrite" || op == "pwritev") {
      const Description *d = descOf(e, "fd", r, idx);
      auto file = fdFile();
      auto off = param(e, "offset", r, idx), bytes = param(e, "result", r, idx);
      if (d && d->append) // Linux appends whatever the offset (pwrite(2), BUGS)
        off = extentOf(d->file);
      if (!bytes && op == "pwrite")
        bytes = param(e, "count", r, idx);
      if (file && off && bytes && *bytes > 0)
        grow(*file, *off + *bytes);
      else if (file && (!off || !bytes))
        unknown(*file);
    } else if (op == "write" || op == "writev") {
      // At the description's offset (the end of the file with O_APPEND),
      // which moves by the bytes written.
      Description *d = descOf(e, "fd", r, idx);
      if (!d)
        return;
      auto bytes = param(e, "result", r, idx);
      if (!bytes && op == "write")
        bytes = param(e, "count", r, idx);
      if (d->append)
        d->pos = extentOf(d->file);
      if (d->pos && bytes) {
        if (*bytes > 0)
          grow(d->file, *d->pos + *bytes);
        *d->pos += *bytes;
      } else {
        unknown(d->file);
        d->pos.reset();
      }
    } else if (op == "readv") {
      // Not modeled as a read: its offset moves by what it moved, which the
      // trace holds at the inputs only.
      if (Description *d = descOf(e, "fd", r, idx)) {
        auto bytes = param(e, "result", r, idx);
        d->pos = d->pos && bytes ? std::optional<int64_t>(*d->pos + *bytes) : std::nullopt;
      }
    } else if (op == "ftruncate" || op == "truncate") {
      auto file = op == "truncate" ? param(e, "file", r, idx) : fdFile();
      auto len = param(e, "length", r, idx);
      if (file && len)
        extent_[*file] = *len;
      else if (file)
        unknown(*file);
    } else if (op == "MPI_File_set_size" || op == "MPI_File_preallocate") {
      auto file = fhFile();
      auto size = param(e, "size", r, idx);
      if (file && size && op == "MPI_File_set_size")
        extent_[*file] = *size;
      else if (file && size)
        grow(*file, *size);
      else if (file)
        unknown(*file);
    } else if (op == "MPI_File_delete" || op == "unlink") {
      if (auto file = param(e, "file", r, idx))
        extent_.erase(*file);
    } else if (op == "fopen" || op == "fdopen" || op == "freopen") {
      // Streams are not followed byte by byte (stdio buffers): a file
      // written through one has an extent the trace does not give here.
      auto file = op == "fdopen" ? fdFile() : param(e, "file", r, idx);
      auto stream = param(e, "stream", r, idx);
      if (stream && *stream >= 0 && file)
        stream_[*stream] = *file;
      const Param *mode = e.param("mode");
      const std::string *m =
          mode && mode->value.isUniform() ? std::get_if<std::string>(&mode->value.entries()[0].value) : nullptr;
      const bool writes = !m || m->find_first_of("wa+") != std::string::npos;
      if (file && (writes || !extent_.count(*file)))
        extent_[*file] = std::nullopt;
    } else if (e.layer == Layer::STDIO && !isStdioWithoutOutput(op)) {
      if (auto stream = param(e, "stream", r, idx); stream && stream_.count(*stream))
        unknown(stream_[*stream]);
    } else if (op.rfind("MPI_File_", 0) == 0 && pointerRelative(op)) {
      // Reads and writes at the individual file pointer. Under ROMIO the
      // runtime also records the POSIX writes the call made (inner events):
      // those carry the bytes; the pointer moves either way.
      View *v = viewOf(e, r, idx);
      auto file = fhFile();
      if (!v || !file)
        return;
      const bool blockingWrite = op == "MPI_File_write" || op == "MPI_File_write_all";
      auto bytes = param(e, "result", r, idx);
      if (!blockingWrite) {
        // Nonblocking and split accesses: the pointer moves by the request,
        // the result comes later; not followed.
        v->pointer.reset();
        if (op.find("write") != std::string::npos && !innerWrites_)
          unknown(*file);
        return;
      }
      if (!innerWrites_) {
        if (v->contiguous && v->pointer && bytes)
          grow(*file, v->disp + *v->pointer * v->esize + *bytes);
        else
          unknown(*file);
      }
      advance(*v, bytes ? bytes : requestedBytes(e, r, idx));
    } else if (op.rfind("MPI_File_write", 0) == 0 || op.rfind("MPI_File_iwrite", 0) == 0) {
      // Explicit offsets and the shared pointer. With inner events those
      // carry the bytes; without them, only an explicit-offset write through
      // a contiguous view is understood.
      if (innerWrites_)
        return;
      auto file = fhFile();
      if (!file)
        return;
      const View *v = viewOf(e, r, idx);
      auto off = param(e, "offset", r, idx), bytes = param(e, "result", r, idx);
      const bool explicitOffset = op == "MPI_File_write_at" || op == "MPI_File_write_at_all";
      if (explicitOffset && v && v->contiguous && off && bytes)
        grow(*file, v->disp + *off * v->esize + *bytes);
      else
        unknown(*file);
    }
  }

  /// MPI-IO data accesses at the individual file pointer (not `_at`, not
  /// `_shared` or `_ordered`), including their nonblocking and split forms.
  static bool pointerRelative(const std::string &op) {
    const bool access = op.rfind("MPI_File_read", 0) == 0 || op.rfind("MPI_File_write", 0) == 0 ||
                        op.rfind("MPI_File_iread", 0) == 0 || op.rfind("MPI_File_iwrite", 0) == 0;
    return access && op.find("_at") == std::string::npos && op.find("_shared") == std::string::npos &&
           op.find("_ordered") == std::string::npos && op.find("_end") == std::string::npos;
  }

  /// stdio calls that write nothing (a flush or close only writes what an
  /// earlier output call buffered, which already marked the file).
  static bool isStdioWithoutOutput(const std::string &op) {
    return op.find("get") != std::string::npos || op.find("read") != std::string::npos ||
           op.find("scanf") != std::string::npos || op == "fseek" || op == "fseeko" || op == "ftell" ||
           op == "ftello" || op == "rewind" || op == "fgetpos" || op == "fsetpos" || op == "feof" || op == "ferror" ||
           op == "fileno";
  }

  std::optional<int64_t> extentOf(int64_t file) const {
    auto it = extent_.find(file);
    return it == extent_.end() ? std::nullopt : it->second;
  }

  void read(const Event &e, const std::string &path, int64_t r, const std::vector<int64_t> &idx,
            std::optional<int64_t> file) {
    ReadOutcome &o = reads_[path];
    if (e.param("error"))
      return;
    std::optional<int64_t> requested, start;
    Description *desc = nullptr; // POSIX read: the offset it starts at and moves
    View *view = nullptr;        // MPI_File_read[_all]: the pointer it starts at and moves
    const char *whereFrom = "its offset";
    if (e.op == "pread") {
      requested = param(e, "count", r, idx);
      start = param(e, "offset", r, idx);
    } else if (e.op == "read") {
      requested = param(e, "count", r, idx);
      desc = descOf(e, "fd", r, idx);
      start = desc ? desc->pos : std::nullopt;
      whereFrom = "the descriptor's offset";
    } else if (View *v = viewOf(e, r, idx)) {
      requested = requestedBytes(e, r, idx);
      const bool explicitOffset = e.op.find("_at") != std::string::npos;
      auto off = explicitOffset ? param(e, "offset", r, idx) : v->pointer;
      if (!explicitOffset) {
        view = v;
        whereFrom = "the individual file pointer";
      }
      if (off && v->contiguous)
        start = v->disp + *off * v->esize;
    }
    const auto recorded = param(e, "result", r, idx);
    if (recorded && requested && *recorded != *requested)
      o.allFull = false;
    if (!recorded || !requested)
      o.allFull = false;
    auto unsupported = [&](const std::string &why) {
      if (o.supported) {
        o.supported = false;
        o.why = why;
      }
      // What it moved is not known here: so is the position after it.
      if (desc && recorded && desc->pos)
        *desc->pos += *recorded;
      else if (desc)
        desc->pos.reset();
      if (view)
        view->pointer.reset();
    };
    if (!file) {
      unsupported("its file handle is not one the trace opened");
      return;
    }
    auto ext = extent_.find(*file);
    if (ext == extent_.end() || !ext->second) {
      unsupported("the size of file f" + std::to_string(*file) +
                  " is not in the trace (it existed before the run, or was written in a way not followed, "
                  "e.g. through a stdio stream)");
      return;
    }
    if (!requested || !start) {
      if (view && !view->contiguous)
        unsupported("it reads through a file view with holes (a non-contiguous filetype)");
      else if (!start && (desc || view))
        unsupported(std::string(whereFrom) + " is not known there (moved by a call whose effect the trace does "
                                             "not hold)");
      else
        unsupported("its offset or size in bytes is not known (a file view with holes?)");
      return;
    }
    const int64_t got = std::min(*requested, std::max<int64_t>(0, *ext->second - *start));
    if (got != *requested)
      o.full = false;
    o.sequence[r].push_back(got);
    o.loopDepth = idx.size();
    auto [it, inserted] = o.perRank.emplace(r, got);
    if (!inserted && it->second != got) {
      o.iterationDependent = true;
      it->second = got;
    }
    if (desc)
      *desc->pos += got;
    if (view) {
      // A short read moves the pointer by what the MPI library says it
      // moved; only a full one is certain.
      if (got == *requested)
        advance(*view, got);
      else
        view->pointer.reset();
    }
    if (compare_ && recorded && *recorded != got && o.mismatch.empty())
      o.mismatch = "rank " + std::to_string(r) + " read " + std::to_string(*recorded) + " bytes at offset " +
                   std::to_string(*start) + ", but the trace's writes leave the file at " +
                   std::to_string(*ext->second) + " bytes there (" + std::to_string(got) + " to read)";
  }

  const Trace &t_;
  const int64_t n_;
  const bool compare_;
  int64_t budget_;
  const int64_t limit_;
  bool innerWrites_ = false;
  std::string tooLarge_;
  std::vector<std::map<int64_t, size_t>> fd_;        ///< per rank: fd code -> index in desc_
  std::vector<std::vector<Description>> desc_;       ///< per rank: open file descriptions
  std::map<int64_t, int64_t> stream_;                ///< stream code -> file id (any rank: only marks files unknown)
  std::vector<std::map<int64_t, int64_t>> fh_;       ///< per rank: fh code -> file id
  std::vector<std::map<int64_t, View>> view_;        ///< per rank: fh code -> view
  std::map<int64_t, std::optional<int64_t>> extent_; ///< file id -> size (nullopt: unknown)
  std::map<std::string, ReadOutcome> reads_;
};

} // namespace

std::map<std::string, ReadOutcome> simulateReads(const Trace &trace, bool compareRecorded, int64_t maxWork) {
  return Simulator(trace, compareRecorded, maxWork).run();
}

} // namespace sio::extrap
