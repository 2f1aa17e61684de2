// Text from a trace shown to a person: program and file names, operation
// names, formulas and the values echoed by error messages are untrusted and
// may hold terminal escape sequences (ESC [ ...), other control characters,
// bytes that are not UTF-8, or megabytes. Every tool's human-readable output
// and every error message passes them through these helpers, so a hostile
// trace can neither drive the terminal nor flood it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sio::trace {

/// Values echoed in messages are cut after this many bytes.
inline constexpr size_t kEchoLimit = 200;
/// Whole messages (error lines) are cut after this many bytes.
inline constexpr size_t kMessageLimit = 4096;

/// `s` with every control character (C0 including newline and tab, DEL, and
/// the C1 controls U+0080..U+009F) written as `\xNN` / `\u00NN`, and every
/// byte that is not part of valid UTF-8 as `\xNN`. Printable UTF-8 (and the
/// backslash) is kept as it is.
std::string escapeControl(std::string_view s);

/// escapeControl of at most the first `limit` bytes of `s`; a longer value
/// ends in `... (N bytes)` with its full size.
std::string echoValue(std::string_view s, size_t limit = kEchoLimit);

/// A message for stderr: each of its lines escapeControl'd (the line breaks
/// kept), cut after kMessageLimit bytes.
std::string printableMessage(std::string_view message);

} // namespace sio::trace
