// Settings: a file's MPI_Info hints, else the environment; and the file
// systems whose bytes the prefetch thread's pread sees.
#include "Interpose.h"

#include <cstdio>
#include <cstdlib>
#include <linux/magic.h>
#include <sys/statfs.h>

namespace sio::prefetch::interpose {
namespace {

std::string infoValue(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL)
    return {};
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  return flag ? std::string(value) : std::string();
}

} // namespace

std::string envOr(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v ? v : fallback;
}

std::string setting(MPI_Info info, const char *hint, const char *env) {
  std::string v = infoValue(info, hint);
  return v.empty() ? envOr(env) : v;
}

size_t sizeSetting(MPI_Info info, const char *hint, const char *env, size_t fallback) {
  const std::string v = setting(info, hint, env);
  if (v.empty())
    return fallback;
  char *end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (end && (*end == 'k' || *end == 'K'))
    n <<= 10;
  else if (end && (*end == 'm' || *end == 'M'))
    n <<= 20;
  if (n == 0) {
    std::fprintf(stderr, "sio-prefetch: %s='%s' is not a positive size; using %zu\n", hint, v.c_str(), fallback);
    return fallback;
  }
  return size_t(n);
}

bool fileSystemIsSupported(const std::string &path, std::string &why) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) {
    why = "statfs failed";
    return false;
  }
  switch (static_cast<unsigned long>(fs.f_type)) {
  case EXT4_SUPER_MAGIC:
  case XFS_SUPER_MAGIC:
  case BTRFS_SUPER_MAGIC:
  case TMPFS_MAGIC:
  case OVERLAYFS_SUPER_MAGIC:
  case NFS_SUPER_MAGIC:
  case 0x0BD00BD0: // Lustre
    return true;
  default:
    char buf[64];
    std::snprintf(buf, sizeof buf, "file system type 0x%lx not known to be POSIX-consistent",
                  static_cast<unsigned long>(fs.f_type));
    why = buf;
    return false;
  }
}

std::string stripPrefix(const char *filename) {
  std::string s = filename ? filename : "";
  // ROMIO's "ufs:", "nfs:", "lustre:" prefixes.
  auto colon = s.find(':');
  if (colon != std::string::npos && colon > 1 && s.find('/') > colon)
    s = s.substr(colon + 1);
  return s;
}

} // namespace sio::prefetch::interpose
