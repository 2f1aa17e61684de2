#include "sio/trace/AtomicFile.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace sio::trace {
namespace {

[[noreturn]] void failWith(const std::string &path, const std::string &what, int err) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(err));
}

const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

std::string dirOf(const std::string &p) {
  size_t slash = p.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string baseOf(const std::string &p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

/// The file writing `path` replaces: `path` itself, or where its symbolic
/// links lead (a name that does not exist yet included). Throws when that
/// exists and is not a regular file: renaming over it would replace a
/// device (as root, /dev/null) or a FIFO its reader waits on.
std::string resolveTarget(const std::string &path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT)
        return p; // a new file (a missing directory is reported by the open)
      failWith(path, "cannot inspect " + p, errno);
    }
    if (S_ISREG(st.st_mode))
      return p;
    if (!S_ISLNK(st.st_mode))
      throw std::runtime_error(path + ": " + (p == path ? "" : "leads to " + p + ", which ") + "is " +
                               kindOf(st.st_mode) + ", not a regular file; not written");
    char buf[PATH_MAX];
    ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0)
      failWith(path, "cannot read the symbolic link " + p, errno);
    std::string target(buf, size_t(n));
    if (target.empty() || target[0] != '/')
      target = (p.find('/') == std::string::npos ? std::string() : dirOf(p) + "/") + target;
    p = target;
  }
  throw std::runtime_error(path + ": too many levels of symbolic links; not written");
}

std::string hostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || !host[0])
    return "localhost";
  for (char *c = host; *c; ++c)
    if (*c == '/')
      *c = '_';
  return host;
}

std::string temporaryName(const std::string &target) {
  return target + ".tmp." + hostName() + "." + std::to_string(::getpid());
}

/// Calls the producer with a sink writing to fd; on a failure closes fd,
/// removes `named` (if not empty) and rethrows.
void produceInto(int fd, const std::string &path, const std::function<void(const TextSink &)> &produce,
                 const std::string &named) {
  auto writeAll = [&](std::string_view piece) {
    const char *p = piece.data();
    size_t left = piece.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        failWith(path, "cannot write", n < 0 ? errno : EIO);
      p += n;
      left -= size_t(n);
    }
  };
  try {
    produce(writeAll);
  } catch (...) {
    ::close(fd);
    if (!named.empty())
      ::unlink(named.c_str());
    throw;
  }
}

/// close() is where NFS and friends report a full disk.
void closeOrFail(int fd, const std::string &path, const std::string &named) {
  if (::close(fd) != 0) {
    int err = errno;
    if (!named.empty())
      ::unlink(named.c_str());
    failWith(path, "cannot write", err);
  }
}

} // namespace

void writeFileAtomically(const std::string &path, const std::function<void(const TextSink &)> &produce) {
  const std::string target = resolveTarget(path);
  const std::string dir = dirOf(target);
  const std::string tmp = temporaryName(target);
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  bool named = false;
  if (fd >= 0) {
    // Written unnamed (a process killed now leaves nothing), then named: the
    // link through /proc needs no privilege, AT_EMPTY_PATH does.
    produceInto(fd, path, produce, "");
    ::unlink(tmp.c_str()); // a pid of this host reused: that run is gone
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    named = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) == 0 ||
            ::linkat(fd, "", AT_FDCWD, tmp.c_str(), AT_EMPTY_PATH) == 0;
    closeOrFail(fd, path, named ? tmp : "");
  }
  if (!named) {
    // No O_TMPFILE on this file system (NFS, Lustre), or no way to name the
    // unnamed file: written under the temporary's name.
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      failWith(path, "cannot create " + tmp, errno);
    produceInto(fd, path, produce, tmp);
    closeOrFail(fd, path, tmp);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    failWith(path, "cannot rename " + tmp + " into place", err);
  }
}

void writeFileAtomically(const std::string &path, std::string_view text) {
  writeFileAtomically(path, [&](const TextSink &sink) { sink(text); });
}

size_t removeStaleTemporaries(const std::string &path) {
  std::string target;
  try {
    target = resolveTarget(path);
  } catch (const std::exception &) {
    return 0;
  }
  const std::string prefix = baseOf(target) + ".tmp.";
  const std::string dir = dirOf(target);
  const std::string host = hostName();
  size_t removed = 0;
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return 0;
  while (const struct dirent *e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    // HOST.PID, or PID alone (written before host names were in the name).
    const std::string rest = name.substr(prefix.size());
    const size_t dot = rest.rfind('.');
    const std::string pidText = dot == std::string::npos ? rest : rest.substr(dot + 1);
    const std::string from = dot == std::string::npos ? host : rest.substr(0, dot);
    if (from != host || pidText.empty() || pidText.size() > 9 ||
        pidText.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = pid_t(std::stol(pidText));
    if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue; // its writer may still run
    if (::unlink((dir + "/" + name).c_str()) == 0)
      ++removed;
  }
  ::closedir(d);
  return removed;
}

} // namespace sio::trace
