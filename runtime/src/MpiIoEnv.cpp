// Reading the file ROMIO_HINTS names, at MPI_Init (MpiIoEnv.h). ROMIO opens
// and reads it underneath every MPI_File_open; a replay that provides the
// same bytes gives its MPI-IO the same hints.
#include "MpiIoEnv.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sio::rt {

std::optional<std::string> readRomioHintsFile(const char *path) {
  int savedErrno = errno;
  std::optional<std::string> contents;
  long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    std::string bytes(kMaxRomioHintsBytes + 1, '\0');
    size_t got = 0;
    for (;;) {
      long n = ::syscall(SYS_read, fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        if (n == 0)
          contents.emplace(); // end of file: complete
        break;
      }
      got += size_t(n);
      if (got > kMaxRomioHintsBytes)
        break; // too large: not recorded
    }
    ::syscall(SYS_close, fd);
    if (contents) {
      bytes.resize(got);
      for (unsigned char c : bytes)
        if (!((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r'))
          contents.reset();
      if (contents)
        contents = std::move(bytes);
    }
  }
  errno = savedErrno;
  return contents;
}

} // namespace sio::rt
