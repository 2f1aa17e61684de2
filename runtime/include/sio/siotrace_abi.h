/* The contract between code instrumented by siotrace.so (or sio-instrument)
 * and the tracing runtime. Plain C so that it serves C, C++ and any compiler.
 *
 * Instrumented code calls only these entry points. Every id is a stable 64-bit
 * hash computed at compile time (see docs/plugin.md); the hot path passes the
 * id as an immediate and the runtime stores it, nothing more.
 */
#ifndef SIO_SIOTRACE_ABI_H
#define SIO_SIOTRACE_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump when the layout of the descriptors below or an entry point changes. */
#define SIO_ABI_VERSION 1

/* One I/O call site, emitted by the compiler into section "sio_sites". */
typedef struct SioSiteDesc {
  uint64_t id;          /* stable: hash(file, line, column, callee) */
  uint64_t loop_id;     /* innermost enclosing instrumented loop, 0 if none */
  const char *file;     /* normalized path used in the id (docs/plugin.md) */
  const char *function; /* enclosing function (mangled name) */
  const char *callee;   /* the I/O function called, e.g. "MPI_File_write_at" */
  uint32_t line;
  uint32_t column;
} SioSiteDesc;

/* One instrumented loop, emitted into section "sio_loops". */
typedef struct SioLoopDesc {
  uint64_t id;        /* stable: hash(file, line, column, function) */
  uint64_t parent_id; /* enclosing instrumented loop, 0 if outermost */
  const char *file;
  const char *function;
  uint32_t line;
  uint32_t column;
} SioLoopDesc;

/* Called once per module (translation unit) by a constructor the compiler
 * emits. Tables may be registered before the runtime is initialised and from
 * several shared objects; the runtime keeps them by pointer. */
void __sio_register_tables(uint32_t abi_version, const SioSiteDesc *sites_begin,
                           const SioSiteDesc *sites_end,
                           const SioLoopDesc *loops_begin,
                           const SioLoopDesc *loops_end);

/* Immediately before an I/O call: the id of the call site. */
void __sio_site(uint64_t site_id);

/* Loop markers. enter: once before the first iteration; iter: at the start of
 * every executed body (so n bodies give n calls); exit: on every path that
 * leaves the loop (normal exit, break, return, goto, exception unwinding). The
 * runtime tolerates a missing exit (exit() inside a loop, longjmp). */
void __sio_loop_enter(uint64_t loop_id);
void __sio_loop_iter(uint64_t loop_id);
void __sio_loop_exit(uint64_t loop_id);

/* Not emitted by the compiler: a program whose PMPI_ calls are its own
 * set-up rather than calls to trace (sio's generated replays, which make
 * their set-up through PMPI_ and the replayed calls through MPI_) calls this
 * once, before its first PMPI_ call; from then on the runtime records no
 * PMPI_ call of the process. Looked up with dlsym(RTLD_DEFAULT, ...) so that
 * the program also runs without the runtime (docs/runtime.md, "Programs
 * that call PMPI_ names"). */
void __sio_pmpi_unrecorded(void);

#ifdef __cplusplus
}
#endif

#endif /* SIO_SIOTRACE_ABI_H */
