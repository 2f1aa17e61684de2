"""Mutated traces through every offline tool, then the replays of some.

usage: fuzz.py --bin BIN_DIR --work DIR [--count N] [--seed S] [--replays K]
               [--mpicxx CXX] [--mpiexec MPIEXEC] [--jobs J] SEED_TRACE...

Each mutated trace (1 to 3 mutations of a seed trace: numbers set to
0/-1/huge/2^63, keys dropped or duplicated, strings with control characters
or megabytes long, body nodes duplicated/removed/swapped, nesting changed)
goes through sio-trace dump/stats/diff/report/export (chrome, otf2),
sio-signature, sio-replay-gen and, for the ior-scale seeds, sio-extrap with
the three other rank counts; every run under an address-space limit and a
time limit. A run fails the test when it is killed by a signal (crash),
uses more than 20 s of CPU or takes more than 180 s of wall time (hang), runs out of memory (the limit, or a tool's
"out of memory" refusal: over budget), exits with a status its tool does not
document, or refuses without a `<tool>: error:` line; the stderr of every
run and the stdout of the text commands must hold no raw control character.
Then the replays generated from K accepted traces are compiled and run at
min(nranks, 4) ranks: exit 0 or a documented refusal (2 failed call,
3 rank count refused, 4 unexpected success), never a signal.

Prints one summary line per tool and `fuzz: N traces, M runs, F failures`;
exits 1 when anything failed (the first failures are listed with the
mutations that made the trace, which stays in DIR)."""
import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

MEM_MIB = 1024
# The budget is CPU time (RLIMIT_CPU): the machines are shared, and a run
# that waits for a CPU is not over budget. A run still going after
# WALL_LIMIT seconds is a hang (it waits on something, using no CPU).
TIME_LIMIT = 20.0
WALL_LIMIT = 180.0
MAX_REPLAY_CALLS = 100_000
HUGE = [0, -1, 1, 2**31 - 1, 2**31, 2**32, 10**12, 2**62, 2**63 - 1, 2**63, -(2**63), 2**64 - 1, 10**30]
NASTY = ["\x1b[31mRED\x1b[0m", "a\nb", "\x07\x08\x7f", "\u009b2J", "\x00nul", "%s%n", "\"quote\\", "\udcff".encode(
    "utf-8", "surrogatepass").decode("utf-8", "replace"), "x" * 300]
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def walk(node, path=()):
    """Every (container, key) pair in the JSON document."""
    if isinstance(node, dict):
        for k in list(node):
            yield node, k
            yield from walk(node[k])
    elif isinstance(node, list):
        for i in range(len(node)):
            yield node, i
            yield from walk(node[i])


def bodies(node):
    """Every body list (top level and loop bodies)."""
    if isinstance(node, dict):
        if isinstance(node.get("body"), list):
            yield node["body"]
        for v in node.values():
            yield from bodies(v)
    elif isinstance(node, list):
        for v in node:
            yield from bodies(v)


