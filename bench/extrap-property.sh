#!/bin/sh
# The property test of extrapolation with more programs than CI runs
# (lit-tests/extrap/property.test): COUNT programs drawn with SEED from the
# parameter space of lit-tests/extrap/Inputs/extrap-gen.c, each traced at 4,
# 8, 12, 16 and at each target (TARGET, comma-separated, default 32,64; a
# square grid at 4, 9, 16, 25 and SQUARE_TARGET, default 36,64),
# extrapolated and compared with sio-trace diff. Prints one line per program
# and target, "property N: E exact, R refused, W wrong" per target and
# "property: ..." in all; exits 1 on any wrong. A 64-rank run takes about
# 20 s on 2 cores.
# With BEFORE=OTHER_BUILD_DIR the same traces also go through that build's
# sio-extrap, and its counts are printed first ("before: ..."): what a change
# does to the exact share, with the same programs.
# With FIX=KEY=VALUE,... every drawn program takes those keys (FIX=grid=3,dims=create:
# 3-d MPI_Dims_create grids only, traced at 4, 8, 12, 16, 24).
#   usage: [BEFORE=DIR] [SQUARE_TARGET=36,64] [FIX=K=V,...] bench/extrap-property.sh [BUILD_DIR] [COUNT] [SEED] [TARGET]
set -e
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
count=${2:-40}
seed=${3:-1}
target=${4:-32,64}
. "$src/bench/common.sh"
bench_workdir extrap-property
"$build/bin/sio-cc" -O1 "$src/lit-tests/extrap/Inputs/extrap-gen.c" -o "$work/gen"
echo "Command: bench/extrap-property.sh $build $count $seed $target ($(date -u +%Y-%m-%d), $(nproc) cores)"
python3 "$src/lit-tests/extrap/Inputs/extrap-property.py" --exe "$work/gen" --bin "$build/bin" \
  --mpiexec mpiexec.mpich --work "$work" --seed "$seed" --cases "$count" --target "$target" --square-target "${SQUARE_TARGET:-36,64}" \
  ${BEFORE:+--before-bin "$BEFORE/bin"} ${FIX:+--fix "$FIX"}
