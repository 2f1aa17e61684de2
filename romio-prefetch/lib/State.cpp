// The open files' state: the one Global (g()), a handle's FileState, and
// dropping a file's cache (also for Coherence.h).
#include "Interpose.h"

namespace sio::prefetch::interpose {

Global &g() {
  static Global *global = new Global; // never destroyed: MPI may call us during exit
  return *global;
}

std::shared_ptr<FileState> lookupFile(MPI_File fh) {
  auto it = g().files.find(fh);
  return it == g().files.end() ? nullptr : it->second;
}

void dropLocked(FileState &f) {
  ++f.generation;
  g().cache->dropFile(f.id);
}

void drop(MPI_File fh) {
  std::lock_guard lock(g().mu);
  if (auto f = lookupFile(fh))
    dropLocked(*f);
}

} // namespace sio::prefetch::interpose

namespace sio::prefetch {

// Coherence.h's, for the generated interposers and the write completions.
using interpose::drop;
using interpose::g;
using interpose::lookupFile;

void dropFileCache(MPI_File fh) { drop(fh); }

/// Whether the library tracks `fh` (Coherence.h).
bool tracksFile(MPI_File fh) {
  std::lock_guard lock(g().mu);
  return lookupFile(fh) != nullptr;
}

} // namespace sio::prefetch
