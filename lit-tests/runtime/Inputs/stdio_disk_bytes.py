#!/usr/bin/env python3
"""stdio_disk_bytes.py SIO_TRACE CHECKER WORKDIR "[ENV=V ...] EXE"...: runs
each build of stdio_forms.c with groups `main` and `unlocked`, each in a
fresh directory, and prints `NAME GROUP: <check_disk_bytes.py's verdict>`.
The `main` group must be exact; `unlocked` may instead say it is inexact
because of inline stdio buffer access. Exit 1 on the first failure."""
import os
import shlex
import subprocess
import sys

sio_trace, checker, work = sys.argv[1:4]
for spec in sys.argv[4:]:
    words = shlex.split(spec)
    env = dict(os.environ)
    while "=" in words[0]:
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    exe = words[0]
    name = os.path.basename(exe).split(".")[-1]
    for group in ("main", "unlocked"):
        d = os.path.join(work, name, group)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        trace = os.path.join(work, name + "." + group + ".json")
        env["SIO_TRACE_FILE"] = trace
        subprocess.run([exe, group], cwd=d, env=env, check=True)
        stats = trace + ".stats"
        with open(stats, "w") as out:
            subprocess.run([sio_trace, "stats", trace], stdout=out, check=True)
        args = [sys.executable, checker, stats, d]
        if group == "unlocked":
            args += ["--inexact-ok", "inline getc_unlocked/putc_unlocked"]
        r = subprocess.run(args, capture_output=True, text=True)
        print("%s %s: %s" % (name, group, (r.stdout + r.stderr).strip()))
        if r.returncode != 0:
            sys.exit(1)
