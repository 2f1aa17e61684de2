#!/bin/sh
# One case of nonblocking-script.test: the PnetCDF program nb_script.py
# writes from SEED, run at RANKS ranks on an ordinary file (K = 0) and on one
# partitioned into K files by libsio-pnetcdf: every rank's log (each call's
# result, request statuses, checksums of what the gets read, the file read
# back at the end) must be the same.
# Tools come from the environment: PYTHON, MPICC, CFLAGS, LIBS (the
# libsio-pnetcdf and PnetCDF link lines), MPIEXEC.
# Usage: nb_script_run.sh WORKDIR RANKS K SEED...
set -eu
work=$1
ranks=$2
k=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "nonblocking-script seed $seed: $*" >&2; exit 1; }
for seed in "$@"; do
  d="$work/seed$seed"
  rm -rf "$d" && mkdir -p "$d"
  "$PYTHON" "$here/nb_script.py" "$seed" > "$d/prog.c"
  $MPICC -Wall -Werror $CFLAGS "$d/prog.c" -o "$d/prog" $LIBS || fail "does not compile"
  timeout 300 $MPIEXEC -n "$ranks" "$d/prog" "$d" 0 > "$d/plain.out" 2>&1 || { cat "$d/plain.out" >&2; fail "the plain run failed"; }
  timeout 300 $MPIEXEC -n "$ranks" "$d/prog" "$d" "$k" > "$d/part.out" 2>&1 ||
    { cat "$d/part.out" >&2; fail "the partitioned run failed"; }
  if grep -q "sio-pnetcdf: error" "$d/part.out"; then cat "$d/part.out" >&2; fail "libsio-pnetcdf refused a call"; fi
  r=0
  while [ "$r" -lt "$ranks" ]; do
    diff "$d/log0.$r" "$d/log$k.$r" >&2 || fail "rank $r saw something else partitioned (K=$k; < plain, > partitioned)"
    r=$((r + 1))
  done
  echo "nonblocking-script seed $seed: $(grep -c . "$d/log0.0") results the same at K=$k"
done
