#!/usr/bin/env python3
"""Runs the differential test of libsio-prefetch.so (diffops.c) for some
seeds and compares every run's output with the run without the library.

  diffops.py --diffops BIN --prefetch LIB --mpiexec CMD
             [--trace LIB --signature TOOL] [--seeds 1:3,2:2,...] [--steps N]

--seeds: SEED:RANKS items (DIFFOPS_SEEDS in the environment overrides it,
e.g. DIFFOPS_SEEDS=$(seq -s, 1 50) for more; a seed without :RANKS runs on
2 + seed % 3 ranks). Per seed, in a fresh directory: the run without the
library; with it, learning online, with the block size and cache the seed
picks (64 KiB / 32 MiB, 4 KiB / 64 KiB, 16 KiB / 256 KiB); with --trace and
--signature also a traced run (which must not change the output either) and
a run guided by its signatures. Prints one line per run and "diffops: N runs,
D differ, H of R reads served"; exits 1 when a run differs or the library
served no read at all."""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--diffops", required=True)
ap.add_argument("--prefetch", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--trace")
ap.add_argument("--signature")
ap.add_argument("--seeds", default="1:3")
ap.add_argument("--steps", type=int, default=60)
ap.add_argument("--keep", help="directory to keep the runs in")
a = ap.parse_args()
for k in ("diffops", "prefetch", "trace", "signature"):
    v = getattr(a, k)
    if v and os.path.exists(v):
        setattr(a, k, os.path.abspath(v))

SETTINGS = [("65536", "33554432"), ("4096", "65536"), ("16384", "262144")]


def run(cwd, ranks, seed, env=None, stdout=None):
    e = dict(os.environ)
    e.update(env or {})
    cmd = shlex.split(a.mpiexec) + ["-n", str(ranks), a.diffops, "--seed", str(seed), "--steps", str(a.steps)]
    p = subprocess.run(cmd, cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return "exit %d\n%s" % (p.returncode, p.stderr[-2000:])
    return p.stdout


def first_difference(base, other):
    b, o = base.splitlines(), other.splitlines()
    for i in range(max(len(b), len(o))):
        x = b[i] if i < len(b) else "<end>"
        y = o[i] if i < len(o) else "<end>"
        if x != y:
            return "line %d:\n  without: %s\n  with:    %s" % (i + 1, x, y)
    return None


seeds = os.environ.get("DIFFOPS_SEEDS", a.seeds)
runs = differ = hits = reads = 0
top = a.keep or tempfile.mkdtemp(prefix="diffops.")
for item in filter(None, seeds.split(",")):
    seed, _, ranks = item.partition(":")
    seed = int(seed)
    ranks = int(ranks) if ranks else 2 + seed % 3
    d = os.path.join(top, "seed%d" % seed)
    os.makedirs(d, exist_ok=True)
    base = run(d, ranks, seed)
    if base.startswith("exit"):
        print("seed %d: the run without the library failed: %s" % (seed, base))
        differ += 1
        continue
    block, cache = SETTINGS[seed % len(SETTINGS)]
    report = os.path.join(d, "report.txt")
    common = {"SIO_PREFETCH_BLOCK": block, "SIO_PREFETCH_CACHE_SIZE": cache, "SIO_PREFETCH_REPORT": report}
    modes = [("online", {"LD_PRELOAD": a.prefetch}, None)]
    if a.trace and a.signature:
        trace = os.path.join(d, "trace.json")
        modes.insert(0, ("traced", {"LD_PRELOAD": a.trace, "SIO_TRACE_FILE": trace}, None))
        modes.append(("signature", {"LD_PRELOAD": a.prefetch}, trace))
    for mode, env, trace in modes:
        if trace:
            sig = os.path.join(d, "sig.json")
            with open(sig, "w") as f:
                subprocess.run([a.signature, "--format", "json", trace], stdout=f, check=True)
            env = dict(env, SIO_PREFETCH_SIGNATURES=sig)
        if mode != "traced":
            env = dict(common, **env)
        out = run(d, ranks, seed, env)
        runs += 1
        diff = first_difference(base, out)
        if diff:
            differ += 1
            print("seed %d ranks %d %s: DIFFERS at %s" % (seed, ranks, mode, diff))
        else:
            print("seed %d ranks %d %s: same (%d lines)" % (seed, ranks, mode, len(base.splitlines())))
    if os.path.exists(report):
        for line in open(report):
            m = re.search(r" reads (\d+) hits (\d+) ", line)
            if m:
                reads += int(m.group(1))
                hits += int(m.group(2))
        os.remove(report)
print("diffops: %d runs, %d differ, %d of %d reads served" % (runs, differ, hits, reads))
sys.exit(1 if differ or hits == 0 else 0)
