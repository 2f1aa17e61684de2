// The in-memory trace: one per run, shared by the runtime (which builds it),
// sio-extrap (which fits and extrapolates it), the replay generator and
// sio-signature. See docs/trace-format.md for the on-disk form.
#pragma once

#include "sio/trace/Expr.h"
#include "sio/trace/RankList.h"
#include "sio/trace/RankTiming.h"
#include "sio/trace/Timing.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sio::trace {

/// The layer an event was intercepted at.
enum class Layer : uint8_t { MPIIO, POSIX, STDIO, SYNC };
std::string_view layerName(Layer layer);
std::optional<Layer> layerFromName(std::string_view name);

/// A parameter value: exact integer function, or a string (fopen modes,
/// MPI datarep names). Handles, datatypes and files are integers that index
/// the trace's tables.
using Value = std::variant<Expr, std::string>;
std::string valueStr(const Value &value);

/// One (ranks, value) pair of an elastic parameter.
struct ElasticEntry {
  RankList ranks;
  Value value;
  friend bool operator==(const ElasticEntry &, const ElasticEntry &) = default;
};

/// A parameter's values over the ranks of its node (ScalaTrace's
/// <value, ranklist> pairs): entries have disjoint rank lists whose union is
/// the node's rank list. Within one rank, a value is a function of the loop
/// indices; across ranks, of rank and nranks where one model fits.
class ElasticValue {
public:
  ElasticValue() = default;
  ElasticValue(Value value, RankList ranks) { entries_.push_back({std::move(ranks), std::move(value)}); }

  const std::vector<ElasticEntry> &entries() const { return entries_; }
  std::vector<ElasticEntry> &entries() { return entries_; }
  /// The value rank `rank` uses, if it is covered.
  const Value *valueFor(int64_t rank) const;
  /// True if one value serves every rank.
  bool isUniform() const { return entries_.size() == 1; }
  RankList ranks() const;

  friend bool operator==(const ElasticValue &, const ElasticValue &) = default;

private:
  std::vector<ElasticEntry> entries_;
};

struct Param {
  std::string name;
  ElasticValue value;
  friend bool operator==(const Param &, const Param &) = default;
};

/// One intercepted call (or a run of identical calls folded into a loop).
struct Event {
  std::string op;          ///< the function called, e.g. "MPI_File_write_at"
  Layer layer = Layer::POSIX;
  uint64_t site = 0;       ///< call-site id from the plugin; 0 = unknown
  bool inner = false;      ///< ran inside another traced call (not replayed)
  std::vector<Param> params; ///< in the function's parameter order
  TimingStats compute;     ///< time since the previous event on the rank
  TimingStats duration;    ///< time inside the call
  /// Per-rank count, mean, min, max of compute and duration (RankTiming.h);
  /// empty when every rank of the node falls in one group (or unknown:
  /// older and extrapolated traces): then every rank uses the stats above.
  std::vector<RankTiming> rankTiming;

  const Param *param(std::string_view name) const;
  Param *param(std::string_view name);
  friend bool operator==(const Event &, const Event &) = default;
};

struct Node;

/// A loop (RSD; nested loops are PRSDs). Body events see the loop's index as
/// `i<depth>` where depth counts enclosing loops from the outermost (0).
struct Loop {
  uint64_t id = 0;         ///< plugin loop id; 0 = found on line by the runtime
  ElasticValue iterations; ///< may depend on rank, nranks and outer indices
  std::vector<Node> body;
  friend bool operator==(const Loop &, const Loop &);
};

/// An event or a loop, executed by the ranks in `ranks` in sequence order.
struct Node {
  RankList ranks;
  std::variant<Event, Loop> item;

  bool isEvent() const { return std::holds_alternative<Event>(item); }
  bool isLoop() const { return std::holds_alternative<Loop>(item); }
  Event &event() { return std::get<Event>(item); }
  const Event &event() const { return std::get<Event>(item); }
  Loop &loop() { return std::get<Loop>(item); }
  const Loop &loop() const { return std::get<Loop>(item); }
  friend bool operator==(const Node &, const Node &) = default;
};

inline bool operator==(const Loop &a, const Loop &b) {
  return a.id == b.id && a.iterations == b.iterations && a.body == b.body;
}

/// A call site recorded by the plugin.
struct SiteInfo {
  uint64_t id = 0;
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function;
  std::string callee;
  uint64_t loop = 0; ///< innermost enclosing instrumented loop, 0 if none
  friend bool operator==(const SiteInfo &, const SiteInfo &) = default;
};

/// A loop recorded by the plugin.
struct LoopInfo {
  uint64_t id = 0;
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function;
  uint64_t parent = 0;
  friend bool operator==(const LoopInfo &, const LoopInfo &) = default;
};

/// A piece of a file name: literal text, or an integer field printed with
/// at least `width` digits (zero-padded), e.g. `out_<rank/4>`.
struct FileNamePart {
  std::string text;          ///< used when field is empty
  std::optional<Expr> field; ///< integer field: a function of rank, nranks and loop indices
  uint32_t width = 0;
  friend bool operator==(const FileNamePart &, const FileNamePart &) = default;
};

