#!/usr/bin/env python3
"""Prefetch benchmark (docs/prefetch.md, "Measurements").

PIO-Bench-style simple and nested strided reads, a BTIO-style read phase and
random reads (Byna et al. SC08 §VI), and the codes of issue 31: btio-mem
(BTIO's reads through a subarray view into a ghost-celled subarray memory
type) and pnetcdf (bench/prefetch-pnetcdf.c: PnetCDF's collective and
nonblocking gets, a new view each read, a derived buffer type), 4 ranks, computation between reads sized
to the measured read time, the file's pages evicted before every run. For
each pattern, ROUNDS rounds alternate the modes:
  none       no prefetching
  signature  libsio-prefetch.so with the signature sio-signature computed
             from a traced run (libsiotrace-rt.so) of the same program
  online     libsio-prefetch.so learning online
  fadvise    the application issues posix_fadvise(WILLNEED) itself
and the medians are reported with the achieved fraction of the ideal overlap
  (T_none - T_mode) / (T_none - max(T_compute, T_io))
where T_compute and T_io are the no-prefetching run's (medians).

  python3 bench/prefetch.py [--build build] [--work DIR] [--ranks 4] [--rounds 5]
                            [--throttle RATE:LATENCY_US]

With --throttle, the work directory is a device of that bandwidth and latency
(build/lib/libsio-throttle.so, shared by the ranks): reads wait instead of
computing, as on a disk or a parallel file system, so the overlap the
prefetcher achieves is measured apart from the CPU contention of a small,
busy machine. The throttle acts on system calls, so it cannot model the
kernel's read-ahead that posix_fadvise(WILLNEED) starts: the fadvise mode is
left out then.
"""
import argparse
import os
import re
import platform
import shutil
import statistics
import subprocess
import sys

MODES = ["none", "signature", "online", "fadvise"]


