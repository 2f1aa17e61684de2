// Writing an output file so that nobody sees it half-written, and nothing
// but a regular file is ever replaced. The text goes to an unnamed file in
// the target's directory (O_TMPFILE; a process killed while writing leaves
// nothing behind), which is named PATH.tmp.HOST.PID and renamed into place
// once complete; where the file system has no O_TMPFILE (NFS, Lustre), it
// is written under that name directly. Every tool that writes a trace, a
// replay program or a report uses it, so a full disk or a failed generator
// leaves the old file (or none), never a truncated one.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace sio::trace {

/// Receives the text piece by piece (the producer never holds it whole).
using TextSink = std::function<void(std::string_view)>;

/// Calls `produce` with a sink writing to a temporary next to the target,
/// then renames it into place. The target is `path`, or the file a symbolic
/// link there leads to (written in place of the link's target, which may not
/// exist yet; the link stays). A target that exists and is not a regular
/// file (a device, a FIFO, a socket, a directory) is never touched: that
/// throws. On any failure (the producer's exceptions too) the temporary is
/// removed; errors throw std::runtime_error naming `path` and the reason.
/// `produce` may be called twice (a second time when an unnamed temporary
/// could not be given its name).
void writeFileAtomically(const std::string &path, const std::function<void(const TextSink &)> &produce);

/// The same for a text already made.
void writeFileAtomically(const std::string &path, std::string_view text);

/// Removes the temporaries of `path` (PATH.tmp.HOST.PID, and the older
/// PATH.tmp.PID) that processes of this host which no longer run left
/// behind (killed by SIGKILL while writing). Those of other hosts stay.
/// Returns how many were removed; never throws.
size_t removeStaleTemporaries(const std::string &path);

} // namespace sio::trace
