#!/usr/bin/env python3
"""Writes a random MPI-IO program (C) from a seed: the cases of the
differential test mpiio-script.test.

Every rank runs the same script: two file handles over three files, opened
with varying access modes, contiguous and strided views, explicit-offset,
individual-pointer, collective and nonblocking reads and writes at offsets
that depend on the rank, seeks, size changes, syncs, deletes, datatypes made
and freed per loop iteration, and calls that fail (reading a write-only
file, opening a missing file read-only, calls on a closed handle). Each
rank logs every call's error class, its status count and a checksum of
what it read, and writes the log at exit with raw system calls to
LOGDIR/log.<rank>, so the log is no I/O of the program's.

Collective calls are made by every rank with the same arguments, so the
program is the same traced and untraced; which calls fail is the program's
business.

Usage: mpiio_script.py SEED [STEPS] > prog.c
"""
import random
import sys

FILES = ["m0.dat", "m1.dat", "sub/m2.dat"]
MISSING = "nodir/m.dat"
AMODES = [
    "MPI_MODE_CREATE | MPI_MODE_RDWR",
    "MPI_MODE_CREATE | MPI_MODE_RDWR",
    "MPI_MODE_CREATE | MPI_MODE_RDWR",
    "MPI_MODE_CREATE | MPI_MODE_WRONLY",
    "MPI_MODE_RDONLY",
    "MPI_MODE_RDWR",
]
N_FH = 2
COUNTS = [0, 1, 16, 100, 1000]


