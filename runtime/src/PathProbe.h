// Reading a path the application handed to an intercepted call without ever
// faulting on it (docs/runtime.md, "What the runtime never does").
#pragma once

namespace sio::rt {

/// `path` copied into a per-thread buffer if the whole name, NUL included,
/// lies in readable memory and is shorter than PATH_MAX; nullptr otherwise
/// (a wild pointer, a name running into an unmapped or PROT_NONE page, or a
/// kernel that refuses process_vm_readv). One process_vm_readv system call on
/// the process itself: a bad address comes back as a short read, never as a
/// SIGSEGV. The copy is valid until the thread's next probe.
const char *probePath(const char *path);

} // namespace sio::rt
