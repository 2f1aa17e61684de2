// ROMIO's own temporary files, recognised by name so that a trace names
// them the same way in every run.
#pragma once

#include <string>

namespace sio::rt {

/// ROMIO makes the shared file pointer of `dir/name` in a file of its own,
/// `dir/.name.shfp.<random>.<pid>` (adio/common/shfp_fname.c), opened by
/// its MPI_File_open and the first shared or ordered access. Its name is
/// the library's, not the application's, and differs in every run: the
/// random and pid parts are recorded as `<romio>` (".name.shfp.<romio>"),
/// so that two runs, and a replay whose MPI makes its own such file, give
/// the same trace. Returns whether `path` was such a name.
inline bool markRomioTemporary(std::string &path) {
  const size_t slash = path.rfind('/');
  const size_t base = slash == std::string::npos ? 0 : slash + 1;
  if (path.size() <= base || path[base] != '.')
    return false;
  // From the end: digits (pid), '.', digits (random), ".shfp".
  size_t end = path.size();
  for (int part = 0; part < 2; ++part) {
    size_t digits = end;
    while (digits > base && path[digits - 1] >= '0' && path[digits - 1] <= '9')
      --digits;
    if (digits == end || digits == base || path[digits - 1] != '.')
      return false;
    end = digits - 1;
  }
  static const std::string kShfp = ".shfp";
  if (end < base + 1 + kShfp.size() + 1 || path.compare(end - kShfp.size(), kShfp.size(), kShfp) != 0)
    return false;
  path.replace(end, std::string::npos, ".<romio>");
  return true;
}

} // namespace sio::rt
