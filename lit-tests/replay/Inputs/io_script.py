#!/usr/bin/env python3
"""Writes a random POSIX + stdio program (C) from a seed: the cases of the
differential test io-script.test.

The program opens, writes, reads, seeks, truncates, duplicates and closes a
few files through descriptors and streams, in straight lines and in loops,
with calls that fail (closed descriptors, missing directories, O_EXCL on an
existing file, reads on write-only handles). It logs every call's result and
errno into memory and writes the log at exit with a raw system call, which
the runtime does not see, so the log itself is no I/O of the program's.

The generator keeps the program defined: a stream is used only while open;
a descriptor may be used after its close (EBADF is defined), never while a
stream owns it. Everything else (which calls fail, file sizes, positions)
is left to the program: the test compares it traced and untraced.

Usage: io_script.py SEED > prog.c
"""
import random
import sys

FILES = ["a.dat", "b.dat", "d0/c.dat"]
INPUT = "in.dat"  # made by the test before the run: an input file
MISSING = "nodir/x.dat"
FLAGS = [
    "O_WRONLY | O_CREAT | O_TRUNC",
    "O_RDWR | O_CREAT",
    "O_WRONLY | O_CREAT | O_APPEND",
    "O_RDONLY",
    "O_RDWR",
    "O_WRONLY | O_CREAT | O_EXCL",
]
MODES = ["w", "r", "a", "r+", "w+", "a+"]
N_FD, N_STREAM = 3, 2


