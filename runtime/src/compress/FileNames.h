// File names across ranks and loop iterations: names that differ only in
// integers that are exact functions of the rank or of the loop indices
// become one entry with fields (`out.<rank:04>`, `ckpt_<i0>/part_<i1>`).
#pragma once

#include "sio/trace/Trace.h"

namespace sio::rt::detail {

/// After a merge: every value fitted across ranks (fitAcrossRanks), and the
/// per-rank file names of a parameter united into one name format where
/// they follow one.
void fitMergedValues(sio::trace::Trace &t);

/// Drops file entries no parameter refers to any more and renumbers the
/// rest 0.. (only when every reference is a constant id).
void compactFileTable(sio::trace::Trace &t);

/// One rank's loops: file parameters whose id is a function of the loop
/// indices become one entry with fields in those indices.
void formatFileNamesInLoops(sio::trace::Trace &t, int64_t rank);

} // namespace sio::rt::detail
