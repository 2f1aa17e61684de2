"""Property test of sio-extrap: every extrapolation is exact or refused.

Draws programs from the parameter space of extrap-gen.c (grid 1/2/3-d from
MPI_Dims_create, dividing the array or not, or given dims: n/4 x 4, 2 x n/2,
n/2 x 2, sqrt(n) x sqrt(n); one rank that does more: the first, the last,
every 2nd or 4th; block,
cyclic, darray, subarray; weak or strong scaling, with or without a
remainder; step counts constant, 96/n or n/4; reads past the end of the
file), traces each at the input rank counts (a square grid at
--square-inputs, a 3-d MPI_Dims_create grid at --grid3-inputs: dims(N,3)[1]
is 2 at 4, 8, 12, 16 and 3 at 24, so without 24 every such program is
refused as ambiguous; a given case's in=4/8/12/16 overrides) and at each target (--target, a comma-separated list; a
square grid at --square-target), extrapolates to each target and compares
with sio-trace diff. Each program at each target is one of:
  exact    sio-extrap exits 0 and its trace equals the real one
  refused  sio-extrap exits 2 with an error (no output)
  wrong    sio-extrap exits 0 and the traces differ, or it crashes
Prints one line per program and target ("exact 32: grid=..."), the counts
per target ("property 32: ...") and in all ("property: ..."); exits 1 on any
wrong. The inputs are traced once a program, the real trace at a target only
when sio-extrap does not refuse it.

usage: extrap-property.py --exe GEN --bin BUILD_BIN --mpiexec MPIEXEC --work DIR
                          [--seed S] [--cases K] [--inputs 4,8,12,16] [--target 32,64]
                          [--square-inputs 4,9,16,25] [--square-target 36,64] [--grid3-inputs 4,8,12,16,24]
                          [--fix KEY=VALUE,...]  (keys every drawn program takes, e.g. grid=3,dims=create)
                          [--case KEY=VALUE,...]...  (given programs, run before the K drawn)
                          [--before-bin OTHER_BUILD_BIN]  (the same traces through another sio-extrap)"""
import argparse
import os
import random
import shutil
import subprocess
import sys

SPACE = {
    "grid": ["1", "2", "3"],
    "dims": ["create", "given", "cols", "square"],
    "decomp": ["block", "cyclic", "darray", "subarray"],
    "scale": ["weak", "strong"],
    "rem": ["0", "1", "2"],
    "loop": ["const", "inv", "lin"],
    "eof": ["0", "1"],
}
# Drawn from their own generator, so that a seed draws the same values of
# the keys above as before they were added: a given grid (n/2) x 2 instead
# of the drawn dims one time in five, and who does more.
MORE = ["none", "first", "last", "kth2", "kth4"]

p = argparse.ArgumentParser()
p.add_argument("--exe", required=True)
p.add_argument("--bin", required=True)
p.add_argument("--mpiexec", required=True)
p.add_argument("--work", required=True)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--cases", type=int, default=6)
p.add_argument("--inputs", default="4,8,12,16")
p.add_argument("--target", default="32")
p.add_argument("--square-inputs", default="4,9,16,25", help="inputs of the programs on a square grid (dims=square)")
p.add_argument("--square-target", default="36")
p.add_argument("--grid3-inputs", default="4,8,12,16,24",
               help="inputs of the programs on a 3-d MPI_Dims_create grid (grid=3,dims=create)")
p.add_argument("--fix", default="", help="KEY=VALUE,... that every drawn program takes (after the draw)")
p.add_argument("--case", action="append", default=[])
p.add_argument("--before-bin", help="also extrapolate with this build's sio-extrap (the same traces) and print its"
               " counts: the change a build makes")
args = p.parse_args()


def draw(rng, rng2):
    case = {k: rng.choice(v) for k, v in SPACE.items()}
    if case["scale"] == "weak":
        case["rem"] = "0"  # a remainder is a strong-scaling notion
    if rng2.random() < 0.2 and case["dims"] != "square":
        case["dims"] = "rows"
    case["more"] = rng2.choice(MORE)
    # 47 ints a dimension (rem=3), from a third generator for the same reason.
    if case["scale"] == "strong" and rng3.random() < 0.25:
        case["rem"] = "3"
    case.update(fixed)
    return case


