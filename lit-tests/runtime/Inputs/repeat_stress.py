#!/usr/bin/env python3
"""repeat_stress.py N EXE MPIEXEC RUNTIME SIO_TRACE CHECKER [--merged]: runs
`EXE stress` at 2 ranks N times, preloaded with RUNTIME, each rank leaving its
own trace; after each run checks each rank's per-file totals (sio-trace
stats) against what the program printed (CHECKER = check_file_totals.py).
With --merged the program ends with MPI_Finalize and the one merged trace of
both ranks is checked against the sums over ranks. Exit 1 at the first run
that is not exact."""
import os
import shutil
import subprocess
import sys

n, exe, mpiexec, rt, siotrace, checker = sys.argv[1:7]
merged = "--merged" in sys.argv[7:]
for run in range(int(n)):
    d = os.path.abspath("run%d" % run)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(os.environ, SIO_TRACE_FILE=os.path.join(d, "t.json"))
    if not merged:
        env["THREADS_IO_NO_FINALIZE"] = "1"
    # hydra would SIGKILL the other rank as soon as one exits without
    # MPI_Finalize; each rank must finish writing its trace.
    out = subprocess.run([mpiexec, "-disable-auto-cleanup", "-n", "2", "-genv", "LD_PRELOAD", rt, exe, "stress", "1"],
                         cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120).stdout
    with open(os.path.join(d, "out"), "wb") as f:
        f.write(out)
    if merged:
        stats = subprocess.run([siotrace, "stats", os.path.join(d, "t.json")], stdout=subprocess.PIPE,
                               check=True).stdout
        with open(os.path.join(d, "stats"), "wb") as f:
            f.write(stats)
        r = subprocess.run([sys.executable, checker, os.path.join(d, "out"), os.path.join(d, "stats")])
        if r.returncode != 0:
            sys.exit("run %d, merged trace: per-file totals differ" % run)
        continue
    for rank in (0, 1):
        trace = os.path.join(d, "t.json.rank%d.partial.sio.json" % rank)
        stats = subprocess.run([siotrace, "stats", trace], stdout=subprocess.PIPE, check=True).stdout
        with open(os.path.join(d, "stats%d" % rank), "wb") as f:
            f.write(stats)
        r = subprocess.run([sys.executable, checker, os.path.join(d, "out"), os.path.join(d, "stats%d" % rank),
                            str(rank)])
        if r.returncode != 0:
            sys.exit("run %d, rank %d: per-file totals differ" % (run, rank))
print("%s runs exact%s" % (n, " (merged traces)" if merged else ""))
