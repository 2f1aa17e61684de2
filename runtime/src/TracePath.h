// Where a process's trace goes (docs/runtime.md, "Where the trace goes"):
// the default name, SIO_TRACE_FILE as a file or a directory, and the name of
// each process of a launch of several processes that never call MPI (which
// cannot merge, so each needs a file of its own). Pure functions of their
// arguments, apart from the directory probe, so the rules can be tested.
#pragma once

#include <optional>
#include <string>

namespace sio::rt {

/// A process's place in a launch of several (Hydra/PMI: PMI_RANK and
/// PMI_SIZE; Open MPI: OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE).
struct LaunchSlot {
  long rank = 0;
  long size = 1;
};

/// The slot from the launcher's variables; nullopt when absent, malformed or
/// when the launch has a single process (its name stays the default one).
std::optional<LaunchSlot> parseLaunchSlot(const char *rank, const char *size);
std::optional<LaunchSlot> launchSlotFromEnvironment();

/// A process launcher (mpiexec, mpirun, Hydra's proxy, srun...) by its
/// executable's base name: preloaded with the program (`LD_PRELOAD=...
/// mpiexec -n 4 ./app`), it probes its configuration and PATH, but its own
/// trace is not what the user asked for, and as the tracing process it would
/// make the ranks it starts its silent children.
bool isLauncher(const std::string &exe);

/// `<exe>.<nranks>.sio.json`, or `<exe>.pmi<rank>-of-<size>.sio.json` for a
/// process of a launch of several that did not merge through MPI.
std::string defaultTraceName(const std::string &exe, int nranks, const std::optional<LaunchSlot> &slot);

/// SIO_TRACE_FILE names a directory: it ends in '/' or is one (links
/// followed), as Darshan's and Recorder's output directories.
bool namesDirectory(const std::string &setting);

/// The absolute trace path. `setting` is SIO_TRACE_FILE (may be empty),
/// `startDir` the directory the program started in (ending in '/'), relative
/// paths are taken from there. A directory receives `defaultName`; a file
/// named for a process of a launch of several gets the slot inserted before
/// its extension (`t.json` -> `t.pmi1-of-3.json`), so the processes do not
/// overwrite one another's trace.
std::string chooseTracePath(const std::string &setting, const std::string &startDir, const std::string &defaultName,
                            const std::optional<LaunchSlot> &slot);

/// The trace of a traced program's child (SIO_TRACE_CHILDREN=1):
/// `<exe>.<pid>.sio.json` in the directory the application's trace goes to.
std::string childTracePath(const std::string &setting, const std::string &startDir, const std::string &exe, long pid);

} // namespace sio::rt
