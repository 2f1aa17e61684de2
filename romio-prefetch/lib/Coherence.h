// What the generated interposers (GeneratedInterposers.cpp) need from the
// prefetch library's state.
#pragma once

#include <mpi.h>

namespace sio::prefetch {

/// Drops every cached block of `fh` and discards loads in flight (a new
/// generation): the file's bytes may have changed. No-op for files the
/// library does not track.
__attribute__((visibility("hidden"))) void dropFileCache(MPI_File fh);

} // namespace sio::prefetch
