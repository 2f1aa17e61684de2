// Where a view's logical byte lies in the file: the traced filetype (its
// kind and fields, docs/trace-format.md) walked as MPI lays it out, so that
// signatures of reads through non-contiguous views speak in file offsets.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <optional>

namespace sio::signature {

/// Size (data bytes) and extent of a traced datatype, and the byte offset
/// (from the view's displacement) of its logical byte `logical`, tiles
/// included. nullopt when the type is not described well enough (a darray,
/// an unreadable type, a field that depends on what is not known).
struct TypeLayout {
  int64_t size = 0, extent = 0;
};
std::optional<TypeLayout> typeLayout(const trace::Trace &t, int64_t type, int64_t rank);
std::optional<int64_t> fileOffsetOf(const trace::Trace &t, int64_t type, int64_t rank, int64_t logical);

} // namespace sio::signature
