// Handle lifetimes: a file handle, descriptor, stream or directory stream
// is used only while it is open. The runtime records a handle only once its
// open was recorded and frees its code at the close, so a complete trace
// never closes a handle twice or uses one outside its lifetime; a trace
// that does (edited, corrupted, or written by another tool) would make its
// replay call fclose twice or fseeko on a null stream. readTrace refuses
// such traces, and the replay generator checks the traces it is handed.
#pragma once

#include "sio/trace/Trace.h"

#include <optional>
#include <string>

namespace sio::trace {

/// Handle codes above this are refused: the runtime numbers handles per rank
/// from 0 (the lowest free code), and a replay keeps a table indexed by them.
inline constexpr int64_t kMaxHandleCode = int64_t(1) << 20;

struct HandleProblem {
  std::string path;    ///< JSON pointer of the event (/body/3/body/0)
  std::string message; ///< names the operation, the handle, the site and the ranks
};

/// The first event that uses, or closes, an `fh`, `fd`, `stream` or `dir`
/// that is not open on some of its ranks: closed before (twice closed, used
/// after close) or opened only later (used before open). Also refuses handle
/// codes that are negative (uses) or above kMaxHandleCode.
///
/// Only definite errors are reported: kinds of handle the trace never opens
/// (hand-written traces without opens) are not checked, nor are incomplete
/// traces (a dropped open), calls that failed (`error`), handles given by
/// formulas, and handles touched in loops whose trip count is not one
/// constant; the walk stops checking after a fixed amount of work.
std::optional<HandleProblem> checkHandleLifetimes(const Trace &trace);

} // namespace sio::trace