class Script:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.depth = 1
        self.step = 0
        # fd slot -> None (never opened), "open", "closed", "owned" (a stream has it)
        self.fd = [None] * N_FD
        # stream slot -> None or the fd slot it owns (-1: its own descriptor)
        self.stream = [None] * N_STREAM

    def emit(self, text):
        self.lines.append("  " * self.depth + text)

    def logged(self, call, kind="long"):
        """A call whose result and errno go to the log."""
        self.step += 1
        self.emit("errno = 0;")
        if kind == "ptr":
            self.emit(f"note({self.step}, \"{call.split('(')[0]}\", (long)({call} != NULL));")
        else:
            self.emit(f"note({self.step}, \"{call.split('(')[0]}\", (long)({call}));")

    def size(self):
        return self.rng.choice([0, 1, 7, 64, 100, 333, 1024])

    def offset(self, loop_var=None):
        base = self.rng.choice([0, 10, 500, 4000])
        if loop_var:
            return f"{base} + {self.rng.choice([1, 64, 100])} * {loop_var}"
        return str(base)

    # --- descriptor calls -------------------------------------------------
    def usable_fd(self, allow_closed=True):
        ok = [k for k, s in enumerate(self.fd) if s == "open" or (allow_closed and s == "closed")]
        return self.rng.choice(ok) if ok else None

    def op_open(self):
        free = [k for k, s in enumerate(self.fd) if s in (None, "closed")]
        if not free:
            return
        k = self.rng.choice(free)
        r = self.rng.random()
        if r < 0.1:
            name, flags = MISSING, "O_WRONLY | O_CREAT"
        elif r < 0.3:
            name, flags = INPUT, self.rng.choice(["O_RDONLY", "O_RDWR"])
        else:
            name, flags = self.rng.choice(FILES), self.rng.choice(FLAGS)
        self.step += 1
        self.emit("errno = 0;")
        self.emit(f'fd[{k}] = open("{name}", {flags}, 0644);')
        self.emit(f'note({self.step}, "open", fd[{k}]);')
        # A failed open leaves -1: later calls on it fail with EBADF.
        self.fd[k] = "open"

    def op_fd_data(self, loop_var=None):
        k = self.usable_fd()
        if k is None:
            return
        n = self.size()
        call = self.rng.choice(["write", "read", "pwrite", "pread"])
        if call == "write":
            self.logged(f"write(fd[{k}], out, {n})")
        elif call == "read":
            self.logged(f"read(fd[{k}], in, {n})")
        elif call == "pwrite":
            self.logged(f"pwrite(fd[{k}], out, {n}, {self.offset(loop_var)})")
        else:
            self.logged(f"pread(fd[{k}], in, {n}, {self.offset(loop_var)})")

    def op_fd_other(self):
        k = self.usable_fd()
        if k is None:
            return
        call = self.rng.choice(["lseek", "ftruncate", "fsync", "close", "dup", "dup2"])
        if call == "lseek":
            whence = self.rng.choice(["SEEK_SET", "SEEK_CUR", "SEEK_END"])
            self.logged(f"lseek(fd[{k}], {self.offset()}, {whence})")
        elif call == "ftruncate":
            self.logged(f"ftruncate(fd[{k}], {self.rng.choice([0, 50, 2000])})")
        elif call == "fsync":
            self.logged(f"fsync(fd[{k}])")
        elif call == "close":
            self.logged(f"close(fd[{k}])")
            self.fd[k] = "closed"
        elif call == "dup":
            free = [j for j, s in enumerate(self.fd) if s in (None, "closed")]
            if not free:
                return
            j = self.rng.choice(free)
            self.step += 1
            self.emit("errno = 0;")
            self.emit(f"fd[{j}] = dup(fd[{k}]);")
            self.emit(f'note({self.step}, "dup", fd[{j}]);')
            self.fd[j] = "open"
        else:
            # onto another slot's descriptor (open or closed): a failed
            # dup2 (its source closed) leaves the target as it was.
            targets = [j for j, s in enumerate(self.fd) if j != k and s in ("open", "closed")]
            if not targets:
                return
            j = self.rng.choice(targets)
            self.logged(f"dup2(fd[{k}], fd[{j}])")
            # Whether it succeeded is the program's business: the slot keeps
            # its number either way, open (source open) or as it was.
            if self.fd[k] == "open":
                self.fd[j] = "open"

    # --- stream calls -----------------------------------------------------
    def op_fopen(self):
        free = [k for k, s in enumerate(self.stream) if s is None]
        if not free:
            return
        k = self.rng.choice(free)
        if self.rng.random() < 0.25:
            owners = [j for j, s in enumerate(self.fd) if s == "open"]
            if owners:
                j = self.rng.choice(owners)
                mode = self.rng.choice(["r", "r+", "w", "a"])
                self.step += 1
                self.emit("errno = 0;")
                self.emit(f'stream[{k}] = fdopen(fd[{j}], "{mode}");')
                self.emit(f'note({self.step}, "fdopen", stream[{k}] != NULL);')
                self.emit(f"if (!stream[{k}]) stream[{k}] = fopen(\"{FILES[0]}\", \"a\");")
                self.stream[k] = j
                self.fd[j] = "owned"
                return
        r = self.rng.random()
        name = INPUT if r < 0.2 else MISSING if r < 0.3 else self.rng.choice(FILES)
        mode = "r" if name == INPUT and r < 0.1 else self.rng.choice(MODES)
        self.step += 1
        self.emit("errno = 0;")
        self.emit(f'stream[{k}] = fopen("{name}", "{mode}");')
        self.emit(f'note({self.step}, "fopen", stream[{k}] != NULL);')
        # Keep the slot usable: a failed fopen falls back to a fresh file.
        self.emit(f'if (!stream[{k}]) stream[{k}] = fopen("{FILES[1]}", "a+");')
        self.stream[k] = -1

    def op_stream(self, loop_var=None):
        open_ = [k for k, s in enumerate(self.stream) if s is not None]
        if not open_:
            return
        k = self.rng.choice(open_)
        s = f"stream[{k}]"
        n = self.size()
        call = self.rng.choice(["fwrite", "fread", "fputs", "fputc", "fprintf", "fgets", "fgetc", "getline",
                                "fseek", "ftell", "fflush"] + ([] if loop_var else ["fclose"]))
        if call == "fwrite":
            self.logged(f"fwrite(out, 1, {n}, {s})")
        elif call == "fread":
            self.logged(f"fread(in, {self.rng.choice([1, 4])}, {n}, {s})")
        elif call == "fputs":
            self.logged(f"fputs(text + {self.rng.choice([0, 10, 40])}, {s})")
        elif call == "fputc":
            self.logged(f"fputc('{self.rng.choice('xyz')}', {s})")
        elif call == "fprintf":
            arg = loop_var or str(self.rng.randint(0, 99999))
            self.logged(f'fprintf({s}, "v=%d;", {arg})')
        elif call == "fgets":
            self.logged(f"fgets(in, {self.rng.choice([2, 16, 200])}, {s})", kind="ptr")
        elif call == "getline":
            self.logged(f"getline(&line, &cap, {s})")
        elif call == "fgetc":
            self.logged(f"fgetc({s})")
        elif call == "fseek":
            whence = self.rng.choice(["SEEK_SET", "SEEK_CUR", "SEEK_END"])
            self.logged(f"fseek({s}, {self.offset(loop_var)}, {whence})")
        elif call == "ftell":
            self.logged(f"ftell({s})")
        elif call == "fflush":
            self.logged(f"fflush({s})")
        else:
            self.logged(f"fclose({s})")
            owner = self.stream[k]
            if owner >= 0:
                self.fd[owner] = "closed"
            self.stream[k] = None

    # --- names --------------------------------------------------------------
    def op_names(self):
        call = self.rng.choice(["unlink", "mkdir", "stat"])
        name = self.rng.choice(FILES + [MISSING])
        if call == "unlink":
            self.logged(f'unlink("{name}")')
        elif call == "mkdir":
            self.logged(f'mkdir("{self.rng.choice(["d0", "d1", "nodir/d"])}", 0755)')
        else:
            self.logged(f'stat("{name}", &st)')

    def op_loop(self):
        count = self.rng.randint(2, 6)
        var = f"i{self.depth}"
        self.emit(f"for (int {var} = 0; {var} < {count}; ++{var}) {{")
        start = len(self.lines)
        self.depth += 1
        for _ in range(self.rng.randint(1, 3)):
            self.rng.choice([self.op_fd_data, self.op_stream])(var)
        self.depth -= 1
        if len(self.lines) == start:
            self.lines.pop()  # nothing to repeat
        else:
            self.emit("}")

    def body(self, steps):
        ops = [(self.op_open, 3), (self.op_fd_data, 4), (self.op_fd_other, 3), (self.op_fopen, 2),
               (self.op_stream, 5), (self.op_names, 1), (self.op_loop, 2)]
        pool = [op for op, w in ops for _ in range(w)]
        self.logged('mkdir("d0", 0755)')
        for _ in range(steps):
            self.rng.choice(pool)()
        for k, s in enumerate(self.stream):
            if s is not None:
                self.logged(f"fclose(stream[{k}])")
        for k, s in enumerate(self.fd):
            if s == "open":
                self.logged(f"close(fd[{k}])")

    def program(self, seed, steps):
        self.body(steps)
        head = f"""/* io_script.py {seed}: generated, do not edit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char log_[1 << 16];
static size_t logged;
static void note(int step, const char *call, long result) {{
  int n = snprintf(log_ + logged, sizeof log_ - logged, "%d %s %ld errno=%d\\n", step, call, result, errno);
  if (n > 0 && logged + (size_t)n < sizeof log_)
    logged += (size_t)n;
}}

int main(void) {{
  static char out[1024], in[8192];
  static const char text[] = "a line of text\\nand another line that is longer\\n";
  int fd[{N_FD}] = {{-1, -1, -1}};
  FILE *stream[{N_STREAM}] = {{NULL, NULL}};
  struct stat st;
  (void)st;
  char *line = NULL;
  size_t cap = 0;
  (void)line, (void)cap, (void)text;
  for (int k = 0; k < (int)sizeof out; ++k)
    out[k] = (char)('a' + k % 26);
"""
        tail = """  syscall(SYS_write, 1, log_, logged);
  return 0;
}
"""
        return head + "\n".join(self.lines) + "\n" + tail


if __name__ == "__main__":
    seed = int(sys.argv[1])
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    sys.stdout.write(Script(seed).program(seed, steps))
