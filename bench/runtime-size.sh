#!/bin/sh
# Trace size of the runtime's sample programs (lit-tests/runtime/*.cpp) at 4
# and 16 ranks and with 10x the loop iterations; prints a Markdown table for
# docs/runtime.md. "structure" is the size with the timing statistics
# (compute/duration min/max/mean/variance/histogram) removed.
#   bench/runtime-size.sh [build-dir] [small-ranks] [large-ranks]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
small=${2:-4}
large=${3:-16}
work=$(mktemp -d "${TMPDIR:-/tmp}/sio-size.XXXXXX")
trap 'rm -rf "$work"' EXIT
noplugin=
[ -f "$build/lib/siotrace.so" ] || noplugin=--sio-no-plugin

structure() { # trace -> bytes without timing, same JSON layout
  python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
def strip(nodes):
    for n in nodes:
        n.pop("compute", None); n.pop("duration", None)
        if "loop" in n: strip(n.get("body", []))
strip(t["body"])
t["metadata"] = {}
print(len(json.dumps(t, indent=2)))
PY
}

echo "| sample | $small ranks (B) | $large ranks (B) | ratio | $small ranks, 10x iterations (B) | ratio | structure $small / $large / 10x (B) | structure ratios |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for p in strong ior nton ntonn stdio view nested helper; do
  exe="$work/$p"
  "$build/bin/sio-cxx" $noplugin -O1 "$src/lit-tests/runtime/$p.cpp" -o "$exe"
  mkdir -p "$work/run"
  (cd "$work/run" && SIO_TRACE_FILE="$work/$p.a.json" mpiexec.mpich -n "$small" "$exe" 1 &&
    SIO_TRACE_FILE="$work/$p.b.json" mpiexec.mpich -n "$large" "$exe" 1 &&
    SIO_TRACE_FILE="$work/$p.c.json" mpiexec.mpich -n "$small" "$exe" 10) > /dev/null
  a=$(stat -c %s "$work/$p.a.json"); b=$(stat -c %s "$work/$p.b.json"); c=$(stat -c %s "$work/$p.c.json")
  sa=$(structure "$work/$p.a.json"); sb=$(structure "$work/$p.b.json"); sc=$(structure "$work/$p.c.json")
  printf '| %s | %d | %d | %.3f | %d | %.3f | %d / %d / %d | %.3f / %.3f |\n' "$p" "$a" "$b" \
    "$(echo "$b / $a" | bc -l)" "$c" "$(echo "$c / $a" | bc -l)" "$sa" "$sb" "$sc" \
    "$(echo "$sb / $sa" | bc -l)" "$(echo "$sc / $sa" | bc -l)"
done
