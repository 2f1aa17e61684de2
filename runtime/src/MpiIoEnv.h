// The environment variables that change what MPI-IO does, recorded in the
// trace's metadata as `env.NAME` (docs/runtime.md, "MPI-IO environment";
// docs/trace-format.md) so that a replay runs its MPI under the same ones.
// An allow-list, names and values only: the rest of the environment (which
// may hold secrets) is never recorded. The names are those ROMIO 4.0 (MPICH
// 4.0.2's libmpich) reads with getenv.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sio::rt {

inline constexpr std::string_view kMpiIoEnv[] = {
    "ROMIO_HINTS",               // a file of hints applied at every MPI_File_open (its path)
    "ROMIO_FSTYPE_FORCE",        // the file-system driver (ufs:, nfs:, ...)
    "ROMIO_PRINT_HINTS",         // ROMIO prints the hints of each open
    "ROMIO_ONESIDED_ALWAYS_RMW", // one-sided collective aggregation choices
    "ROMIO_ONESIDED_INFORM_RMW",
    "ROMIO_ONESIDED_NO_RMW",
    "ROMIO_READ_AGGMETHOD",
    "ROMIO_WRITE_AGGMETHOD",
    "ROMIO_TUNEGATHER",
};

/// The metadata key of variable `name`.
inline constexpr std::string_view kMpiIoEnvPrefix = "env.";

/// The metadata key of the contents of the file ROMIO_HINTS names, so that a
/// replay provides the same hints to its MPI-IO (docs/replay.md).
inline constexpr std::string_view kRomioHintsContentsKey = "romio_hints.contents";

/// ROMIO's hints files are a few lines of "key value"; a larger file is not
/// recorded (the replay then says it provides zero bytes instead).
inline constexpr size_t kMaxRomioHintsBytes = 4096;

/// The contents of the hints file at `path` (relative names from the current
/// directory, as ROMIO opens it), or nothing when it cannot be read, is
/// larger than kMaxRomioHintsBytes or holds bytes other than printable ASCII
/// and white space. Raw system calls: the read is not an event of the trace
/// and leaves errno as it was.
std::optional<std::string> readRomioHintsFile(const char *path);

} // namespace sio::rt
