#!/usr/bin/env python3
"""SIO_TRACE_FILE naming something other than a regular file (issue "The
traced application never crashes, hangs or loses data", item 12), or a
directory (issue "First contact: ...", item 2).

  check_targets.py DIR RUNTIME APP [ARGS...]

Makes, in DIR/t: a FIFO, a directory, symbolic links (one to the directory) (to a name that does
not exist yet, to a regular file, to the FIFO, a chain of two, a relative
one into a subdirectory), a regular file and, as root, a character device
like /dev/null (mknod c 1 3) and a link to it. Runs APP untraced once, then
traced (LD_PRELOAD=RUNTIME) with SIO_TRACE_FILE set to each. Each traced run
must end as the untraced one (status, stdout, the files it wrote); a target
that is not (and does not lead to) a regular file must be left exactly as
it was (same kind, inode, device number), with a warning on stderr naming
it; a link must stay a link, its target receiving the complete trace; a
directory (named as it is, with a trailing '/', or through a link) receives
the trace under the default name, app.1.sio.json; no temporary may be left
anywhere."""
import json
import os
import shutil
import stat
import subprocess
import sys

top, runtime, app = sys.argv[1], sys.argv[2], sys.argv[3:]
t = os.path.join(top, "t")
shutil.rmtree(top, ignore_errors=True)
os.makedirs(os.path.join(t, "sub"))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(work, env_extra):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, **env_extra)
    p = subprocess.run(app, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    files = {}
    for n in sorted(os.listdir(work)):
        with open(os.path.join(work, n), "rb") as f:
            files[n] = f.read()
    return p.returncode, p.stdout, p.stderr, files


def identity(path):
    st = os.lstat(path)
    return (stat.S_IFMT(st.st_mode), st.st_ino, st.st_rdev)


os.mkfifo(os.path.join(t, "fifo"))
os.mkdir(os.path.join(t, "adir"))
os.symlink("new.json", os.path.join(t, "link-new"))
with open(os.path.join(t, "old.json"), "w") as f:
    f.write("old contents\n")
os.symlink(os.path.join(t, "old.json"), os.path.join(t, "link-old"))
os.symlink("fifo", os.path.join(t, "link-fifo"))
os.symlink("adir", os.path.join(t, "link-dir"))
os.symlink("link-chain2", os.path.join(t, "link-chain"))
os.symlink("sub/deep.json", os.path.join(t, "link-chain2"))
with open(os.path.join(t, "plain.json"), "w") as f:
    f.write("previous trace\n")
root = os.geteuid() == 0
if root:
    os.mknod(os.path.join(t, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.symlink("null", os.path.join(t, "link-null"))

# target -> where the trace must land (None: refused, left as it was)
cases = {
    "fifo": None,
    # A directory is where the trace goes, under its default name (as
    # Darshan's and Recorder's log directories); before, it was refused and
    # the trace lost.
    "adir": "adir/app.1.sio.json",
    "adir/": "adir/app.1.sio.json",
    "link-dir": "adir/app.1.sio.json",
    "link-fifo": None,
    "link-new": "new.json",
    "link-old": "old.json",
    "link-chain": "sub/deep.json",
    "plain.json": "plain.json",
}
if root:
    cases["null"] = None
    cases["link-null"] = None

ref = run(os.path.join(top, "untraced"), {})
for name, lands in cases.items():
    target = os.path.join(t, name)
    before = {n: identity(os.path.join(t, n)) for n in os.listdir(t) if n not in ("sub",)}
    got = run(os.path.join(top, "traced-" + name), {"LD_PRELOAD": runtime, "SIO_TRACE_FILE": target})
    status, out, err, files = got
    if (status, out, files) != (ref[0], ref[1], ref[3]):
        fail("%s: the program did not end as untraced: status %r/%r, stdout %r/%r, files %s/%s" %
             (name, status, ref[0], out, ref[1], sorted(files), sorted(ref[3])))
    if lands is None:
        for n, ident in before.items():
            if identity(os.path.join(t, n)) != ident:
                fail("%s: %s was changed" % (name, n))
        if b"not a regular file; not written" not in err or target.encode() not in err:
            fail("%s: no warning naming it: %r" % (name, err))
        else:
            print("%s: refused, left as it was: %s" % (name, err.decode().strip()))
    else:
        if err != ref[2]:
            fail("%s: stderr %r, untraced %r" % (name, err, ref[2]))
        if name.startswith("link") and not os.path.islink(target.rstrip("/")):
            fail("%s: the link was replaced" % name)
        dest = os.path.join(t, lands)
        if not os.path.isfile(dest) or os.path.islink(dest):
            fail("%s: no regular file %s" % (name, lands))
            continue
        with open(dest) as f:
            try:
                complete = json.load(f).get("complete")
            except ValueError as e:
                complete = "unreadable: %s" % e
        if complete is not True:
            fail("%s: %s holds no complete trace (%r)" % (name, lands, complete))
        else:
            print("%s: trace written to %s" % (name, lands))
left = [os.path.join(r, n) for r, _, ns in os.walk(top) for n in ns if ".tmp." in n]
if left:
    fail("temporaries left: %s" % left)
if failures:
    sys.exit("%d failures" % len(failures))
print("all %d targets as expected%s" % (len(cases), "" if root else " (not root: no device)"))
