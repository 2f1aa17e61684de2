// The report of a closed file (SIO_PREFETCH_REPORT): its counters as one
// line, which lit-tests/prefetch and bench/prefetch.py parse.
#include "Interpose.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>

namespace sio::prefetch::interpose {

void report(const FileState &f) {
  const std::string target = envOr("SIO_PREFETCH_REPORT");
  if (target.empty())
    return;
  char line[1024];
  std::snprintf(
      line, sizeof line,
      "sio-prefetch: rank %d file %s mode %s state %s%s%s distance %zu block "
      "%zu cache %zu reads %llu hits %llu misses %llu hit_bytes %llu "
      "miss_bytes %llu prefetched_bytes %llu wasted_bytes %llu late_bytes %llu "
      "excluded %llu "
      "passthrough %llu prefetch_errors %llu wakeups %llu served_us %llu wait_us %llu copy_us %llu "
      "served_mpi_us %llu set_view_us %llu set_view_mpi_us %llu set_view_flatten_us %llu memory_type_us %llu\n",
      g().rank, f.name.c_str(),
      f.predictor.abandonedSignature() || f.viewsAbandoned ? "signature-abandoned" : f.mode.c_str(),
      stateName(f.predictor.state()), f.enabled ? "" : " disabled: ", f.enabled ? "" : f.disabledBecause.c_str(),
      f.distance, g().cache->blockSize(), g().cache->capacityBlocks() * g().cache->blockSize(),
      (unsigned long long)f.c.reads, (unsigned long long)f.c.hits, (unsigned long long)f.c.misses,
      (unsigned long long)f.c.hitBytes, (unsigned long long)f.c.missBytes, (unsigned long long)f.c.prefetchedBytes,
      (unsigned long long)f.c.wastedBytes, (unsigned long long)f.c.lateBytes, (unsigned long long)f.c.excluded,
      (unsigned long long)f.c.passthrough, (unsigned long long)f.c.prefetchErrors, (unsigned long long)f.c.wakeups,
      (unsigned long long)(f.c.servedNs / 1000), (unsigned long long)(f.c.waitNs / 1000),
      (unsigned long long)(f.c.copyNs / 1000), (unsigned long long)(f.c.servedMpiNs / 1000),
      (unsigned long long)(f.c.setViewNs / 1000), (unsigned long long)(f.c.setViewMpiNs / 1000),
      (unsigned long long)(f.c.setViewFlattenNs / 1000), (unsigned long long)(f.c.memoryTypeNs / 1000));
  if (target == "stderr" || target == "-" || target == "1") {
    std::fputs(line, stderr);
    return;
  }
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "sio-prefetch: cannot open SIO_PREFETCH_REPORT file %s: %s\n", target.c_str(),
                 std::strerror(errno));
    std::fputs(line, stderr);
    return;
  }
  [[maybe_unused]] ssize_t w = ::write(fd, line, std::strlen(line)); // one append per line
  ::close(fd);
}

} // namespace sio::prefetch::interpose
