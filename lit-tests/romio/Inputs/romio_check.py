#!/usr/bin/env python3
"""Runs one of ROMIO's tests through sio's four steps (lit-tests/romio/README.md).

  romio_check.py --src DIR --work DIR --bin DIR --lib DIR --mpiexec M --mpicxx C
                 --name NAME --np N --expect STEP [--fortran] -- ARGS...

Step 1: the test built with sio-cc (sio-fc) and the same test built without
sio, untraced and with libsiotrace-rt preloaded: the same exit status and the
same output (lines compared as multisets, since ranks interleave; numbers
with a fraction masked, they are timings). Step 2: both traces pass
`sio-trace stats`. Step 3: the replay generated from the sio-cc trace
compiles with plain mpicxx and runs (exit 0). Step 4: the replay built with
sio-cxx traces back to the application's trace (`sio-trace diff
--ignore-sites`).

Prints what each step did; exits 0 when the test reaches exactly the step
the manifest expects (a test that gets further fails too, so that the
manifest and the README's counts stay true).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import time

TIMEOUT = 600  # generous: the CI machine may be shared


def masked(text):
    # Timings and bandwidths (perf, fperf) are the only fractional numbers
    # the tests print.
    lines = [re.sub(r"[0-9]+\.[0-9]+(E[-+]?[0-9]+)?", "<num>", l) for l in text.splitlines()]
    return collections.Counter(lines)


def run(cmd, cwd, env=None, log=None):
    start = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", timeout=TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
    print("$ (cd %s && %s)  # %.1f s, exit %s" % (cwd, " ".join(cmd), time.time() - start, rc))
    return rc, out, err


def show(label, text, limit=40):
    lines = text.splitlines()
    if lines:
        print("--- %s (%d lines%s)" % (label, len(lines), ", first %d" % limit if len(lines) > limit else ""))
        print("\n".join(lines[:limit]))


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def main():
    ap = argparse.ArgumentParser()
    for a in ("--src", "--work", "--bin", "--lib", "--mpiexec", "--mpicxx", "--name"):
        ap.add_argument(a, required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--expect", required=True, help="STEP, or LOW-HIGH for a test whose I/O is not deterministic")
    ap.add_argument("--fortran", action="store_true")
    ap.add_argument("args", nargs="*")
    o = ap.parse_args()

    work = fresh(o.work)
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("SIO_TRACE_FILE", None)
    env["SIO_QUIET"] = "1"
    rt = os.path.join(o.lib, "libsiotrace-rt.so")
    sio_trace = os.path.join(o.bin, "sio-trace")
    args = [a.replace("%src", o.src) for a in o.args]
    # A test given a file of the sources by its absolute path (syshints'
    # hints file) is replayed against that file, as a user replays with the
    # same inputs: its name in the replay's trace is then the application's.
    replay_args = ["--fast-forward"] + (["--path-map", o.src + "=" + o.src] if args != o.args else [])
    mpiexec = [o.mpiexec, "-n", str(o.np)]

    low, _, high = o.expect.partition("-")
    low, high = int(low), int(high or low)

    def reached(step, why=""):
        print("romio %s: reached step %d of 4%s" % (o.name, step, (": " + why) if why else ""))
        if not low <= step <= high:
            print("error: the manifest expects step %s" % o.expect)
            return 1
        return 0

    # Build: the same compiler for the traced and the untraced program.
    wrapper = os.path.join(o.bin, "sio-fc" if o.fortran else "sio-cc")
    src = os.path.join(o.src, o.name + (".f" if o.fortran else ".c"))
    flags = ["-O1", "-w"]
    if not o.fortran:
        flags.append("-Wno-deprecated-declarations")
    for exe, extra in (("plain", ["--sio-no-runtime", "--sio-no-plugin"]), ("traced", [])):
        rc, out, err = run([wrapper] + extra + flags + [src, "-o", os.path.join(work, exe)], work)
        if rc != 0:
            show("compiler", out + err)
            return reached(0, "the test does not compile with %s" % os.path.basename(wrapper))

    # Step 1.
    runs = {}
    for label, exe, extra_env in (("untraced", "plain", {}),
                                   ("sio-cc", "traced", {"SIO_TRACE_FILE": os.path.join(work, "app.json")}),
                                   ("preloaded", "plain", {"LD_PRELOAD": rt,
                                                           "SIO_TRACE_FILE": os.path.join(work, "preload.json")})):
        e = dict(env, **extra_env)
        runs[label] = run(mpiexec + [os.path.join(work, exe)] + args, fresh(os.path.join(work, "run-" + label)), e)
    base = runs["untraced"]
    show("untraced stdout", base[1])
    show("untraced stderr", base[2])
    if base[0] != 0:
        return reached(0, "the untraced test fails (exit %s)" % base[0])
    for label in ("sio-cc", "preloaded"):
        rc, out, err = runs[label]
        if rc != base[0] or masked(out) != masked(base[1]) or masked(err) != masked(base[2]):
            show(label + " stdout", out)
            show(label + " stderr", err)
            return reached(0, "%s run differs from the untraced one (exit %s vs %s, or output)" % (label, rc, base[0]))

    # Step 2.
    for trace in ("app.json", "preload.json"):
        rc, out, err = run([sio_trace, "stats", os.path.join(work, trace)], work)
        if rc != 0:
            show("stats", out + err)
            return reached(1, "sio-trace stats refuses %s" % trace)

    # Step 3.
    replay_cpp = os.path.join(work, "replay.cpp")
    rc, out, err = run([os.path.join(o.bin, "sio-replay-gen"), os.path.join(work, "app.json"), "-o", replay_cpp], work)
    if rc != 0:
        show("sio-replay-gen", out + err)
        return reached(2, "sio-replay-gen refuses the trace")
    rc, out, err = run([o.mpicxx, "-O0", replay_cpp, "-o", os.path.join(work, "replay")], work)
    if rc != 0:
        show("mpicxx", out + err, 60)
        return reached(2, "the replay does not compile")
    rc, out, err = run(mpiexec + [os.path.join(work, "replay")] + replay_args, fresh(os.path.join(work, "run-replay")), env)
    if rc != 0:
        show("replay", out + err)
        return reached(2, "the replay fails (exit %s)" % rc)

    # Step 4.
    rc, out, err = run([os.path.join(o.bin, "sio-cxx"), "-O0", replay_cpp, "-o", os.path.join(work, "replay-traced")], work)
    if rc != 0:
        show("sio-cxx", out + err, 60)
        return reached(3, "the replay does not compile with sio-cxx")
    rc, out, err = run(mpiexec + [os.path.join(work, "replay-traced")] + replay_args,
                       fresh(os.path.join(work, "run-replay-traced")),
                       dict(env, SIO_TRACE_FILE=os.path.join(work, "replay.json")))
    if rc != 0:
        show("traced replay", out + err)
        return reached(3, "the traced replay fails (exit %s)" % rc)
    rc, out, err = run([sio_trace, "diff", "--ignore-sites", os.path.join(work, "app.json"),
                        os.path.join(work, "replay.json")], work)
    if rc != 0:
        show("diff", out + err, 60)
        return reached(3, "the replay's trace differs")
    return reached(4)


if __name__ == "__main__":
    sys.exit(main())
