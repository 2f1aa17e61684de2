"""same-markers.py PLUGIN GCC: compares two outputs of the marker test
runtime (lit-tests/plugin/Inputs/marker_rt.c with MARKER_RT_TABLES=1): the
marker lines in order, the table lines as sets. Prints the differences and
exits 1, or prints "equal: N sites, N loops, N markers"."""
import difflib
import sys


def split(path):
    with open(path) as f:
        lines = f.read().splitlines()
    tables = sorted(set(l for l in lines if l.startswith("table ")))
    markers = [l for l in lines if not l.startswith("table ")]
    return tables, markers


a_tab, a_seq = split(sys.argv[1])
b_tab, b_seq = split(sys.argv[2])
if a_tab != b_tab or a_seq != b_seq:
    for what, a, b in (("tables", a_tab, b_tab), ("markers", a_seq, b_seq)):
        for line in difflib.unified_diff(a, b, "plugin " + what, "gcc " + what, lineterm=""):
            print(line)
    sys.exit(1)
sites = sum(1 for l in a_tab if l.startswith("table site "))
loops = sum(1 for l in a_tab if l.startswith("table loop "))
if not a_seq:
    print("no markers at all")
    sys.exit(1)
print("equal: %d sites, %d loops, %d markers" % (sites, loops, len(a_seq)))
