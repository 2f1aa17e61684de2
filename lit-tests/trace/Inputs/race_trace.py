#!/usr/bin/env python3
"""A 4-rank trace of the race at ROMIO's MPI_File_close: every rank unlinks
the shared-file-pointer file (inner calls), the WINNERS succeed and the rest
get ENOENT. Usage: race_trace.py WINNERS [ERRNO]; WINNERS is a comma list of
ranks ("" for none), ERRNO (default 2) what the losers got."""
import json
import sys

NRANKS = 4


def blocks(ranks):
    return [{"start": r} for r in ranks]


def main():
    winners = [int(r) for r in sys.argv[1].split(",") if r]
    errno = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    losers = [r for r in range(NRANKS) if r not in winners]
    site = "0x3f2a00000000001a"

    def event(op, ranks, params, layer="posix", inner=True, at=None):
        e = {"event": op, "layer": layer, "inner": inner, "ranks": blocks(ranks), "params": params}
        if at:
            e["site"] = at
        return e

    body = [event("MPI_File_close", range(NRANKS), {"fh": 0}, "mpiio", False, site)]
    # The trace writer puts the winners' node first (rank 0's view), as the runtime does.
    groups = [(winners, {"file": 0}), (losers, {"file": 0, "error": errno})]
    for ranks, params in sorted(groups, key=lambda g: min(g[0], default=NRANKS)):
        if ranks:
            body.append(event("unlink", ranks, params))
    trace = {
        "format": "sio-trace", "version": "1.1", "generator": "race_trace.py", "program": "race",
        "command_line": ["./race"], "nranks": NRANKS, "complete": True, "dropped_events": 0, "notes": [],
        "metadata": {},
        "sites": [{"id": site, "file": "race.c", "line": 9, "column": 3, "function": "main",
                   "callee": "MPI_File_close"}],
        "loops": [],
        "files": [{"id": 0, "format": ".out.shfp.<romio>", "name": [{"text": ".out.shfp.<romio>"}]}],
        "datatypes": [], "comms": [{"id": 0, "kind": "world"}], "infos": [], "body": body,
    }
    json.dump(trace, sys.stdout, indent=1)


main()
