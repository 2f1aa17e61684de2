#include "TracePath.h"

#include <cstdlib>
#include <sys/stat.h>

namespace sio::rt {
namespace {

bool parseLong(const char *text, long &out) {
  if (text == nullptr || *text == 0)
    return false;
  char *end = nullptr;
  out = std::strtol(text, &end, 10);
  return *end == 0;
}

std::string slotTag(const LaunchSlot &slot) {
  return "pmi" + std::to_string(slot.rank) + "-of-" + std::to_string(slot.size);
}

std::string absolute(const std::string &path, const std::string &startDir) {
  return !path.empty() && path[0] == '/' ? path : startDir + path;
}

/// The directory part of SIO_TRACE_FILE, ending in '/' (empty: the start
/// directory).
std::string traceDirectory(const std::string &setting) {
  if (setting.empty())
    return "";
  if (namesDirectory(setting))
    return setting.back() == '/' ? setting : setting + "/";
  size_t slash = setting.rfind('/');
  return slash == std::string::npos ? "" : setting.substr(0, slash + 1);
}

} // namespace

std::optional<LaunchSlot> parseLaunchSlot(const char *rank, const char *size) {
  LaunchSlot slot;
  if (!parseLong(rank, slot.rank) || !parseLong(size, slot.size))
    return std::nullopt;
  if (slot.size < 2 || slot.rank < 0 || slot.rank >= slot.size)
    return std::nullopt;
  return slot;
}

std::optional<LaunchSlot> launchSlotFromEnvironment() {
  if (std::getenv("PMI_RANK"))
    return parseLaunchSlot(std::getenv("PMI_RANK"), std::getenv("PMI_SIZE"));
  return parseLaunchSlot(std::getenv("OMPI_COMM_WORLD_RANK"), std::getenv("OMPI_COMM_WORLD_SIZE"));
}

bool isLauncher(const std::string &exe) {
  for (const char *name : {"mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich", "hydra_pmi_proxy",
                           "mpiexec.openmpi", "mpirun.openmpi", "orterun", "prterun", "prted", "orted", "srun"})
    if (exe == name)
      return true;
  return false;
}

std::string defaultTraceName(const std::string &exe, int nranks, const std::optional<LaunchSlot> &slot) {
  if (slot)
    return exe + "." + slotTag(*slot) + ".sio.json";
  return exe + "." + std::to_string(nranks) + ".sio.json";
}

bool namesDirectory(const std::string &setting) {
  if (!setting.empty() && setting.back() == '/')
    return true;
  struct stat st;
  return !setting.empty() && stat(setting.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string chooseTracePath(const std::string &setting, const std::string &startDir, const std::string &defaultName,
                            const std::optional<LaunchSlot> &slot) {
  if (setting.empty())
    return startDir + defaultName;
  std::string path = absolute(setting, startDir);
  if (namesDirectory(path))
    return traceDirectory(path) + defaultName;
  if (!slot)
    return path;
  // Before the extension, so that `t.sio.json` stays a .sio.json file.
  const size_t base = path.rfind('/') + 1; // npos + 1 == 0
  for (const char *ext : {".sio.json", ".json"}) {
    const std::string e = ext;
    if (path.size() > base + e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0)
      return path.substr(0, path.size() - e.size()) + "." + slotTag(*slot) + e;
  }
  return path + "." + slotTag(*slot);
}

std::string childTracePath(const std::string &setting, const std::string &startDir, const std::string &exe, long pid) {
  const std::string dir = setting.empty() ? "" : traceDirectory(absolute(setting, startDir));
  return absolute(dir + exe + "." + std::to_string(pid) + ".sio.json", startDir);
}

} // namespace sio::rt