def run(cmd, env=None, capture=True):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(cmd, env=e, capture_output=capture, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
        sys.exit(1)
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default=None, help="directory on a disk file system (default BUILD/bench-prefetch)")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("--patterns", default="simple,nested,btio,btio16,random")
    ap.add_argument("--throttle", default=None, metavar="RATE:LATENCY_US",
                    help="make the work directory a device, e.g. 100M:1000 (bytes/s with K/M/G, µs per call)")
    ap.add_argument("--block", default=None, help="SIO_PREFETCH_BLOCK for the prefetching runs (e.g. 4k)")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work or os.path.join(build, "bench-prefetch"))
    os.makedirs(work, exist_ok=True)
    lib = os.path.join(build, "lib", "libsio-prefetch.so")
    tracer = os.path.join(build, "lib", "libsiotrace-rt.so")
    sigtool = os.path.join(build, "bin", "sio-signature")
    throttle = os.path.join(build, "lib", "libsio-throttle.so")
    for p in (lib, tracer, sigtool) + ((throttle,) if args.throttle else ()):
        if not os.path.exists(p):
            sys.exit(f"prefetch.py: {p} is missing: build the project first")
    mpiexec = shutil.which("mpiexec.mpich") or sys.exit("prefetch.py: mpiexec.mpich not found")
    exe = os.path.join(work, "prefetch-pio")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prefetch-pio.cpp")
    run(["mpicxx.mpich", "-O2", src, "-o", exe])
    # PnetCDF as the build has it (cmake/SioPnetCDF.cmake: built from
    # Debian's source against MPICH; never Debian's Open MPI PnetCDF).
    pnc_exe = os.path.join(work, "prefetch-pnetcdf")
    pnc_data = os.path.join(work, "bench.nc")
    pnc_dir = os.path.join(build, "pnetcdf")
    if "pnetcdf" in args.patterns.split(","):
        if not os.path.exists(os.path.join(pnc_dir, "lib", "libpnetcdf.so")):
            sys.exit(f"prefetch.py: {pnc_dir}/lib/libpnetcdf.so is missing: configure with PnetCDF")
        run(["mpicc.mpich", "-O2", "-I" + os.path.join(pnc_dir, "include"),
             os.path.join(os.path.dirname(os.path.abspath(__file__)), "prefetch-pnetcdf.c"), "-o", pnc_exe,
             os.path.join(pnc_dir, "lib", "libpnetcdf.so"), "-Wl,-rpath," + os.path.join(pnc_dir, "lib")])
        run([mpiexec, "-n", str(args.ranks), pnc_exe, "create", pnc_data, str(20 * args.scale)])
    data = os.path.join(work, "bench.dat")
    mib = 40 * args.scale * args.ranks  # btio: 40*scale steps of P MiB; simple: 128*scale reads, P*256 KiB apart
    if not os.path.exists(data) or os.path.getsize(data) != mib << 20:
        run([mpiexec, "-n", "1", exe, "create", data, str(mib)])
    # BTIO's read_all with ROMIO's collective buffering measures the two-phase
    # exchange on a loaded machine more than file I/O, and data sieving turns
    # a rank's strided runs into one sequential read the kernel reads ahead
    # by itself: independent reads of just the requested runs.
    hints = os.path.join(work, "romio-hints")
    with open(hints, "w") as f:
        f.write("romio_cb_read disable\nromio_ds_read disable\n")
    base_env = {"ROMIO_HINTS": hints, "MPIR_CVAR_CH4_NUM_VCIS": "1"}
    if args.throttle:
        base_env["SIO_THROTTLE"] = f"{work}:{args.throttle}"

    def launch(pattern, mode, compute_us, extra_env=None):
        cmd = [mpiexec, "-n", str(args.ranks), "env"]
        env = dict(base_env)
        env.update(extra_env or {})
        preload = [throttle] if args.throttle else []
        if mode in ("signature", "online"):
            preload.append(lib)
            env["SIO_PREFETCH_REPORT"] = os.path.join(work, f"report-{pattern}-{mode}.txt")
            if args.block:
                env["SIO_PREFETCH_BLOCK"] = args.block
        if "LD_PRELOAD" in env:
            preload.append(env["LD_PRELOAD"])
        if preload:
            env["LD_PRELOAD"] = ":".join(preload)
        if mode == "signature":
            env["SIO_PREFETCH_SIGNATURES"] = os.path.join(work, f"{pattern}.sig.json")
        cmd += [f"{k}={v}" for k, v in env.items()]
        if pattern == "pnetcdf":
            cmd += [pnc_exe, "run", pnc_data, "--compute-us", str(compute_us)]
        else:
            cmd += [exe, "run", data, pattern, "--compute-us", str(compute_us), "--scale", str(args.scale)]
        if mode == "fadvise":
            cmd.append("--fadvise")
        total, io, comp, reads = run(cmd).split()
        return float(total), float(io), float(comp), int(reads)

    print(f"# machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}, {platform.platform()}")
    throttled = (f" --throttle {args.throttle}" if args.throttle else "") + (f" --block {args.block}" if args.block else "")
    print(f"# command: python3 bench/prefetch.py --ranks {args.ranks} --rounds {args.rounds} --scale {args.scale}"
          f" --patterns {args.patterns}{throttled}")
    print("| pattern | mode | total s | read s | compute s | T_none/T | fraction of ideal overlap |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for pattern in args.patterns.split(","):
        # Signature: trace one run, as a user would.
        trace = os.path.join(work, f"{pattern}.trace.json")
        launch(pattern, "none", 0, {"LD_PRELOAD": tracer, "SIO_TRACE_FILE": trace})
        with open(os.path.join(work, f"{pattern}.sig.json"), "w") as f:
            f.write(run([sigtool, "--format", "json", trace]))
        # Computation per read of the order of the read time.
        calib = [launch(pattern, "none", 0) for _ in range(3)]
        io = statistics.median(c[1] for c in calib)
        compute_us = max(1, int(io / calib[0][3] * 1e6))
        modes = [m for m in MODES
                 if not (m == "fadvise" and (pattern in ("random", "btio-mem", "pnetcdf") or args.throttle))]
        results = {m: [] for m in modes}
        for r in range(args.rounds):
            for m in (modes if r % 2 == 0 else list(reversed(modes))):
                for rep in ("report-%s-%s.txt" % (pattern, m),):
                    path = os.path.join(work, rep)
                    if os.path.exists(path):
                        os.remove(path)
                results[m].append(launch(pattern, m, compute_us))
        med = {m: tuple(statistics.median(x[i] for x in results[m]) for i in range(3)) for m in modes}
        t_none, io_none, comp_none = med["none"]
        ideal = t_none - max(comp_none, io_none)
        for m in modes:
            t, rd, comp = med[m]
            frac = "" if m == "none" else (f"{(t_none - t) / ideal * 100:.0f} %" if ideal > 0 else "n/a")
            if pattern == "random" and m != "none":
                frac = f"slowdown {(t / t_none - 1) * 100:+.1f} %"
            print(f"| {pattern} ({compute_us} µs/read) | {m} | {t:.3f} | {rd:.3f} | {comp:.3f} | {t_none / t:.2f} | {frac} |")
        sys.stdout.flush()
        for m in ("signature", "online"):
            path = os.path.join(work, f"report-{pattern}-{m}.txt")
            if m in modes and os.path.exists(path):
                with open(path) as f:
                    lines = [l.strip() for l in f if l.startswith("sio-prefetch: rank")]
                if not lines:
                    continue
                print(f"#   last {m} run, rank 0 or first to close: {lines[0].split(': ', 1)[1]}")
                # Over all ranks and files of that run.
                tot = {}
                for l in lines:
                    for k, v in re.findall(r"(\w+) (\d+)", l.split(" mode ", 1)[1]):
                        tot[k] = tot.get(k, 0) + int(v)
                read = tot.get("hit_bytes", 0) + tot.get("miss_bytes", 0)
                if tot.get("reads") and read:
                    print(f"#   all ranks: hits {tot['hits']} of {tot['reads']} reads "
                          f"({100 * tot['hits'] / tot['reads']:.1f} %), passthrough {tot.get('passthrough', 0)}, "
                          f"prefetched {tot['prefetched_bytes'] / read:.2f} x the bytes read, "
                          f"wasted {100 * tot['wasted_bytes'] / read:.2f} % of the bytes read, "
                          f"modes {sorted(set(l.split(' mode ')[1].split()[0] for l in lines))}")
                    # Where the read time of served reads went (per rank, mean).
                    nr = len(lines)
                    if "served_us" in tot:
                        print(f"#   per rank (mean): in the library for served reads "
                              f"{tot['served_us'] / nr / 1e3:.1f} ms (waiting for the thread "
                              f"{tot['wait_us'] / nr / 1e3:.1f}, copying {tot['copy_us'] / nr / 1e3:.1f}), "
                              f"count-0 collectives of served reads {tot['served_mpi_us'] / nr / 1e3:.1f} ms, "
                              f"set_view {tot['set_view_us'] / nr / 1e3:.1f} ms "
                              f"(in PMPI_File_set_view {tot.get('set_view_mpi_us', 0) / nr / 1e3:.1f})")


if __name__ == "__main__":
    main()