class Script:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.depth = 1
        self.step = 0
        self.fh = [False] * N_FH  # open or not (a closed handle is MPI_FILE_NULL)
        # Its view interleaves the ranks' bytes: independent writes would be
        # ROMIO's data sieving, a read-modify-write of the others' bytes that
        # races with them (the untraced program alone differs run to run).
        self.interleaved = [False] * N_FH

    def emit(self, text):
        self.lines.append("  " * self.depth + text)

    def logged(self, call, status=False, read=None, name=None):
        """A call whose error class (and status count, and the checksum of
        the `read` bytes of `in`) go to the log; a barrier after it, so that
        no rank reads or sizes a file while another writes it."""
        self.step += 1
        name = name or call.split("(")[0]
        self.emit(f"rc = {call};")
        if status:
            self.emit("count = -1;")
            self.emit("if (rc == MPI_SUCCESS) MPI_Get_count(&st, MPI_BYTE, &count);")
        if read:
            self.emit(f"note({self.step}, \"{name}\", rc, count, rc == MPI_SUCCESS ? sum(in, {read}) : 0);")
        else:
            self.emit(f"note({self.step}, \"{name}\", rc, {'count' if status else '0'}, 0);")
        self.emit("MPI_Barrier(MPI_COMM_WORLD);")

    def offset(self, var=None):
        """Below 12 KiB: the views keep the ranks' bytes apart."""
        base = self.rng.choice([0, 8, 100, 4096])
        extra = f" + {self.rng.choice([16, 100, 1000])} * {var}" if var else ""
        return f"(MPI_Offset)({base}{extra})"

    def fill(self, count):
        self.emit(f"fill(out, {count}, {self.step + 1});")

    # --- open, close, views ------------------------------------------------
    def op_open(self):
        closed = [k for k in range(N_FH) if not self.fh[k]]
        if not closed:
            return
        k = self.rng.choice(closed)
        name = MISSING if self.rng.random() < 0.1 else self.rng.choice(FILES)
        amode = self.rng.choice(AMODES)
        self.logged(f'MPI_File_open(MPI_COMM_WORLD, "{name}", {amode}, MPI_INFO_NULL, &fh[{k}])')
        self.fh[k] = True  # MPI_FILE_NULL if it failed: later calls fail too
        self.view(k, "contiguous")

    def op_close(self):
        opened = [k for k in range(N_FH) if self.fh[k]]
        if opened:
            k = self.rng.choice(opened)
            self.logged(f"(fh[{k}] == MPI_FILE_NULL ? MPI_ERR_FILE : MPI_File_close(&fh[{k}]))", name="close")
            self.fh[k] = False

    def op_view(self):
        self.view(self.rng.randrange(N_FH), self.rng.choice(["contiguous", "strided", "far"]))

    def view(self, k, kind):
        self.interleaved[k] = kind == "strided"
        """Every view keeps each rank's bytes apart from the others': rank r
        has [r * 64 KiB, + 12 KiB) (contiguous), the same 2 MiB on (far), or
        the r-th 32-byte block of each round from 1 MiB on (strided)."""
        if kind == "far":
            disp = "(MPI_Offset)(2097152 + rank * 65536)"
        elif kind == "contiguous":
            disp = "(MPI_Offset)(rank * 65536)"
        if kind == "strided":
            self.logged(f'MPI_File_set_view(fh[{k}], (MPI_Offset)(1048576 + rank * 32), MPI_BYTE, strided, "native", '
                        f'MPI_INFO_NULL)')
        else:
            self.logged(f'MPI_File_set_view(fh[{k}], {disp}, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)')

    # --- data ------------------------------------------------------------
    def op_data(self, var=None):
        k = self.rng.randrange(N_FH)
        n = self.rng.choice(COUNTS)
        f = f"fh[{k}]"
        call = self.rng.choice(["write_at", "read_at", "write", "read", "write_at_all", "read_at_all", "write_all",
                                "read_all", "iwrite_at", "iread_at", "seek", "write_ordered", "read_ordered",
                                "write_at_all_begin", "read_all_begin"])
        # (ROMIO's write_ordered is independent I/O at offsets it agrees on.)
        if self.interleaved[k] and call in ("write_at", "iwrite_at", "write", "write_ordered"):
            call = "write_at_all" if "_at" in call else "write_all"
        if call == "seek":
            self.logged(f"MPI_File_seek({f}, {self.offset(var)}, MPI_SEEK_SET)")
        elif call.endswith("_begin"):
            # a split collective, ended at once
            write = "write" in call
            off = f", {self.offset(var)}" if "_at" in call else ""
            if write:
                self.fill(n)
            else:
                self.emit(f"memset(in, 0, {max(n, 1)});")
            buf = "out" if write else "in"
            end = call.replace("_begin", "_end")
            self.logged(f"(rc = MPI_File_{call}({f}{off}, {buf}, {n}, MPI_BYTE)) != MPI_SUCCESS ? rc : "
                        f"MPI_File_{end}({f}, {buf}, &st)",
                        status=True, read=None if write else "count", name=f"MPI_File_{call}")
        elif "write" in call:
            self.fill(n)
            off = f", {self.offset(var)}" if call.endswith("_at") or call.endswith("_at_all") else ""
            if call == "iwrite_at":
                self.logged(f"iwait(MPI_File_iwrite_at({f}{off}, out, {n}, MPI_BYTE, &req), &req, &st)",
                            status=True)
            else:
                self.logged(f"MPI_File_{call}({f}{off}, out, {n}, MPI_BYTE, &st)", status=True)
        else:
            off = f", {self.offset(var)}" if call.endswith("_at") or call.endswith("_at_all") else ""
            self.emit(f"memset(in, 0, {max(n, 1)});")
            if call == "iread_at":
                self.logged(f"iwait(MPI_File_iread_at({f}{off}, in, {n}, MPI_BYTE, &req), &req, &st)", status=True,
                            read="count")
            else:
                self.logged(f"MPI_File_{call}({f}{off}, in, {n}, MPI_BYTE, &st)", status=True, read="count")

    def op_file(self):
        k = self.rng.randrange(N_FH)
        f = f"fh[{k}]"
        call = self.rng.choice(["get_size", "set_size", "sync", "position", "delete", "atomicity", "preallocate",
                                "info"])
        if call == "atomicity":
            self.logged(f"MPI_File_set_atomicity({f}, {self.rng.choice([0, 1])})")
            return
        if call == "preallocate":
            self.logged(f"MPI_File_preallocate({f}, (MPI_Offset){self.rng.choice([100, 70000])})")
            return
        if call == "info":
            self.logged(f"MPI_File_set_info({f}, hints)")
            return
        if call == "get_size":
            self.step += 1
            self.emit("size = -7;")
            self.emit(f"rc = MPI_File_get_size({f}, &size);")
            self.emit(f'note({self.step}, "get_size", rc, rc == MPI_SUCCESS ? (long)size : -1, 0);')
            self.emit("MPI_Barrier(MPI_COMM_WORLD);")
        elif call == "position":
            self.step += 1
            self.emit("size = -7;")
            self.emit(f"rc = MPI_File_get_position({f}, &size);")
            self.emit(f'note({self.step}, "get_position", rc, rc == MPI_SUCCESS ? (long)size : -1, 0);')
            self.emit("MPI_Barrier(MPI_COMM_WORLD);")
        elif call == "set_size":
            self.logged(f"MPI_File_set_size({f}, (MPI_Offset){self.rng.choice([0, 500, 5000])})")
        elif call == "sync":
            self.logged(f"MPI_File_sync({f})")
        else:
            # rank 0 deletes a file no handle may still name (the others wait)
            if any(self.fh):
                return
            name = self.rng.choice(FILES + [MISSING])
            self.logged(f'(rank == 0 ? MPI_File_delete("{name}", MPI_INFO_NULL) : MPI_SUCCESS)', name="delete")

    def op_loop(self):
        count = self.rng.randint(2, 5)
        var = f"i{self.depth}"
        self.emit(f"for (int {var} = 0; {var} < {count}; ++{var}) {{")
        start = len(self.lines)
        self.depth += 1
        if self.rng.random() < 0.3:
            # a datatype made and freed per iteration (objects per iteration)
            self.emit("MPI_Datatype piece;")
            self.emit(f"MPI_Type_contiguous({self.rng.choice([4, 8])} + {var}, MPI_BYTE, &piece);")
            self.emit("MPI_Type_commit(&piece);")
            k = self.rng.randrange(N_FH)
            self.fill(100)
            write = "MPI_File_write_at_all" if self.interleaved[k] else "MPI_File_write_at"
            self.logged(f"{write}(fh[{k}], {self.offset(var)}, out, 2, piece, &st)", status=True)
            self.emit("MPI_Type_free(&piece);")
        for _ in range(self.rng.randint(1, 2)):
            self.op_data(var)
        self.depth -= 1
        if len(self.lines) == start:
            self.lines.pop()
        else:
            self.emit("}")

    def body(self, steps):
        ops = [(self.op_open, 3), (self.op_close, 2), (self.op_view, 2), (self.op_data, 6), (self.op_file, 2),
               (self.op_loop, 2)]
        pool = [op for op, w in ops for _ in range(w)]
        for _ in range(steps):
            self.rng.choice(pool)()
        for k in range(N_FH):
            if self.fh[k]:
                self.logged(f"(fh[{k}] == MPI_FILE_NULL ? MPI_ERR_FILE : MPI_File_close(&fh[{k}]))", name="close")

    def program(self, seed, steps):
        self.body(steps)
        head = f"""/* mpiio_script.py {seed}: generated, do not edit. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rank, nranks;
static char log_[1 << 16];
static size_t logged;
/* The error class, not the code: codes carry a message index. */
static void note(int step, const char *call, int rc, long count, unsigned long sum) {{
  int cls = rc;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  int n = snprintf(log_ + logged, sizeof log_ - logged, "%d %s class=%d count=%ld sum=%lu\\n", step, call, cls,
                   count, sum);
  if (n > 0 && logged + (size_t)n < sizeof log_)
    logged += (size_t)n;
}}
static unsigned long sum(const char *p, long n) {{
  unsigned long s = 0;
  for (long i = 0; i < n; ++i)
    s = s * 31 + (unsigned char)p[i];
  return s;
}}
static void fill(char *p, int n, int step) {{
  for (int i = 0; i < n; ++i)
    p[i] = (char)('A' + (rank * 7 + step + i) % 26);
}}
__attribute__((unused)) static int iwait(int rc, MPI_Request *req, MPI_Status *st) {{
  return rc == MPI_SUCCESS ? MPI_Wait(req, st) : rc;
}}


int main(int argc, char **argv) {{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  static char out[4096], in[8192];
  MPI_File fh[{N_FH}] = {{MPI_FILE_NULL, MPI_FILE_NULL}};
  MPI_Status st;
  MPI_Request req;
  MPI_Offset size;
  int rc, count = 0;
  (void)size, (void)req;
  if (rank == 0)
    mkdir("sub", 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  /* 32-byte blocks, one per rank in turn */
  MPI_Datatype block, strided;
  MPI_Type_contiguous(32, MPI_BYTE, &block);
  MPI_Type_create_resized(block, 0, (MPI_Aint)32 * nranks, &strided);
  MPI_Type_commit(&strided);
  MPI_Type_free(&block);
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "romio_cb_write", "enable");
  MPI_Info_set(hints, "cb_buffer_size", "4096");
"""
        tail = """  MPI_Type_free(&strided);
  MPI_Info_free(&hints);
  char path[4096];
  snprintf(path, sizeof path, "%s/log.%d", argc > 1 ? argv[1] : ".", rank);
  long logFd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (logFd >= 0) {
    syscall(SYS_write, logFd, log_, logged);
    syscall(SYS_close, logFd);
  }
  MPI_Finalize();
  return 0;
}
"""
        return head + "\n".join(self.lines) + "\n" + tail


if __name__ == "__main__":
    seed = int(sys.argv[1])
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    sys.stdout.write(Script(seed).program(seed, steps))
