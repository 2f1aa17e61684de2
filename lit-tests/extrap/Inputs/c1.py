"""The paper's check C1 for one program: trace it at the input rank counts,
extrapolate to each target, trace it for real at the target, and compare the
two traces structurally (timing ignored) with sio-trace diff.

usage: c1.py --exe PROGRAM --bin BUILD_BIN --mpiexec MPIEXEC --work DIR
             --inputs 4,8,12,16 --targets 20,24,32 [--replay] [--replay-at N] [--max-growth F]
Prints one line per target, "C1 <N>: equal" or the differences, and exits 1
if any target differs or a step fails. With --replay, the extrapolated trace
of the last target is also turned into a replay program (sio-extrap
--emit-replay), compiled with sio-cxx and run at that size, and its trace is
compared with the extrapolated one ("replay <N>: equal"); --replay-at N
replays at target N instead (a 64-rank replay costs as much as the 64-rank
trace). With --max-growth F,
the real trace at the last target must be at most F times the size of the
trace at the first input ("size <N>/<n>: ok"). The sizes compared are of the
trace's structure, without timing statistics (lit-tests/Inputs/trace_size.py).
Exits 3 (not 1) when sio-extrap refuses, for tests that expect a refusal.
With --preload LIB the program (built without the runtime) is traced through
LD_PRELOAD=LIB; the replay is still built with sio-cxx."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
import trace_size  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--exe", required=True)
p.add_argument("--bin", required=True)
p.add_argument("--mpiexec", required=True)
p.add_argument("--work", required=True)
p.add_argument("--inputs", default="4,8,12,16")
p.add_argument("--targets", default="32")
p.add_argument("--replay", action="store_true")
p.add_argument("--replay-at", help="the target to replay at (default: the last)")
p.add_argument("--max-growth", type=float)
p.add_argument("--preload", help="trace the program through LD_PRELOAD of this runtime library")
args = p.parse_args()

os.makedirs(args.work, exist_ok=True)


def trace_at(n):
    path = os.path.join(args.work, f"trace.{n}.json")
    rundir = os.path.join(args.work, f"run{n}")
    os.makedirs(rundir, exist_ok=True)
    env = dict(os.environ, SIO_TRACE_FILE=path)
    preload = []
    if args.preload:
        if not os.path.isabs(args.preload) or not os.path.isfile(args.preload):
            sys.exit(f"c1.py: --preload needs the absolute path of an existing library, not {args.preload}")
        preload = ["-genv", "LD_PRELOAD", args.preload]
    subprocess.run([args.mpiexec, *preload, "-n", str(n), args.exe], cwd=rundir, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    if not os.path.isfile(path):
        sys.exit(f"c1.py: {args.exe} at {n} ranks wrote no trace {path} (not linked with the runtime, or"
                 " the preloaded library did not load?)")
    return path


inputs = [trace_at(int(n)) for n in args.inputs.split(",")]
failed = False
for target in args.targets.split(","):
    out = os.path.join(args.work, f"extrap.{target}.json")
    x = subprocess.run([os.path.join(args.bin, "sio-extrap"), *inputs, "--ranks", target, "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if x.returncode != 0:
        print(f"C1 {target}: sio-extrap failed:\n{x.stdout}")
        sys.exit(3)
    real = trace_at(int(target))
    d = subprocess.run([os.path.join(args.bin, "sio-trace"), "diff", out, real],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if d.returncode == 0:
        print(f"C1 {target}: equal")
    else:
        print(f"C1 {target}: differs\n{d.stdout}")
        failed = True
if args.replay and not failed:
    target = args.replay_at or args.targets.split(",")[-1]
    if target not in args.targets.split(","):
        sys.exit(f"c1.py: --replay-at {target} is not one of the targets {args.targets}")
    cpp = os.path.join(args.work, "replay.cpp")
    exe = os.path.join(args.work, "replay")
    subprocess.run([os.path.join(args.bin, "sio-extrap"), *inputs, "--ranks", target, "--emit-replay", cpp],
                   check=True)
    subprocess.run([os.path.join(args.bin, "sio-cxx"), "-O1", cpp, "-o", exe], check=True)
    rundir = os.path.join(args.work, "replay-run")
    os.makedirs(rundir, exist_ok=True)
    traced = os.path.join(args.work, f"replay.{target}.json")
    subprocess.run([args.mpiexec, "-n", target, exe, "--fast-forward"], cwd=rundir, check=True,
                   env=dict(os.environ, SIO_TRACE_FILE=traced), stdout=subprocess.DEVNULL)
    d = subprocess.run([os.path.join(args.bin, "sio-trace"), "diff", "--ignore-sites",
                        os.path.join(args.work, f"extrap.{target}.json"), traced],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(f"replay {target}: " + ("equal" if d.returncode == 0 else "differs\n" + d.stdout))
    failed = d.returncode != 0
if args.max_growth is not None:
    first, last = args.inputs.split(",")[0], args.targets.split(",")[-1]
    ok = trace_size.check(os.path.join(args.work, f"trace.{first}.json"),
                          os.path.join(args.work, f"trace.{last}.json"),
                          args.max_growth, f"{last}/{first}")
    failed = failed or not ok
sys.exit(1 if failed else 0)
