#include "InterRank.h"

#include "BodyMerge.h"
#include "FileNames.h"
#include "IdRemap.h"
#include "ObjectMerge.h"

#include "sio/trace/Json.h"

#include <algorithm>
#include <set>
#include <string_view>

// The parts of the merge: IdRemap (tables by content), BodyMerge (bodies
// aligned node by node), RankFits (values as models of rank), FileNames
// (name formats over ranks and loops), ObjectMerge (MPI object tables),
// RankTiming.cpp (per-rank timing). This file puts them together.

namespace sio::rt {

using namespace sio::trace;
using namespace sio::rt::detail;

std::optional<TableKind> tableOfParam(std::string_view name) {
  if (isFileParam(name))
    return TableKind::Files;
  if (name == "datatype" || name == "etype" || name == "filetype" || name == "oldtype" || name == "newtype")
    return TableKind::Datatypes;
  if (name == "comm" || name == "newcomm" || name == "peer_comm")
    return TableKind::Comms;
  if (name == "info")
    return TableKind::Infos;
  return std::nullopt;
}

namespace {

/// The metadata of the MPI-IO environment (docs/trace-format.md: `env.NAME`
/// and `romio_hints.contents`), which the replay sets on every rank.
bool isMpiIoEnvKey(const std::string &key) { return key.starts_with("env.") || key == "romio_hints.contents"; }

/// The keys a merged part lists in `mpi_io_env_differs` already.
std::set<std::string> listedDiffering(const std::map<std::string, std::string> &metadata) {
  std::set<std::string> keys;
  auto listed = metadata.find(std::string(kMpiIoEnvDiffersKey));
  if (listed == metadata.end())
    return keys;
  for (std::string_view rest = listed->second; !rest.empty();) {
    size_t comma = rest.find(',');
    keys.insert(std::string(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return keys;
}

/// The trace keeps the lowest rank's MPI-IO environment; where another rank
/// ran under different values, the replay would set the wrong ones on it
/// without a word. Such keys are listed in `mpi_io_env_differs` (the
/// replay names them among its approximations) with a note each.
void noteDifferingEnvironment(TraceHeader &out, const TraceHeader &b) {
  std::set<std::string> differ = listedDiffering(b.metadata);
  using Metadata = std::map<std::string, std::string>;
  auto compare = [&](const Metadata &side, const Metadata &other) {
    for (const auto &[key, value] : side)
      if (isMpiIoEnvKey(key))
        if (auto it = other.find(key); it == other.end() || it->second != value)
          differ.insert(key);
  };
  compare(out.metadata, b.metadata);
  compare(b.metadata, out.metadata);
  std::set<std::string> all = listedDiffering(out.metadata);
  for (const std::string &key : differ)
    if (all.insert(key).second)
      out.notes.push_back("the MPI-IO environment differs between ranks: " + key +
                          " has other values on some ranks; the trace keeps the lowest rank's, and a replay sets "
                          "it on every rank");
  if (all.empty())
    return;
  std::string list; // sorted: the same whatever the order of the merge
  for (const std::string &key : all)
    list += (list.empty() ? "" : ",") + key;
  out.metadata[std::string(kMpiIoEnvDiffersKey)] = list;
}

} // namespace

Trace mergeTraces(Trace a, Trace b) {
  Remaps remapA, remapB;
  Trace out;
  out.header = std::move(a.header);
  out.header.nranks = std::max(out.header.nranks, b.header.nranks);
  out.header.complete = out.header.complete && b.header.complete;
  out.header.droppedEvents += b.header.droppedEvents;
  noteDifferingEnvironment(out.header, b.header);
  for (std::string &why : b.header.inexact)
    if (std::find(out.header.inexact.begin(), out.header.inexact.end(), why) == out.header.inexact.end())
      out.header.inexact.push_back(std::move(why));
  for (std::string &note : b.header.notes)
    if (std::find(out.header.notes.begin(), out.header.notes.end(), note) == out.header.notes.end())
      out.header.notes.push_back(std::move(note));
  out.sites = std::move(a.sites);
  uniteById(out.sites, std::move(b.sites));
  out.loops = std::move(a.loops);
  uniteById(out.loops, std::move(b.loops));
  out.files = mergeTable(std::move(a.files), std::move(b.files), remapA.files, remapB.files);
  const int64_t nranks = out.header.nranks;
  out.datatypes =
      mergeObjects(std::move(a.datatypes), std::move(b.datatypes), remapA.datatypes, remapB.datatypes, nranks);
  out.comms = mergeObjects(std::move(a.comms), std::move(b.comms), remapA.comms, remapB.comms, nranks);
  out.infos = mergeObjects(std::move(a.infos), std::move(b.infos), remapA.infos, remapB.infos, nranks);
  if (!remapA.trivial())
    remapBody(a.body, remapA);
  if (!remapB.trivial())
    remapBody(b.body, remapB);
  out.body = mergeBodies(std::move(a.body), std::move(b.body));
  return out;
}

void formatLoopFileNames(Trace &t, int64_t rank) { formatFileNamesInLoops(t, rank); }

void finalizeMerged(Trace &t) {
  // The ranks of object entries only serve the merge.
  for (auto *table : {&t.datatypes, &t.comms, &t.infos})
    for (ObjectEntry &o : *table)
      o.ranks = RankList();
  fitMergedValues(t);
  compactRankTiming(t.body, t.header.nranks);
  compactFileTable(t);
}

std::string serializeTrace(const Trace &t) { return writeTraceString(t); }

Trace deserializeTrace(std::string &&bytes) { return readTraceString(std::move(bytes), "<rank trace>"); }

} // namespace sio::rt
