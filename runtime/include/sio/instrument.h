/* Included by source that sio-instrument has rewritten (docs/plugin.md,
 * "sio-instrument"). The rewritten code calls the entry points of
 * siotrace_abi.h directly; C++ additionally gets SioLoopScope, which marks a
 * loop's exit on every way out of it (break, return, goto, exception), the
 * way the plugin's exit markers do.
 */
#ifndef SIO_INSTRUMENT_H
#define SIO_INSTRUMENT_H

#include "sio/siotrace_abi.h"

#ifdef __cplusplus
/* Enter on construction, exit on destruction. The rewritten loop sits alone
 * in a block with its scope object, so the destructor runs when control
 * leaves the loop: by break, return, goto or unwinding, inner loops first.
 * exit() marks the exit early, where the plugin's trace has it before I/O
 * on the way out (`return write(...)`) or before exit(); the destructor then
 * does nothing. */
class SioLoopScope {
public:
  explicit SioLoopScope(uint64_t loop_id) : id_(loop_id) { __sio_loop_enter(id_); }
  ~SioLoopScope() { exit(); }
  void exit() {
    if (id_ != 0)
      __sio_loop_exit(id_);
    id_ = 0;
  }
  SioLoopScope(const SioLoopScope &) = delete;
  SioLoopScope &operator=(const SioLoopScope &) = delete;

private:
  uint64_t id_;
};
#endif

#endif /* SIO_INSTRUMENT_H */
