"""Compare the growth of two traces by their structure.

usage: trace_size.py SMALL BIG MAX_RATIO [--label TEXT]

Prints "size <label>: ok" or "size <label>: too large" and exits 1 when the
structure of BIG is more than MAX_RATIO times that of SMALL. The structure is
the trace without its timing statistics ("compute", "duration", and the
per-rank-group "rank_timing", whose groups are ranks of similar speed) and its
run metadata: their digits and histogram bins follow the machine's noise (a
64-rank run on 2 cores takes seconds where 4 ranks take milliseconds), not
the rank count, so a size check on whole files fails at random. Both the
structure and the file sizes are printed."""
import json
import os
import sys

_TIMING_KEYS = ("compute", "duration", "rank_timing", "metadata")


def structure_size(path):
    """Bytes of the trace at PATH, compact, without timing and metadata."""
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in _TIMING_KEYS}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node
    with open(path) as f:
        return len(json.dumps(strip(json.load(f)), separators=(",", ":")))


def check(small_path, big_path, max_ratio, label):
    """Print the verdict line; return True when BIG is within MAX_RATIO."""
    small, big = structure_size(small_path), structure_size(big_path)
    ok = big <= max_ratio * small
    print(f"size {label}: " + ("ok" if ok else "too large") +
          f" (structure {big} vs {small} bytes; files {os.path.getsize(big_path)}"
          f" vs {os.path.getsize(small_path)})")
    return ok


if __name__ == "__main__":
    if len(sys.argv) not in (4, 6) or (len(sys.argv) == 6 and sys.argv[4] != "--label"):
        sys.exit(__doc__)
    label = sys.argv[5] if len(sys.argv) == 6 else f"{sys.argv[2]}/{sys.argv[1]}"
    sys.exit(0 if check(sys.argv[1], sys.argv[2], float(sys.argv[3]), label) else 1)
