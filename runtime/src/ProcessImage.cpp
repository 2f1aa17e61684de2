// Calls that replace or share the process image: the exec family and vfork.
// Neither may lose calls or put them into the wrong trace silently
// (docs/runtime.md, Processes):
// - exec: the runtime's records live in the image that exec discards, so the
//   image's trace is written first (a partial trace: the process goes on in
//   the new program), and the new program's runtime is told where it went
//   (SIO_EXEC_PREDECESSOR), so that its own trace says it is not the whole
//   process.
// - vfork: the child borrows the parent's memory, runtime state included, so
//   its calls would land in the parent's buffers. It is served by fork: POSIX
//   allows vfork to be fork, and a child that keeps vfork's rules (exec or
//   _exit) cannot tell.
#include "Runtime.h"

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <dlfcn.h>
#include <string_view>
#include <unistd.h>
#include <vector>

#define SIO_EXPORT __attribute__((visibility("default")))

extern char **environ;

namespace {

template <class Fn> Fn realFunction(const char *name) { return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name)); }

/// `envp` with the runtime's entry for the new image (and without a stale one).
class ExecEnvironment {
public:
  ExecEnvironment(char *const *envp, const char *entry) {
    if (!entry) {
      given_ = envp;
      return;
    }
    const std::string_view var = sio::rt::kExecPredecessorVar;
    for (char *const *e = envp; e && *e; ++e)
      if (!(std::strncmp(*e, var.data(), var.size()) == 0 && (*e)[var.size()] == '='))
        entries_.push_back(*e);
    entries_.push_back(const_cast<char *>(entry));
    entries_.push_back(nullptr);
  }
  char *const *get() const { return given_ ? given_ : entries_.data(); }

private:
  char *const *given_ = nullptr;
  std::vector<char *> entries_;
};

/// The argument list of execl/execlp/execle (up to the terminating NULL);
/// `envp` receives execle's environment when asked for.
std::vector<char *> collectArgs(const char *first, va_list ap, char *const **envp) {
  std::vector<char *> args{const_cast<char *>(first)};
  if (first)
    while (char *a = va_arg(ap, char *))
      args.push_back(a);
  args.push_back(nullptr);
  if (envp)
    *envp = va_arg(ap, char *const *);
  return args;
}

/// Writes the image's trace, runs `exec` with the new environment, and on
/// failure says so and returns -1 with exec's errno.
template <class Exec> int tracedExec(const char *what, char *const *envp, Exec exec) {
  const ExecEnvironment env(envp, sio::rt::prepareExec(what));
  const int r = exec(env.get());
  const int err = errno;
  if (env.get() != envp)
    sio::rt::execFailed(what, err);
  errno = err;
  return r;
}

using ExecveFn = int (*)(const char *, char *const[], char *const[]);
using FexecveFn = int (*)(int, char *const[], char *const[]);
using ExecveatFn = int (*)(int, const char *, char *const[], char *const[], int);

int callExecve(const char *path, char *const argv[], char *const envp[]) {
  return tracedExec(path, envp, [&](char *const *e) {
    static const auto real = realFunction<ExecveFn>("execve");
    return real(path, argv, e);
  });
}

int callExecvpe(const char *file, char *const argv[], char *const envp[]) {
  return tracedExec(file, envp, [&](char *const *e) {
    static const auto real = realFunction<ExecveFn>("execvpe");
    return real(file, argv, e);
  });
}

} // namespace

extern "C" {

// Defined under libc's names (asm labels), as the wrappers of IoCalls.def
// are: the system headers' declarations and exception specifications do not
// clash.
SIO_EXPORT int sio_execve(const char *path, char *const argv[], char *const envp[]) __asm__("execve");
SIO_EXPORT int sio_execv(const char *path, char *const argv[]) __asm__("execv");
SIO_EXPORT int sio_execvpe(const char *file, char *const argv[], char *const envp[]) __asm__("execvpe");
SIO_EXPORT int sio_execvp(const char *file, char *const argv[]) __asm__("execvp");
SIO_EXPORT int sio_execl(const char *path, const char *arg, ...) __asm__("execl");
SIO_EXPORT int sio_execlp(const char *file, const char *arg, ...) __asm__("execlp");
SIO_EXPORT int sio_execle(const char *path, const char *arg, ...) __asm__("execle");
SIO_EXPORT int sio_fexecve(int fd, char *const argv[], char *const envp[]) __asm__("fexecve");
SIO_EXPORT int sio_execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) __asm__("execveat");
SIO_EXPORT pid_t sio_vfork(void) __asm__("vfork");

int sio_execve(const char *path, char *const argv[], char *const envp[]) {
  return callExecve(path, argv, envp);
}

int sio_execv(const char *path, char *const argv[]) { return callExecve(path, argv, environ); }

int sio_execvpe(const char *file, char *const argv[], char *const envp[]) {
  return callExecvpe(file, argv, envp);
}

int sio_execvp(const char *file, char *const argv[]) { return callExecvpe(file, argv, environ); }

int sio_execl(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char *> args = collectArgs(arg, ap, nullptr);
  va_end(ap);
  return callExecve(path, args.data(), environ);
}

int sio_execlp(const char *file, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  std::vector<char *> args = collectArgs(arg, ap, nullptr);
  va_end(ap);
  return callExecvpe(file, args.data(), environ);
}

int sio_execle(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char *const *envp = nullptr;
  std::vector<char *> args = collectArgs(arg, ap, &envp);
  va_end(ap);
  return callExecve(path, args.data(), envp);
}

int sio_fexecve(int fd, char *const argv[], char *const envp[]) {
  return tracedExec("(a descriptor)", envp, [&](char *const *e) {
    static const auto real = realFunction<FexecveFn>("fexecve");
    return real(fd, argv, e);
  });
}

int sio_execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags) {
  return tracedExec(path, envp, [&](char *const *e) {
    static const auto real = realFunction<ExecveatFn>("execveat");
    if (!real) {
      errno = ENOSYS;
      return -1;
    }
    return real(dirfd, path, argv, e, flags);
  });
}

pid_t sio_vfork(void) { return fork(); }

} // extern "C"
