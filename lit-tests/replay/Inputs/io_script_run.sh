#!/bin/sh
# One case of io-script.test: the program io_script.py writes from SEED, run
# untraced and traced (same log, same files), its trace exact, and the replay
# of the trace tracing back to it (sio-trace diff --ignore-sites), or the
# trace flagged inexact for a reason the program earned.
# Tools come from the environment: CC (sio-cc), SIO_TRACE, REPLAY_GEN, CXX
# (sio-cxx), MPIEXEC, PYTHON. Usage: io_script_run.sh WORKDIR SEED...
set -eu
work=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "io-script seed $seed: $*" >&2; exit 1; }
for seed in "$@"; do
  d="$work/seed$seed"
  rm -rf "$d" && mkdir -p "$d/plain" "$d/app" "$d/replay"
  "$PYTHON" "$here/io_script.py" "$seed" > "$d/prog.c"
  $CC -O1 "$d/prog.c" -o "$d/prog" || fail "does not compile"
  # The input file: 60-byte lines, in both runs.
  for dir in "$d/plain" "$d/app"; do
    "$PYTHON" -c "import sys; sys.stdout.write(''.join('input line %04d %s\n' % (i, 'x' * 44) for i in range(80)))" > "$dir/in.dat"
  done
  (cd "$d/plain" && env SIO_DISABLE=1 "$d/prog" > "$d/plain.log") || fail "untraced run failed"
  (cd "$d/app" && env SIO_TRACE_FILE="$d/trace.json" "$d/prog" > "$d/app.log") || fail "traced run failed"
  cmp -s "$d/plain.log" "$d/app.log" || { diff "$d/plain.log" "$d/app.log" >&2; fail "the program behaved differently traced"; }
  diff -r "$d/plain" "$d/app" >&2 || fail "the program's files differ traced"
  $SIO_TRACE stats "$d/trace.json" > "$d/stats.txt" || fail "sio-trace stats refused the trace"
  # Exact, or flagged with a reason the program earned (the generator may
  # close a descriptor number a stream got meanwhile); a flagged trace's
  # replay is not expected to trace back exactly.
  if ! grep -q '^exact: yes' "$d/stats.txt"; then
    grep '^inexact:' "$d/stats.txt" | grep -qv 'close() closed the descriptor under a recorded fopen stream' &&
      { cat "$d/stats.txt" >&2; fail "the trace is not exact"; }
    echo "io-script seed $seed: flagged (a stream's descriptor closed behind it)"
    continue
  fi
  $REPLAY_GEN "$d/trace.json" -o "$d/replay.cpp" || fail "no replay"
  $CXX -O0 "$d/replay.cpp" -o "$d/replay.exe" || fail "the replay does not compile"
  (cd "$d/replay" && env SIO_TRACE_FILE="$d/replay.json" $MPIEXEC -n 1 "$d/replay.exe" --fast-forward 2> "$d/replay.err") ||
    { cat "$d/replay.err" >&2; fail "the replay failed"; }
  if grep -q "ended differently" "$d/replay.err"; then cat "$d/replay.err" >&2; fail "a replayed call ended differently"; fi
  $SIO_TRACE diff --ignore-sites "$d/trace.json" "$d/replay.json" >&2 || fail "the replay's trace differs"
  echo "io-script seed $seed: ok"
done
