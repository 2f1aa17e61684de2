// What the generated interposers (GeneratedInterposers.cpp) need from the
// prefetch library's state.
#pragma once

#include <mpi.h>

namespace sio::prefetch {

/// Drops every cached block of `fh` and discards loads in flight (a new
/// generation): the file's bytes may have changed. No-op for files the
/// library does not track.
__attribute__((visibility("hidden"))) void dropFileCache(MPI_File fh);

/// A nonblocking write on `fh` was started as `request`: its bytes may reach
/// the file only when the request completes, so the MPI_Wait/MPI_Test family
/// (and MPI_Request_free) drop the file's cache then.
__attribute__((visibility("hidden"))) void rememberWriteRequest(MPI_File fh, MPI_Request request);

} // namespace sio::prefetch
