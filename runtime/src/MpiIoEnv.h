// The environment variables that change what MPI-IO does, recorded in the
// trace's metadata as `env.NAME` (docs/runtime.md, "MPI-IO environment";
// docs/trace-format.md) so that a replay runs its MPI under the same ones.
// An allow-list, names and values only: the rest of the environment (which
// may hold secrets) is never recorded. The names are those ROMIO 4.0 (MPICH
// 4.0.2's libmpich) reads with getenv.
#pragma once

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

} // namespace sio::rt
