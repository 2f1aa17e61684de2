#!/bin/sh
# One case of mpiio-script.test: the MPI-IO program mpiio_script.py writes
# from SEED, run at RANKS ranks untraced and traced (same per-rank logs, same
# files), its trace exact, and the replay of the trace, at the same rank
# count, tracing back to it (sio-trace diff --ignore-sites).
# Tools come from the environment: CC (sio-cc), SIO_TRACE, REPLAY_GEN, CXX
# (sio-cxx), MPIEXEC, PYTHON. Usage: mpiio_script_run.sh WORKDIR RANKS SEED...
set -eu
work=$1
ranks=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "mpiio-script seed $seed: $*" >&2; exit 1; }
for seed in "$@"; do
  d="$work/seed$seed"
  rm -rf "$d" && mkdir -p "$d/plain" "$d/app" "$d/replay" "$d/plain.log" "$d/app.log"
  "$PYTHON" "$here/mpiio_script.py" "$seed" > "$d/prog.c"
  $CC -O1 "$d/prog.c" -o "$d/prog" || fail "does not compile"
  (cd "$d/plain" && env SIO_DISABLE=1 timeout 300 $MPIEXEC -n "$ranks" "$d/prog" "$d/plain.log") || fail "untraced run failed"
  (cd "$d/app" && env SIO_TRACE_FILE="$d/trace.json" timeout 300 $MPIEXEC -n "$ranks" "$d/prog" "$d/app.log" 2> "$d/app.err") ||
    { cat "$d/app.err" >&2; fail "traced run failed"; }
  diff -r "$d/plain.log" "$d/app.log" >&2 || fail "the program behaved differently traced"
  diff -r "$d/plain" "$d/app" >&2 || fail "the program's files differ traced"
  $SIO_TRACE stats "$d/trace.json" > "$d/stats.txt" || fail "sio-trace stats refused the trace"
  grep -q '^exact: yes' "$d/stats.txt" || { cat "$d/stats.txt" >&2; fail "the trace is not exact"; }
  $REPLAY_GEN "$d/trace.json" -o "$d/replay.cpp" || fail "no replay"
  $CXX -O0 "$d/replay.cpp" -o "$d/replay.exe" || fail "the replay does not compile"
  (cd "$d/replay" && env SIO_TRACE_FILE="$d/replay.json" timeout 300 $MPIEXEC -n "$ranks" "$d/replay.exe" --fast-forward \
    2> "$d/replay.err") || { cat "$d/replay.err" >&2; fail "the replay failed"; }
  if grep -q "ended differently" "$d/replay.err"; then cat "$d/replay.err" >&2; fail "a replayed call ended differently"; fi
  $SIO_TRACE diff --ignore-sites "$d/trace.json" "$d/replay.json" >&2 || fail "the replay's trace differs"
  echo "mpiio-script seed $seed: ok"
done
