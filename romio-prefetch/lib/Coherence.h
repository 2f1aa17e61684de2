// What the generated interposers (GeneratedInterposers.cpp) and the write
// completions (WriteCompletions.cpp) need from the prefetch library's state
// (State.cpp), and what MPI_File_close (ApiFile.cpp) needs from the write
// completions.
#pragma once

#include <mpi.h>

/// The interposed MPI functions: exported, the library's other symbols are
/// hidden (CXX_VISIBILITY_PRESET).
#define SIO_PREFETCH_API __attribute__((visibility("default")))

namespace sio::prefetch {

/// Drops every cached block of `fh` and discards loads in flight (a new
/// generation): the file's bytes may have changed. No-op for files the
/// library does not track.
__attribute__((visibility("hidden"))) void dropFileCache(MPI_File fh);

/// A nonblocking write on `fh` was started as `request`: its bytes may reach
/// the file only when the request completes, so the MPI_Wait/MPI_Test family
/// (and MPI_Request_free) drop the file's cache then.
__attribute__((visibility("hidden"))) void rememberWriteRequest(MPI_File fh, MPI_Request request);

/// Whether the library tracks `fh` (an open file it may prefetch).
__attribute__((visibility("hidden"))) bool tracksFile(MPI_File fh);

/// `fh` is being closed: forget its write requests not completed
/// (erroneous, but they must not outlive the handle). WriteCompletions.cpp.
__attribute__((visibility("hidden"))) void forgetWriteRequests(MPI_File fh);

} // namespace sio::prefetch