class Mutator:
    def __init__(self, rng):
        self.rng = rng
        self.dup = None  # (object, key) to write twice

    def number(self, t):
        spots = [(c, k) for c, k in walk(t) if isinstance(c[k], int) and not isinstance(c[k], bool)]
        if not spots:
            return None
        c, k = self.rng.choice(spots)
        c[k] = self.rng.choice(HUGE)
        return f"number {k}={c[k]}"

    def drop(self, t):
        spots = [(c, k) for c, k in walk(t) if isinstance(c, dict)]
        c, k = self.rng.choice(spots)
        del c[k]
        return f"drop {k}"

    def duplicate_key(self, t):
        spots = [(c, k) for c, k in walk(t) if isinstance(c, dict)]
        c, k = self.rng.choice(spots)
        self.dup = (c, k)
        return f"duplicate key {k}"

    def string(self, t):
        spots = [(c, k) for c, k in walk(t) if isinstance(c[k], str)]
        if not spots:
            return None
        c, k = self.rng.choice(spots)
        nasty = self.rng.choice(NASTY)
        c[k] = self.rng.choice([nasty, c[k] + nasty, nasty + c[k]])
        return f"string {k}"

    def formula(self, t):
        spots = [(c, k) for c, k in walk(t) if isinstance(c[k], (int, str)) and k in (
            "iterations", "offset", "count", "fh", "fd", "stream", "size", "nmemb", "result", "whence")]
        if not spots:
            return None
        c, k = self.rng.choice(spots)
        c[k] = self.rng.choice(["rank", "nranks*1000000000000", "i0", "(rank+1)%nranks", "rank*" + str(2**62),
                                "1/0", "-rank", "1000000000000"])
        return f"formula {k}={c[k]}"

    def node(self, t):
        bs = [b for b in bodies(t) if b]
        if not bs:
            return None
        b = self.rng.choice(bs)
        i = self.rng.randrange(len(b))
        op = self.rng.choice(["dup", "remove", "swap", "wrap", "unwrap", "move"])
        if op == "dup":
            b.insert(i, json.loads(json.dumps(b[i])))
        elif op == "remove":
            del b[i]
        elif op == "swap" and len(b) > 1:
            j = self.rng.randrange(len(b))
            b[i], b[j] = b[j], b[i]
        elif op == "wrap" and isinstance(b[i], dict):
            b[i] = {"loop": 0, "ranks": b[i].get("ranks", [{"start": 0, "count": 1}]),
                    "iterations": self.rng.choice([0, 1, 2, 10**9]), "body": [b[i]]}
        elif op == "unwrap" and isinstance(b[i], dict) and isinstance(b[i].get("body"), list):
            b[i:i + 1] = b[i]["body"]
        elif op == "move":
            other = self.rng.choice(bs)
            other.insert(self.rng.randrange(len(other) + 1), b.pop(i))
        return f"node {op}"

    def ranks(self, t):
        if self.rng.random() < 0.5:
            t["nranks"] = self.rng.choice([1, 2, 3, 2**31 - 1, 2**31, 0, -1])
            return f"nranks={t['nranks']}"
        spots = [(c, k) for c, k in walk(t) if k == "ranks" and isinstance(c, dict)]
        if not spots:
            return None
        c, k = self.rng.choice(spots)
        c[k] = self.rng.choice([[{"start": 0, "count": 2**31 - 1}], [{"start": 1}], [],
                                [{"start": 0, "stride": 0, "count": 5}], [{"start": 0, "count": 1}]])
        return "ranks"

    def mutate(self, t):
        kinds = [self.number, self.number, self.drop, self.duplicate_key, self.string, self.formula, self.node,
                 self.node, self.ranks]
        done = []
        for _ in range(self.rng.choice([1, 1, 2, 3])):
            what = self.rng.choice(kinds)(t)
            if what:
                done.append(what)
        return done

    def dumps(self, t):
        if self.dup:
            c, k = self.dup
            if k in c:
                c["\x00sio-dup\x00"] = c[k]
        text = json.dumps(t, indent=1, ensure_ascii=self.rng.random() < 0.5)
        return text.replace('"\\u0000sio-dup\\u0000"', json.dumps(self.dup[0:2][1]) if self.dup else "")


def limits(cpu_seconds):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (MEM_MIB << 20, MEM_MIB << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_seconds), int(cpu_seconds) + 1))
    return apply


