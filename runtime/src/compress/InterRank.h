// Inter-rank merge of per-rank traces (ScalaTrace's inter-node compression,
// ScalaIOExtrap §2) and the final model fitting done once at the root.
//
// Capture's MPI_Finalize driver: every rank builds a Trace (header.nranks = the
// run's rank count, its own tables, body from IntraRankCompressor::finish),
// then over a binomial/radix tree a rank receives a child's trace
// (deserializeTrace), merges it (mergeTraces) and sends the result up
// (serializeTrace). The root calls finalizeMerged once and writes the trace.
//
// Table references. Parameters that hold ids into the trace's tables are
// recognized by name (tableOfParam): "file" -> files; "datatype", "etype",
// "filetype" -> datatypes; "comm", "newcomm" -> comms; "info" -> infos.
// Capture assigns ids per rank (e.g. in creation order); the merge renumbers
// files by content, so equal entries share one id, and different entries keep
// different ids with the parameter becoming elastic. MPI objects a rank made
// are united by identity instead (creation site and serial, see
// sio::trace::ObjectEntry): one entry whose differing fields become exact
// functions of rank (or rank-indexed tables). finalizeMerged then turns
// per-rank file names that differ in integer fields into a format
// (`file_<rank>`, `file_<rank/4>`, zero-padded `out_<rank:04>`), also when the
// per-rank entries already have loop-index fields (`dir.<rank>/f.<i0>`).
#pragma once

#include "sio/trace/Trace.h"

#include <optional>
#include <string>
#include <string_view>

namespace sio::rt {

enum class TableKind { Files, Datatypes, Comms, Infos };

/// Which table a parameter of this name indexes, if any.
std::optional<TableKind> tableOfParam(std::string_view paramName);

/// Per rank, before the merge (the body as IntraRankCompressor::finish gives
/// it, file ids in the rank's table of literal names): a file parameter that
/// names a different file in each iteration (`dir.3/file.3.0`, `.1`, ...)
/// becomes one entry whose name has fields affine in the loop indices
/// (`dir.3/file.3.<i0>`), so the table holds one entry per name format, not
/// one per file; entries no call refers to any more are dropped.
void formatLoopFileNames(sio::trace::Trace &t, int64_t rank);

/// Merges two traces of the same program taken on disjoint rank sets. Equal
/// structure becomes one node with the union rank list; differing values
/// become elastic entries (coalesced when equal); differing structure is kept
/// with its own rank lists, never dropped. Linear in size when the structures
/// are equal (an LCS alignment is used only where they differ). Header: the
/// first trace's, with complete/droppedEvents/notes combined.
/// The metadata key listing (comma-separated) the MPI-IO environment keys
/// whose values differ between ranks (docs/trace-format.md).
inline constexpr std::string_view kMpiIoEnvDiffersKey = "mpi_io_env_differs";

sio::trace::Trace mergeTraces(sio::trace::Trace a, sio::trace::Trace b);

/// Per rank, before the merge: every event gets its rank's timing group
/// (sio/trace/RankTiming.h) from the statistics its calls added to while
/// tracing, so the merge keeps what each rank took (nothing is added on the
/// tracing path).
void seedRankTiming(std::vector<sio::trace::Node> &body, int64_t rank);

/// Keeps per-rank timing where a timeline would show it: an event whose
/// ranks' total time in it differs by less than 5% of a rank's mean traced
/// time, or whose ranks all fell in one group, has none (its statistics
/// describe every rank); others keep at most 4 groups per call count
/// (neighbours by mean call time joined). A trace of equal ranks stays as
/// small as without per-rank timing. finalizeMerged calls it.
void compactRankTiming(std::vector<sio::trace::Node> &body, int64_t nranks);

/// Once, at the root, after the last merge: fits values that differ across
/// ranks to exact models of rank (affine in rank; ((rank + a) % nranks) * b),
/// per coefficient of their loop-index polynomials; likewise loop counts;
/// builds file-name formats; renumbers tables canonically and compacts rank
/// lists. Two runs of the same program give identical results.
void finalizeMerged(sio::trace::Trace &t);

/// Shipping a per-rank (or partially merged) trace between ranks: the JSON
/// form of trace/Json.h, so there is one format.
std::string serializeTrace(const sio::trace::Trace &t);
/// Throws sio::trace::TraceError on malformed input. The text is freed
/// once parsed, before the trace is made from it.
sio::trace::Trace deserializeTrace(std::string &&bytes);

} // namespace sio::rt
