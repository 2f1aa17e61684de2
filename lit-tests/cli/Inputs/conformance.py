"""The command-line convention of docs/cli.md, checked on every program in
the tool directory (build/bin holds the tools only):

  --help, -h     usage on stdout (sio's own options first), exit 0
  --version      "TOOL VERSION" (and maybe more) as the first line of
                 stdout, exit 0
  --opt=value    the same as --opt value
  errors         exit 2 and a line "TOOL: error: ..." on stderr naming the
                 file: unknown option, missing file, a directory, a
                 malformed file

A program in the directory without an entry in TOOLS fails the test: a new
tool states how it is called here.

usage: conformance.py --bin DIR --inputs DIR --version V --work DIR
Prints "ok: TOOL CHECK" per check and "FAIL: ..." for each failure; exits 1
on any failure."""
import argparse
import os
import shutil
import subprocess
import sys

EXIT_OK, EXIT_ERROR = 0, 2

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--inputs", required=True)
ap.add_argument("--version", required=True)
ap.add_argument("--work", required=True)
args = ap.parse_args()

shutil.rmtree(args.work, ignore_errors=True)
os.makedirs(args.work)
os.chdir(args.work)
trace = os.path.join(args.inputs, "strong.json")
changed = os.path.join(args.inputs, "strong-changed.json")
with open("bad.json", "w") as f:
    f.write('{"format": "sio-trace", not json')
with open("bad.c", "w") as f:
    f.write("int main( {\n")
with open("ok.c", "w") as f:
    f.write("#include <stdio.h>\nint main(void) { FILE *f = fopen(\"x\", \"w\"); fclose(f); return 0; }\n")
os.makedirs("adir", exist_ok=True)
os.makedirs("root", exist_ok=True)

# Per tool: how a file is given (None: the tool reads none), the malformed
# input, and an option with a value in both spellings (None: it has none),
# with the file whose content must be the same after each (or None: stdout).
TOOLS = {
    "sio-trace": dict(file=lambda f: ["dump", f], bad="bad.json",
                      opt=(["diff", "--max=1", trace, changed], ["diff", "--max", "1", trace, changed], None, 1)),
    "sio-extrap": dict(file=lambda f: [f, "-o", "out.json"], bad="bad.json",
                       opt=([trace, "--path-map=/scratch=/data", "--output=x.json"],
                            [trace, "--path-map", "/scratch=/data", "--output", "x.json"], "x.json", 0)),
    "sio-signature": dict(file=lambda f: [f], bad="bad.json",
                          opt=(["--rank=1", trace], ["--rank", "1", trace], None, 0)),
    "sio-replay-gen": dict(file=lambda f: [f, "-o", "r.cpp"], bad="bad.json",
                           opt=([trace, "--output=r.cpp"], [trace, "--output", "r.cpp"], "r.cpp", 0)),
    "sio-instrument": dict(file=lambda f: [f, "-o", "out", "--"], bad="bad.c",
                           opt=(["ok.c", "--root=.", "-o=out", "--"], ["ok.c", "--root", ".", "-o", "out", "--"],
                                "out/ok.c", 0)),
    "sio-part-merge": dict(file=lambda f: [f, "merged.nc"], bad="bad.json", opt=None),
    "sio-runtime-settings": dict(file=None, bad=None,
                                 opt=(["--format=markdown"], ["--format", "markdown"], None, 0)),
    "sio-cc": dict(file=None, bad=None, opt=None, compiler=True),
    "sio-cxx": dict(file=None, bad=None, opt=None, compiler=True),
    "sio-fc": dict(file=None, bad=None, opt=None, compiler=True),
}

failures = 0


def run(tool, argv):
    p = subprocess.run([os.path.join(args.bin, tool)] + argv, capture_output=True, text=True,
                       errors="replace", timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(tool, what, ok, detail=""):
    global failures
    if ok:
        print(f"ok: {tool} {what}")
    else:
        failures += 1
        print(f"FAIL: {tool} {what}: {detail}")


def error_line(tool, stderr, *needles):
    """A line of stderr that starts with 'TOOL: error:' (or a compiler
    diagnostic 'FILE:LINE:COL: error:') and contains every needle."""
    for line in stderr.splitlines():
        if (line.startswith(f"{tool}: error: ") or ": error: " in line) and all(n in line for n in needles):
            return True
    return False


def expect_error(tool, what, argv, *needles):
    rc, out, err = run(tool, argv)
    check(tool, what, rc == EXIT_ERROR and error_line(tool, err, *needles),
          f"exit {rc} (want {EXIT_ERROR}), stderr: {err[:600]!r}")


tools = sorted(os.listdir(args.bin))
for tool in tools:
    spec = TOOLS.get(tool)
    if spec is None:
        check(tool, "is known", False, "a program in the tool directory with no entry in conformance.py")
        continue
    rc, out, err = run(tool, ["--help"])
    first = out.splitlines()[0] if out else ""
    check(tool, "--help", rc == EXIT_OK and first.lower().startswith("usage: " + tool) and "--version" in out,
          f"exit {rc}, first line {first!r}")
    if spec.get("compiler"):  # -h is not help to a compiler
        check(tool, "--help names the compiler's help", "--help-compiler" in out, out[:300])
    else:
        rc2, out2, _ = run(tool, ["-h"])
        check(tool, "-h", rc2 == EXIT_OK and out2 == out, f"exit {rc2}")
    rc, out, err = run(tool, ["--version"])
    first = out.splitlines()[0] if out else ""
    want = f"{tool} {args.version}"
    check(tool, "--version", rc == EXIT_OK and (first == want or first.startswith(want + " ")),
          f"exit {rc}, first line {first!r}")
    if spec.get("compiler"):
        continue  # every other argument is the compiler's, with its exit status
    expect_error(tool, "unknown option", ["--no-such-option"], "--no-such-option")
    if spec["file"]:
        missing = os.path.join(args.work, "no-such-file.json")
        expect_error(tool, "missing file", spec["file"](missing), missing)
        expect_error(tool, "directory", spec["file"]("adir"), "adir", "directory")
        expect_error(tool, "malformed file", spec["file"](spec["bad"]), spec["bad"])
    if spec["opt"]:
        eq, sp, produced, status = spec["opt"]
        results = []
        for argv in (eq, sp):
            if produced and os.path.exists(produced):
                os.remove(produced)
            rc, out, err = run(tool, argv)
            content = open(produced).read() if produced and os.path.exists(produced) else None
            results.append((rc, out, content, err))
        same = results[0][:3] == results[1][:3]
        check(tool, "--opt=value", same and results[0][0] == status and (produced is None or results[0][2]),
              f"exit {results[0][0]} / {results[1][0]} (want {status}), stderr {results[0][3][:300]!r}")

print(f"{len(tools)} tools, {failures} failures")
sys.exit(1 if failures else 0)
