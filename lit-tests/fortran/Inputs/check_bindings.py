"""Checks what the pass assumes about MPICH's Fortran bindings
(docs/fortran.md, "What is recognised"), on the installed libmpichfort:

* for every MPI function of IoCalls.def, the Fortran binding the pass marks
  (mpi_x_, and its aliases mpi_x, mpi_x__, MPI_X) is one function that calls
  the C function MPI_X through the PLT, where the runtime intercepts it;
* the mpi_f08 link names (mpi_x_f08_, mpi_x_f08ts_) never do, which is why
  the pass leaves them alone.

usage: check_bindings.py IoCalls.def SIO_FC
Prints counts; exits 1 if an assumption does not hold."""
import bisect
import re
import subprocess
import sys

defs, sio_fc = sys.argv[1], sys.argv[2]
names = re.findall(r"^SIO_IO_CALL\((MPI_\w+),", open(defs).read(), re.M)

# The library sio-fc links: -L dirs of its link command, then libmpichfort.so.
show = subprocess.run([sio_fc, "--sio-show", "x.o"], capture_output=True, text=True, check=True).stdout.split()
libdirs = [w[2:] for w in show if w.startswith("-L")]
lib = None
for d in libdirs:
    try:
        open(d + "/libmpichfort.so").close()
        lib = d + "/libmpichfort.so"
    except OSError:
        pass
if lib is None:
    sys.exit("libmpichfort.so not found in " + " ".join(libdirs))

syms = {}
for line in subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3:
        syms[parts[2]] = int(parts[0], 16)
addrs = sorted(set(syms.values()))


# One disassembly: (address, callee) of every call through the PLT.
calls = []
for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\s+call\s.*<([^>@+]+)@plt>", line)
    if m:
        calls.append((int(m.group(1), 16), m.group(2)))
calls.sort()


def plt_calls(sym):
    start = syms[sym]
    stop = min((a for a in addrs if a > start), default=start + 4096)
    lo = bisect.bisect_left(calls, (start, ""))
    hi = bisect.bisect_left(calls, (stop, ""))
    return {c for _, c in calls[lo:hi]}


failed = False
marked = absent = 0
for n in names:
    f = n.lower() + "_"
    if f not in syms:
        absent += 1
        if not n.endswith("_c"):
            print(f"no Fortran binding {f} for {n}")
            failed = True
        continue
    aliases = [n.lower(), n.lower() + "__", n.upper()]
    if any(syms.get(a) != syms[f] for a in aliases):
        print(f"{f}: aliases {aliases} are not the same function")
        failed = True
    if n not in plt_calls(f):
        print(f"{f} does not call {n} through the PLT")
        failed = True
    marked += 1
f08 = f08_plt = 0
for n in names:
    for suffix in ("_f08_", "_f08ts_"):
        f = n.lower() + suffix
        if f in syms:
            f08 += 1
            if n in plt_calls(f):
                f08_plt += 1
                print(f"{f} calls {n} through the PLT: the pass could mark it")
                failed = True
print(f"{marked} bindings call their C function through the PLT; {absent} large-count forms have no binding")
print(f"{f08} mpi_f08 link names, {f08_plt} of them call their C function through the PLT")
sys.exit(1 if failed else 0)