/// A file the run touched. `name` is a format: the same for every rank (N-to-1),
/// with a rank-dependent field (N-to-N, N-to-N/n), and/or with fields in the
/// indices of the loops around the calls that use it (`dir.<rank>/f.<i0>`).
struct FileEntry {
  int64_t id = 0;
  std::vector<FileNamePart> name;
  /// The concrete name a rank uses at these loop indices (outermost first);
  /// nullopt if a field does not evaluate (or needs an index not given).
  std::optional<std::string> nameFor(int64_t rank, int64_t nranks, std::span<const int64_t> indices = {}) const;
  /// Loop indices the fields use: 0 when the name depends on no loop.
  uint32_t loopDepthUsed() const;
  std::string formatStr() const; ///< "data/out_<rank/4:04>"
  friend bool operator==(const FileEntry &, const FileEntry &) = default;
};

/// Parameters that name an entry of the files table: `file` (every call that
/// takes a path) and `newfile` (the second path of rename/renameat).
inline bool isFileParam(std::string_view name) { return name == "file" || name == "newfile"; }

/// A described MPI object: datatype (structurally, e.g. kind "vector" with
/// fields count/blocklength/stride/oldtype), communicator (kind "world",
/// "self", "split" with color/key as functions of rank, "dup"), or info.
///
/// Objects a rank creates are identified by their creation event, not by
/// content: `site` (the call site that made it, 0 if unknown) and `serial`
/// (how many objects of the same table that rank had made at that site
/// before). The inter-rank merge unites the entries of equal identity and
/// turns fields that differ between ranks into exact functions of `rank`
/// (`key = rank`), so the table does not grow with the rank count.
/// `serial < 0` marks objects identified by content (named datatypes, world,
/// self, infos).
struct ObjectEntry {
  int64_t id = 0;
  std::string kind;
  std::string name; ///< named datatypes: "MPI_BYTE"
  std::map<std::string, std::vector<Expr>> fields;
  std::map<std::string, std::string> strings; ///< info key/values
  uint64_t site = 0;  ///< creation call site; 0 = unknown
  int64_t serial = -1; ///< creation order at `site` on a rank; -1 = identified by content
  /// The ranks whose values `fields` describe (during the inter-rank merge;
  /// empty in a finished trace).
  RankList ranks;
  friend bool operator==(const ObjectEntry &, const ObjectEntry &) = default;
};

struct FormatVersion {
  uint32_t major = 1;
  uint32_t minor = 1; ///< a trace made in memory is of the version this build writes (Json.h kFormatVersion)
  friend bool operator==(const FormatVersion &, const FormatVersion &) = default;
};

struct TraceHeader {
  FormatVersion version;
  std::string generator;                ///< "sio-runtime 0.1.0", "sio-extrap 0.1.0"
  std::string program;                  ///< executable base name
  std::vector<std::string> commandLine; ///< argv of rank 0
  int64_t nranks = 1;
  bool complete = true;                 ///< false when data had to be dropped
  uint64_t droppedEvents = 0;
  std::vector<std::string> notes;       ///< why incomplete; other remarks
  /// Why the recorded bytes may differ from what the program moved (data
  /// through mmap, in-kernel copies, descriptors opened before the runtime,
  /// ...); empty: every byte the program read or wrote is in the trace.
  std::vector<std::string> inexact;
  std::map<std::string, std::string> metadata; ///< host, start time, inputs, ...
  friend bool operator==(const TraceHeader &, const TraceHeader &) = default;
};

struct Trace {
  TraceHeader header;
  std::vector<SiteInfo> sites;
  std::vector<LoopInfo> loops;
  std::vector<FileEntry> files;
  std::vector<ObjectEntry> datatypes;
  std::vector<ObjectEntry> comms;
  std::vector<ObjectEntry> infos;
  std::vector<Node> body;

  /// Exact equality of everything, timing included (see Diff.h for the
  /// structural comparison the tools use).
  friend bool operator==(const Trace &, const Trace &) = default;

  const SiteInfo *site(uint64_t id) const;
  const LoopInfo *loopInfo(uint64_t id) const;
  const FileEntry *file(int64_t id) const;
  const ObjectEntry *datatype(int64_t id) const;
};

/// Byte size of a datatype table entry for one rank (named types by MPI name,
/// derived types from their structure); nullopt if unknown.
std::optional<int64_t> datatypeSize(const Trace &trace, int64_t id, int64_t rank);

/// The symbolic name of a recorded `error` (docs/trace-format.md, Results):
/// the errno name for POSIX and stdio ("EBADF", Linux numbering), the MPI
/// error class for MPI-IO and sync ("MPI_ERR_NO_SUCH_FILE", MPICH
/// numbering); nullopt for a number without a name.
std::optional<std::string> errorName(Layer layer, int64_t code);

/// "0x1a2b..." (16 hex digits), the id form used in JSON and by the tools.
std::string formatId(uint64_t id);
std::optional<uint64_t> parseId(std::string_view text);

} // namespace sio::trace
