#include "sio/trace/AtomicFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace sio::trace {

void writeFileAtomically(const std::string &path, const std::function<void(const TextSink &)> &produce) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto failWith = [&](const std::string &what, int err) {
    throw std::runtime_error(path + ": " + what + ": " + std::strerror(err));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    failWith("cannot create " + tmp, errno);
  auto writeAll = [&](std::string_view piece) {
    const char *p = piece.data();
    size_t left = piece.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        failWith("cannot write", n < 0 ? errno : EIO);
      p += n;
      left -= size_t(n);
    }
  };
  try {
    produce(writeAll);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  // close() is where NFS and friends report a full disk.
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    failWith("cannot write", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    failWith("cannot rename " + tmp + " into place", err);
  }
}

void writeFileAtomically(const std::string &path, std::string_view text) {
  writeFileAtomically(path, [&](const TextSink &sink) { sink(text); });
}

} // namespace sio::trace
