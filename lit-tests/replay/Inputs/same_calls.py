"""Two traces hold the same calls: every rank makes the same calls with the
same parameters in the same order, however each trace compressed them
(loops, choice runs). Compares the calls `sio-trace export --format chrome`
expands, in its order, without their timing (and whether it is the rank's
own), sequence numbers, sites and file names (a replay runs under its own
root).
  same_calls.py SIO_TRACE A.json B.json"""
import json
import subprocess
import sys
import tempfile

sio_trace, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
IGNORED = {"seq", "parent_seq", "site", "path", "file", "timing", "timing_source"}


def calls(trace):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sio_trace, "export", "--format", "chrome", trace, "-o", out.name], check=True,
                       capture_output=True)
        events = json.load(open(out.name))
    events = events["traceEvents"] if isinstance(events, dict) else events
    per_rank = {}
    for e in events:
        if e.get("ph") != "X":
            continue
        args = {k: v for k, v in e.get("args", {}).items() if k not in IGNORED}
        per_rank.setdefault(e["tid"], []).append((e["name"], sorted(args.items())))
    return per_rank


ca, cb = calls(a), calls(b)
if ca.keys() != cb.keys():
    sys.exit(f"ranks differ: {sorted(ca)} vs {sorted(cb)}")
for rank in sorted(ca):
    if len(ca[rank]) != len(cb[rank]):
        sys.exit(f"rank {rank}: {len(ca[rank])} calls vs {len(cb[rank])}")
    for k, (x, y) in enumerate(zip(ca[rank], cb[rank])):
        if x != y:
            sys.exit(f"rank {rank}, call {k}: {x} vs {y}")
print(f"same calls: {sum(len(c) for c in ca.values())} on {len(ca)} ranks")
