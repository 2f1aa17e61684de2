#!/usr/bin/env bash
# ctest driver: install the build tree into a scratch prefix, then configure,
# build and run the consumer project against it.
set -euo pipefail
build_dir="$1"; src_dir="$2"; scratch="$3"
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$src_dir" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer"
