#include "sio/part/Probe.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace sio::part {

ProbeResult probeDirectory(const std::string &dir, std::size_t bytes, const ProbeDeadline *deadline) {
  ProbeResult r;
  const std::size_t total = (bytes < kProbeBlock ? 1 : bytes / kProbeBlock) * kProbeBlock;
  std::string path = dir + "/.sio-part-probe." + std::to_string(getpid()) + "." + std::to_string(rand());
  void *buf = nullptr;
  if (posix_memalign(&buf, 4096, kProbeChunk) != 0) {
    r.error = "no memory for the probe buffer";
    return r;
  }
  std::memset(buf, 0x5a, kProbeChunk);
  auto start = std::chrono::steady_clock::now();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
  r.direct = fd >= 0;
  if (fd < 0 && errno == EINVAL) // tmpfs and some others refuse O_DIRECT
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    r.error = "cannot create a probe file in '" + dir + "': " + std::strerror(errno);
    free(buf);
    return r;
  }
  std::size_t written = 0;
  while (written < total) {
    ssize_t n = write(fd, buf, kProbeChunk);
    if (n < 0 && errno == EINVAL && r.direct && written == 0) { // O_DIRECT accepted at open, refused at write
      close(fd);
      r.direct = false;
      fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd < 0)
        break;
      n = write(fd, buf, kProbeChunk);
    }
    if (n != ssize_t(kProbeChunk)) {
      r.error = "probe write to '" + dir + "' failed: " + (n < 0 ? std::strerror(errno) : "short write");
      break;
    }
    written += kProbeChunk;
    if (deadline && written < total) {
      const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (deadline->elapsed() >= deadline->seconds.load() ||
          clearlySlower(written, mine, total, deadline->firstFinish.load())) {
        r.stopped = true;
        break;
      }
    }
  }
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  unlink(path.c_str());
  free(buf);
  r.bytes = written;
  if (r.error.empty() && r.seconds > 0)
    r.bytesPerSecond = double(written) / r.seconds;
  return r;
}

} // namespace sio::part
