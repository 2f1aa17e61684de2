// The partitioning and layout hints of ncmpi_create: its MPI_Info, then
// PNETCDF_HINTS.
#include "Interpose.h"

#include "sio/part/ProbeCache.h"
#include "sio/part/Select.h"

#include <cstdlib>
#include <cstring>
#include <map>

namespace sio::part::interpose {

namespace {

/// PnetCDF 1.12.3's hints that place the header and the variables in the
/// file (ncmpio_set_pnetcdf_hints), and the MPI-IO hint its enddef derives
/// the alignments from when they are not given.
const char *const kLayoutHints[] = {"nc_header_align_size", "nc_var_align_size", "nc_record_align_size",
                                    "striping_unit"};

std::string infoGet(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL)
    return {};
  int flag = 0, len = 0;
  char probe[1];
  MPI_Info_get_string(info, key, &len, probe, &flag);
  if (!flag)
    return {};
  std::string v(len, '\0');
  MPI_Info_get_string(info, key, &len, v.data(), &flag);
  v.resize(std::strlen(v.c_str()));
  return v;
}

} // namespace

std::string readHints(MPI_Info info, Hints &h) {
  std::map<std::string, std::string> kv;
  for (const char *key : {"nc_partitioning_enabled", "nc_num_partitions", "sio_part_targets", "sio_part_threshold",
                          "sio_part_probe_lifetime"}) {
    std::string v = infoGet(info, key);
    if (!v.empty())
      kv[key] = v;
  }
  for (const char *key : kLayoutHints) {
    std::string v = infoGet(info, key);
    if (!v.empty())
      kv[key] = v;
  }
  if (const char *env = std::getenv("PNETCDF_HINTS")) {
    std::string s = env;
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t semi = s.find(';', pos);
      std::string item = s.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
      size_t eq = item.find('=');
      if (eq != std::string::npos)
        kv[item.substr(0, eq)] = item.substr(eq + 1);
      if (semi == std::string::npos)
        break;
      pos = semi + 1;
    }
  }
  h.enabled = kv["nc_partitioning_enabled"] == "true" || kv["nc_partitioning_enabled"] == "1";
  if (auto &n = kv["nc_num_partitions"]; !n.empty()) {
    char *end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (*end || v < 1 || v > 65536)
      return "hint nc_num_partitions='" + n + "' is not a partition count (1..65536)";
    h.numPartitions = int(v);
  }
  h.targets = sio::part::splitTargets(kv["sio_part_targets"]);
  for (const char *key : kLayoutHints)
    if (auto it = kv.find(key); it != kv.end() && !it->second.empty())
      h.layout += std::string(key) + "=" + it->second + ";";
  if (auto &t = kv["sio_part_threshold"]; !t.empty()) {
    std::string err;
    auto v = sio::part::parseThreshold(t, &err);
    if (!v)
      return "hint sio_part_threshold: " + err;
    h.threshold = *v;
  }
  if (auto &t = kv["sio_part_probe_lifetime"]; !t.empty()) {
    std::string err;
    auto v = sio::part::parseProbeLifetime(t, &err);
    if (!v)
      return "hint sio_part_probe_lifetime: " + err;
    h.probeLifetime = *v;
  }
  return {};
}

} // namespace sio::part::interpose
