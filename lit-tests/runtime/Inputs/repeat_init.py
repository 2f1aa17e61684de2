#!/usr/bin/env python3
"""repeat_init.py N EXE MPIEXEC RUNTIME SIO_TRACE CHECKER: runs EXE (one rank,
RUNTIME preloaded) N times while a busy process keeps a CPU loaded; after each
run the trace must say `complete: yes` and its per-file totals (sio-trace
stats) must equal what the program printed (CHECKER = check_file_totals.py).
Exit 1 at the first run that is not exact."""
import os
import shutil
import subprocess
import sys

n, exe, mpiexec, rt, siotrace, checker = sys.argv[1:7]
hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
try:
    for run in range(int(n)):
        d = os.path.abspath("run%d" % run)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        trace = os.path.join(d, "t.json")
        env = dict(os.environ, SIO_TRACE_FILE=trace)
        out = subprocess.run([mpiexec, "-n", "1", "-genv", "LD_PRELOAD", rt, exe], cwd=d, env=env,
                             stdout=subprocess.PIPE, timeout=120, check=True).stdout
        with open(os.path.join(d, "out"), "wb") as f:
            f.write(out)
        stats = subprocess.run([siotrace, "stats", trace], stdout=subprocess.PIPE, check=True).stdout
        with open(os.path.join(d, "stats"), "wb") as f:
            f.write(stats)
        if b"complete: yes" not in stats:
            sys.exit("run %d: the trace is not complete:\n%s" % (run, stats.decode()))
        r = subprocess.run([sys.executable, checker, os.path.join(d, "out"), os.path.join(d, "stats")])
        if r.returncode != 0:
            sys.exit("run %d: per-file totals differ" % run)
finally:
    hog.kill()
    hog.wait()
print("%s runs exact" % n)