def trace(exe, case, n, work):
    rundir = os.path.join(work, f"run{n}")
    os.makedirs(rundir, exist_ok=True)
    path = os.path.join(work, f"trace.{n}.json")
    env = dict(os.environ, SIO_TRACE_FILE=path)
    subprocess.run([args.mpiexec, "-n", str(n), exe, *[f"{k}={v}" for k, v in case.items() if k != "in"]], cwd=rundir,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return path


rng, rng2 = random.Random(args.seed), random.Random(args.seed + 1000003)
rng3 = random.Random(args.seed + 2000003)
fixed = dict(kv.split("=", 1) for kv in args.fix.split(",") if kv)
cases = [dict(kv.split("=", 1) for kv in c.split(",")) for c in args.case] + [draw(rng, rng2) for _ in range(args.cases)]
counts = {"exact": 0, "refused": 0, "wrong": 0}
before = {"exact": 0, "refused": 0, "wrong": 0}
per_target = {}  # target -> counts


def classify(bindir, inputs, target, work, case, real):
    """(verdict, detail) of one sio-extrap; real() traces the target once."""
    out = os.path.join(work, f"extrap.{target}.json")
    if os.path.exists(out):
        os.remove(out)
    x = subprocess.run([os.path.join(bindir, "sio-extrap"), *inputs, "--ranks", target, "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if x.returncode == 2 and "error:" in x.stdout and not os.path.exists(out):
        return "refused", x.stdout.strip().splitlines()[0]
    if x.returncode != 0:
        return "wrong", f"sio-extrap exit {x.returncode}: {x.stdout.strip()}"
    d = subprocess.run([os.path.join(bindir, "sio-trace"), "diff", out, real()],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return ("exact", "") if d.returncode == 0 else ("wrong", d.stdout.strip())


for i, case in enumerate(cases):
    work = os.path.join(args.work, f"case{i}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    name = ",".join(f"{k}={v}" for k, v in case.items())
    square = case.get("dims") == "square"
    ns, target = (args.square_inputs, args.square_target) if square else (args.inputs, args.target)
    if case.get("grid") == "3" and case.get("dims") == "create":
        ns = args.grid3_inputs
    if "in" in case:
        ns = case["in"].replace("/", ",")
    inputs = [trace(args.exe, case, int(n), work) for n in ns.split(",")]
    for t in target.split(","):
        traced = []

        def real():
            if not traced:
                traced.append(trace(args.exe, case, int(t), work))
            return traced[0]

        if args.before_bin:
            was, _ = classify(args.before_bin, inputs, t, work, case, real)
            before[was] += 1
        verdict, detail = classify(args.bin, inputs, t, work, case, real)
        counts[verdict] += 1
        per_target.setdefault(t, {"exact": 0, "refused": 0, "wrong": 0})[verdict] += 1
        print(f"{verdict} {t}: {name}" + (f" (before: {was})" if args.before_bin else "") +
              (f"\n  {detail[:2000]}" if detail else ""), flush=True)
if args.before_bin:
    print(f"before: {before['exact']} exact, {before['refused']} refused, {before['wrong']} wrong"
          f" ({args.before_bin})")
for t, c in per_target.items():
    print(f"property {t}: {c['exact']} exact, {c['refused']} refused, {c['wrong']} wrong")
print(f"property: {counts['exact']} exact, {counts['refused']} refused, {counts['wrong']} wrong"
      f" (seed {args.seed}, {len(cases)} programs, inputs {args.inputs}, targets {args.target};"
      f" square grids: inputs {args.square_inputs}, targets {args.square_target};"
      f" 3-d MPI_Dims_create grids: inputs {args.grid3_inputs})")
sys.exit(1 if counts["wrong"] else 0)