def run(argv, cwd, ok_status, tool, text_stdout=False, timeout=WALL_LIMIT, cpu=TIME_LIMIT):
    """Runs one command; returns a failure description or None."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, preexec_fn=limits(cpu), timeout=timeout, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        return f"hang (over {timeout:g} s)", None
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return f"over budget (more than {cpu:g} s of CPU)", p.returncode
    if p.returncode < 0:
        return f"crash (signal {-p.returncode}): {err[-300:]!r}", p.returncode
    if p.returncode not in ok_status:
        return f"exit status {p.returncode} (documented: {sorted(ok_status)}): {err[-300:]!r}", p.returncode
    if "out of memory" in err or "bad_alloc" in err:
        return f"over budget: {err[-300:]!r}", p.returncode
    if p.returncode not in (0, 1):
        if not err.startswith(tool + ": error:"):
            return f"refusal without '{tool}: error:': {err[:300]!r}", p.returncode
    if CONTROL.search(err):
        return f"raw control character in stderr: {err[:300]!r}", p.returncode
    if text_stdout and CONTROL.search(p.stdout.decode("utf-8", "replace").replace("\t", " ")):
        return "raw control character in stdout", p.returncode
    return None, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replays", type=int, default=4)
    ap.add_argument("--mpicxx", default="mpicxx.mpich")
    ap.add_argument("--mpiexec", default="mpiexec.mpich")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("seeds", nargs="+")
    a = ap.parse_args()
    a.bin, a.work = os.path.abspath(a.bin), os.path.abspath(a.work)
    a.seeds = [os.path.abspath(s) for s in a.seeds]

    b = lambda name: os.path.join(a.bin, name)
    otf2 = "not available" not in subprocess.run([b("sio-trace"), "export", "--help"], capture_output=True,
                                                 text=True).stdout
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    seeds = [(path, json.load(open(path))) for path in a.seeds]
    scale = {}  # ior-scale family: rank count -> path
    for path, t in seeds:
        if re.search(r"ior-scale/s\d+\.json$", path):
            scale[t["nranks"]] = path
    rng = random.Random(a.seed)

    jobs = []  # (index, trace path, description, seed path, nranks)
    for i in range(a.count):
        path, seed = rng.choice(seeds)
        t = json.loads(json.dumps(seed))
        m = Mutator(rng)
        what = m.mutate(t)
        out = os.path.join(a.work, f"t{i:04d}.json")
        with open(out, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(m.dumps(t))
        jobs.append((i, out, f"{os.path.basename(path)}: " + "; ".join(what), path,
                     t.get("nranks") if isinstance(t.get("nranks"), int) else 0))

    def commands(i, trace, seed_path):
        d = os.path.join(a.work, f"o{i:04d}")
        os.makedirs(d, exist_ok=True)
        st = b("sio-trace")
        cmds = [
            ("dump", [st, "dump", "--timing", trace], {0, 2}, "sio-trace", True),
            ("stats", [st, "stats", trace], {0, 2}, "sio-trace", True),
            ("diff", [st, "diff", trace, seed_path], {0, 1, 2}, "sio-trace", True),
            ("report", [st, "report", trace, "-o", os.path.join(d, "r.html")], {0, 2}, "sio-trace", False),
            ("chrome", [st, "export", "--format", "chrome", trace, "-o", os.path.join(d, "c.json")], {0, 2},
             "sio-trace", False),
            ("signature", [b("sio-signature"), trace], {0, 2}, "sio-signature", True),
            ("replay-gen", [b("sio-replay-gen"), trace, "-o", os.path.join(d, "replay.cpp")], {0, 2},
             "sio-replay-gen", False),
        ]
        if otf2:
            cmds.append(("otf2", [st, "export", "--format", "otf2", trace, "-o", os.path.join(d, "otf2")], {0, 2},
                         "sio-trace", False))
        if seed_path in scale.values():
            others = [p for n, p in sorted(scale.items()) if p != seed_path]
            cmds.append(("extrap", [b("sio-extrap"), trace, *others, "--ranks", "32", "-o",
                                    os.path.join(d, "x.json")], {0, 2}, "sio-extrap", False))
        return d, cmds

    failures = []
    per_tool = {}
    accepted = []  # (index, out dir, nranks, description) with a replay.cpp

    def one(job):
        i, trace, what, seed_path, nranks = job
        d, cmds = commands(i, trace, seed_path)
        results = []
        for name, argv, ok, tool, text in cmds:
            fail, status = run(argv, d, ok, tool, text)
            results.append((name, fail, status))
        return job, d, results

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for job, d, results in pool.map(one, jobs):
            i, trace, what, _, nranks = job
            for name, fail, status in results:
                s = per_tool.setdefault(name, [0, 0, 0])
                s[0 if status == 0 else 1] += 1
                if fail:
                    s[2] += 1
                    failures.append(f"{os.path.basename(trace)} [{what}] {name}: {fail}")
                if name == "replay-gen" and status == 0:
                    accepted.append((i, d, nranks, what))

    runs = sum(s[0] + s[1] for s in per_tool.values())
    for name, (ok, refused, failed) in sorted(per_tool.items()):
        print(f"{name}: {ok} accepted, {refused} refused, {failed} failed")

    # Replays of accepted mutated traces: a handful, spread over the list,
    # half of them with changed structure (nodes duplicated, moved, wrapped:
    # what made replays close a stream twice). Only traces of at most
    # MAX_REPLAY_CALLS calls: a replay performs every call of its trace, and
    # a trace of 2^32 writes is a long run, not a hang.
    def small(x):
        p = subprocess.run([b("sio-trace"), "stats", os.path.join(a.work, f"t{x[0]:04d}.json")],
                           capture_output=True, text=True, errors="replace")
        m = re.search(r"^calls: (\d+)", p.stdout, re.M)
        return m is not None and int(m.group(1)) <= MAX_REPLAY_CALLS

    mutated = [x for x in accepted if x[2] and x[2] >= 1]
    structural = [x for x in mutated if "node" in x[3]]
    rest = [x for x in mutated if "node" not in x[3]]
    picks = []
    for group, want in ((structural, a.replays // 2), (rest, a.replays)):
        step = max(1, len(group) // max(1, want))
        for x in group[::step] + group:
            if len(picks) >= want:
                break
            if x not in picks and small(x):
                picks.append(x)
    for i, d, nranks, what in picks:
        exe = os.path.join(d, "replay")
        fail, status = run([a.mpicxx, "-O0", "-w", "replay.cpp", "-o", exe], d, {0}, a.mpicxx, cpu=120)
        if fail:
            failures.append(f"t{i:04d}.json [{what}] replay compile: {fail}")
            continue
        n = str(min(nranks, 4))
        rd = os.path.join(d, "run")
        os.makedirs(rd, exist_ok=True)
        try:
            p = subprocess.run([a.mpiexec, "-n", n, exe], cwd=rd, timeout=WALL_LIMIT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            status = p.returncode
            if status < 0 or status >= 128 or status not in (0, 2, 3, 4):
                failures.append(f"t{i:04d}.json [{what}] replay at {n} ranks: exit status {status}: "
                                f"{p.stderr.decode('utf-8', 'replace')[-400:]!r}")
            print(f"replay t{i:04d} at {n} ranks: exit {status}")
        except subprocess.TimeoutExpired:
            failures.append(f"t{i:04d}.json [{what}] replay at {n} ranks: hang (over {WALL_LIMIT:g} s)")
        runs += 2

    print(f"fuzz: {a.count} traces, {runs} runs, {len(failures)} failures")
    for f in failures[:20]:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
