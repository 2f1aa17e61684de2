"""lit format of lit-tests/romio: one test per line of tests.txt (a module
of its own: lit's workers get the format by pickling, which a class defined
in a lit.local.cfg does not survive)."""
import os
import shlex
import sys

import lit.formats
import lit.Test
import lit.util

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _manifest():
    """name -> (ranks, expected step or None when not run, args, reason)."""
    tests = {}
    with open(os.path.join(_here, "tests.txt")) as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            spec, _, reason = line.partition("|")
            words = shlex.split(spec)
            if len(words) < 3:
                raise ValueError("tests.txt:%d: want NAME RANKS STEP ARGS... [| REASON]" % number)
            name, ranks, step = words[0], int(words[1]), words[2]
            tests[name] = (ranks, None if step == "skip" else step, words[3:], reason.strip())
    return tests


class RomioFormat(lit.formats.TestFormat):
    def __init__(self):
        self.tests = _manifest()

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        if os.path.abspath(testSuite.getSourcePath(path_in_suite)) != _here:
            return
        for name in sorted(self.tests):
            yield lit.Test.Test(testSuite, path_in_suite + (name,), localConfig)

    def execute(self, test, litConfig):
        cfg = test.config
        name = test.path_in_suite[-1]
        ranks, step, args, reason = self.tests[name]
        src = getattr(cfg, "romio_src", "")
        fortran = not os.path.exists(os.path.join(src, name + ".c"))
        if not src or not os.path.exists(os.path.join(src, ".sio-romio-stamp")):
            return lit.Test.Result(lit.Test.UNSUPPORTED, "ROMIO's tests were not fetched (no deb-src entry for mpich?)")
        if step is None:
            return lit.Test.Result(lit.Test.UNSUPPORTED, "not run: " + reason)
        for tool in ("sio-trace", "sio-replay-gen", "sio-cxx", "sio-fc" if fortran else "sio-cc"):
            if not os.path.exists(os.path.join(cfg.sio_bin_dir, tool)):
                return lit.Test.Result(lit.Test.UNSUPPORTED, tool + " is not built")
        cmd = [sys.executable, os.path.join(_here, "Inputs", "romio_check.py"),
               "--src", src, "--work", test.getExecPath() + ".d", "--bin", cfg.sio_bin_dir,
               "--lib", cfg.sio_lib_dir, "--mpiexec", cfg.mpiexec, "--mpicxx", cfg.mpicxx,
               "--name", name, "--np", str(ranks), "--expect", step]
        if fortran:
            cmd.append("--fortran")
        cmd += ["--"] + args
        out, err, code = lit.util.executeCommand(cmd, env=cfg.environment)
        output = " ".join(shlex.quote(c) for c in cmd) + "\n" + out + err
        if reason:
            output += "listed: " + reason + "\n"
        return lit.Test.Result(lit.Test.PASS if code == 0 else lit.Test.FAIL, output)

