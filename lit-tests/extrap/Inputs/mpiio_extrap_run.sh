#!/bin/sh
# One case of mpiio-script.test (extrap): the MPI-IO program mpiio_script.py
# writes from SEED, traced at 2, 3, 4 and 5 ranks, extrapolated to 8 and
# compared with its real trace at 8 (c1.py). sio-extrap may refuse (c1.py
# exits 3; the reason is printed), never answer wrong (exit 1).
# Environment: PYTHON, CC (sio-cc), C1 (c1.py with --bin and --mpiexec).
# Usage: mpiio_extrap_run.sh WORKDIR SEED...
set -eu
work=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
for seed in "$@"; do
  d="$work/seed$seed"
  rm -rf "$d" && mkdir -p "$d"
  "$PYTHON" "$here/../../replay/Inputs/mpiio_script.py" "$seed" > "$d/prog.c"
  $CC -O1 "$d/prog.c" -o "$d/prog"
  status=0
  (cd "$d" && $C1 --exe "$d/prog" --work "$d" --inputs 2,3,4,5 --targets 8 > "$d/c1.out" 2>&1) || status=$?
  case $status in
  0) echo "seed $seed: exact at 8" ;;
  3) echo "seed $seed: refused: $(grep -m1 'sio-extrap: error' "$d/c1.out" | cut -c1-160)" ;;
  *) cat "$d/c1.out" >&2; echo "seed $seed: WRONG or failed (c1.py exit $status)"; exit 1 ;;
  esac
done
