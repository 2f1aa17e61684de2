// The versioned JSON form of a trace (docs/trace-format.md).
#pragma once

#include "sio/trace/Trace.h"

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sio::trace {

/// The version this build writes. Readers accept any minor version of the
/// same major and refuse other majors.
inline constexpr FormatVersion kFormatVersion{1, 1};

/// A trace that cannot be read: names the file and the JSON path of the field
/// at fault, e.g. `t.json: /body/3/params/offset: expected ...`.
class TraceError : public std::runtime_error {
public:
  TraceError(std::string file, std::string jsonPath, const std::string &message);
  const std::string &file() const { return file_; }
  const std::string &jsonPath() const { return jsonPath_; }

private:
  std::string file_;
  std::string jsonPath_;
};

/// Reads and validates a trace. Throws TraceError (never anything else for bad
/// input): malformed JSON, missing or mistyped fields, unknown major version,
/// rank lists outside [0, nranks), references to missing table entries.
Trace readTrace(std::istream &in, const std::string &sourceName);
Trace readTraceFile(const std::string &path);
Trace readTraceString(const std::string &text, const std::string &sourceName = "<string>");
/// The same, freeing `text` as soon as it is parsed (before the trace is
/// made from the parsed document): a merge holds less.
Trace readTraceString(std::string &&text, const std::string &sourceName = "<string>");

/// Receives the text of a trace piece by piece (writeTraceTo).
using TraceSink = std::function<void(std::string_view)>;
/// Writes `trace` to `sink` in pieces of about 64 KiB, never building the
/// document whole (a DOM or a string): memory is that of the largest single
/// table entry or top-level body node. `pretty`: the pretty-printed form of
/// writeTrace; false: the same document without whitespace (for shipping).
void writeTraceTo(const TraceSink &sink, const Trace &trace, bool pretty = true);

/// Writes `trace` (pretty-printed, stable field order).
void writeTrace(std::ostream &out, const Trace &trace);
std::string writeTraceString(const Trace &trace);
/// Writes via a temporary file and rename, so a reader never sees half a
/// trace. Throws std::runtime_error naming the path on failure (full disk...).
void writeTraceFile(const std::string &path, const Trace &trace);

} // namespace sio::trace
