#include "ReadResults.h"

#include <algorithm>
#include <optional>

namespace sio::extrap {

using namespace sio::trace;

bool isModeledRead(const std::string &op) {
  return op == "pread" || op == "MPI_File_read_at" || op == "MPI_File_read_at_all";
}

namespace {

constexpr int64_t kOCreat = 0100, kOExcl = 0200, kOTrunc = 01000; // Linux open flags
constexpr int64_t kMpiModeCreate = 1;                             // MPICH's MPI_MODE_CREATE

struct View {
  bool contiguous = true; ///< etype = filetype, a type without holes
  int64_t disp = 0;
  int64_t esize = 1;
};

/// Read results are computed rank by rank: beyond this many ranks, refused.
constexpr int64_t kMaxSimulatedRanks = 1'000'000;

class Simulator {
public:
  // The per-rank tables are sized only for a rank count run() will walk (a
  // trace saying 2^31-1 ranks is refused there, not allocated here).
  Simulator(const Trace &t, bool compare, int64_t maxWork)
      : t_(t), n_(t.header.nranks), compare_(compare), budget_(maxWork), limit_(maxWork), fd_(simulatedRanks()),
        fh_(simulatedRanks()), view_(simulatedRanks()) {
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

  void event(const Event &e, const std::string &path, int64_t r, const std::vector<int64_t> &idx) {
    const std::string &op = e.op;
    const bool failed = e.param("error") != nullptr;
    auto fdFile = [&]() -> std::optional<int64_t> {
      auto fd = param(e, "fd", r, idx);
      if (!fd)
        return std::nullopt;
      auto it = fd_[size_t(r)].find(*fd);
      return it == fd_[size_t(r)].end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    auto fhFile = [&]() -> std::optional<int64_t> {
      auto fh = param(e, "fh", r, idx);
      if (!fh)
        return std::nullopt;
      auto it = fh_[size_t(r)].find(*fh);
      return it == fh_[size_t(r)].end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    if (isModeledRead(op)) {
      read(e, path, r, idx, op == "pread" ? fdFile() : fhFile());
      return;
    }
    if (failed)
      return;
    if (op == "open" || op == "creat") {
      auto file = param(e, "file", r, idx), fd = param(e, "fd", r, idx);
      if (!file || !fd || *fd < 0)
        return;
      fd_[size_t(r)][*fd] = *file;
      const int64_t flags = op == "creat" ? (kOCreat | kOTrunc) : param(e, "flags", r, idx).value_or(0);
      // Truncated, or created by this run: the trace holds all its bytes. A
      // file opened with O_CREAT that existed before the run is the one case
      // taken on trust (a read's recorded result then disagrees at an input).
      if ((flags & kOTrunc) || (flags & kOExcl))
        extent_[*file] = 0;
      else if ((flags & kOCreat) && !extent_.count(*file))
        extent_[*file] = 0;
      else if (!extent_.count(*file))
        extent_[*file] = std::nullopt; // existed before the run: its size is not in the trace
    } else if (op == "MPI_File_open") {
      auto file = param(e, "file", r, idx), fh = param(e, "fh", r, idx), amode = param(e, "amode", r, idx);
      if (!file || !fh || *fh < 0)
        return;
      fh_[size_t(r)][*fh] = *file;
      view_[size_t(r)][*fh] = View{};
      if (!extent_.count(*file))
        extent_[*file] = (amode && (*amode & kMpiModeCreate)) ? std::optional<int64_t>(0) : std::nullopt;
    } else if (op == "MPI_File_set_view") {
      auto fh = param(e, "fh", r, idx), disp = param(e, "disp", r, idx), et = param(e, "etype", r, idx),
           ft = param(e, "filetype", r, idx);
      if (!fh)
        return;
      View v;
      auto etype = et ? typeOf(*et, r) : std::nullopt;
      v.contiguous = disp && etype && etype->second && ft == et;
      v.disp = disp.value_or(0);
      v.esize = etype ? etype->first : 1;
      view_[size_t(r)][*fh] = v;
    } else if (op == "pwrite") {
      auto file = fdFile();
      auto off = param(e, "offset", r, idx), bytes = param(e, "result", r, idx);
      if (!bytes)
        bytes = param(e, "count", r, idx);
      if (file && off && bytes && *bytes > 0)
        grow(*file, *off + *bytes);
      else if (file && (!off || !bytes))
        unknown(*file);
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
    } else if (op.rfind("MPI_File_write", 0) == 0 || op.rfind("MPI_File_iwrite", 0) == 0) {
      // Under ROMIO the runtime also records the POSIX writes the call made
      // (inner events): those carry the bytes. Without them, only an
      // explicit-offset write through a contiguous view is understood.
      if (innerWrites_)
        return;
      auto file = fhFile();
      if (!file)
        return;
      auto fh = param(e, "fh", r, idx);
      const View v = view_[size_t(r)][*fh];
      auto off = param(e, "offset", r, idx), bytes = param(e, "result", r, idx);
      const bool explicitOffset = op == "MPI_File_write_at" || op == "MPI_File_write_at_all";
      if (explicitOffset && v.contiguous && off && bytes)
        grow(*file, v.disp + *off * v.esize + *bytes);
      else
        unknown(*file);
    } else if (op == "write" || op == "writev" || op == "pwritev" || op == "fwrite" || op == "fputs" ||
               op == "fprintf" || op == "fputc") {
      if (auto file = fdFile())
        unknown(*file); // the file position is not modeled
    }
  }

  void read(const Event &e, const std::string &path, int64_t r, const std::vector<int64_t> &idx,
            std::optional<int64_t> file) {
    ReadOutcome &o = reads_[path];
    if (e.param("error"))
      return;
    auto off = param(e, "offset", r, idx), count = param(e, "count", r, idx);
    std::optional<int64_t> requested, start;
    if (e.op == "pread") {
      requested = count;
      start = off;
    } else if (auto fh = param(e, "fh", r, idx); fh && count) {
      auto dt = param(e, "datatype", r, idx);
      auto type = dt ? typeOf(*dt, r) : std::nullopt;
      const View v = view_[size_t(r)][*fh];
      if (type)
        requested = *count * type->first;
      if (off && v.contiguous)
        start = v.disp + *off * v.esize;
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
    };
    if (!file) {
      unsupported("its file handle is not one the trace opened");
      return;
    }
    auto ext = extent_.find(*file);
    if (ext == extent_.end() || !ext->second) {
      unsupported("the size of file f" + std::to_string(*file) +
                  " is not in the trace (it existed before the run, or was written without offsets)");
      return;
    }
    if (!requested || !start) {
      unsupported("its offset or size in bytes is not known (a file view with holes?)");
      return;
    }
    const int64_t got = std::min(*requested, std::max<int64_t>(0, *ext->second - *start));
    if (got != *requested)
      o.full = false;
    auto [it, inserted] = o.perRank.emplace(r, got);
    if (!inserted && it->second != got) {
      o.iterationDependent = true;
      it->second = got;
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
  std::vector<std::map<int64_t, int64_t>> fd_, fh_;  ///< per rank: code -> file id
  std::vector<std::map<int64_t, View>> view_;        ///< per rank: fh code -> view
  std::map<int64_t, std::optional<int64_t>> extent_; ///< file id -> size (nullopt: unknown)
  std::map<std::string, ReadOutcome> reads_;
};

} // namespace

std::map<std::string, ReadOutcome> simulateReads(const Trace &trace, bool compareRecorded, int64_t maxWork) {
  return Simulator(trace, compareRecorded, maxWork).run();
}

} // namespace sio::extrap
