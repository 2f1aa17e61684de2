// What a call spends its time on, as Darshan separates it: moving data
// (reads, writes, split-collective ends, and the MPI_Wait/MPI_Test calls
// that complete nonblocking transfers), metadata (open, close, stat, seek, sync, set_view, truncate, ...)
// or synchronization (MPI barriers and collectives kept for the replay).
// Inner calls (made inside another traced call) are a class of their own:
// their time is already inside the outer call's.
#pragma once

#include "sio/trace/Trace.h"

#include <array>
#include <string_view>

namespace sio::report::detail {

enum class IoClass { Read, Write, Wait, Metadata, Sync, Inner };
constexpr std::array<IoClass, 6> kIoClasses = {IoClass::Read,     IoClass::Write, IoClass::Wait,
                                               IoClass::Metadata, IoClass::Sync,  IoClass::Inner};
/// Data time: reads, writes and the waits that complete nonblocking ones.
inline bool isData(IoClass c) { return c == IoClass::Read || c == IoClass::Write || c == IoClass::Wait; }

IoClass ioClass(const trace::Event &e);
std::string_view ioClassName(IoClass c);

} // namespace sio::report::detail
