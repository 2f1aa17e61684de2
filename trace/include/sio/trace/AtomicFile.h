// Writing an output file so that nobody sees it half-written: the text goes
// to PATH.tmp.PID and is renamed into place once complete. Every tool that
// writes a trace, a replay program or a report uses it, so a full disk or a
// failed generator leaves the old file (or none), never a truncated one.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace sio::trace {

/// Receives the text piece by piece (the producer never holds it whole).
using TextSink = std::function<void(std::string_view)>;

/// Calls `produce` with a sink writing to a temporary next to `path`, then
/// renames it into place. On any failure (the producer's exceptions too) the
/// temporary is removed; errors of the file system throw std::runtime_error
/// naming `path` and the reason.
void writeFileAtomically(const std::string &path, const std::function<void(const TextSink &)> &produce);

/// The same for a text already made.
void writeFileAtomically(const std::string &path, std::string_view text);

} // namespace sio::trace
