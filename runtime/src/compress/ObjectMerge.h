// The merge of MPI object tables (datatypes, communicators, infos): an
// object is the same on every rank that made it at the same site as the
// same serial; its fields become models of rank where they differ.
#pragma once

#include "IdRemap.h"

#include <vector>

namespace sio::rt::detail {

/// Unites two object tables by identity (identityKey); ids are renumbered 0..
/// in order of first appearance, a's entries first. Reference fields are
/// renumbered on the way (they name entries made before, so lower ids).
std::vector<ObjectEntry> mergeObjects(std::vector<ObjectEntry> a, std::vector<ObjectEntry> b, IdMap &remapA,
                                      IdMap &remapB, int64_t nranks);

} // namespace sio::rt::detail
