#!/usr/bin/env bash
# Installs sio into a scratch prefix, moves the prefix, and runs the pipeline
# from the moved tree only: sio-cc (and sio-fc when built), LD_PRELOAD of the
# runtime, sio-extrap with --emit-replay, the replay compiled with sio-cxx,
# sio-trace report, sio-part-merge, sio-runtime-settings, sio-instrument, and
# a CMake project that uses find_package(sio). Prints one "ok:" line per step
# (lit-tests/install/relocated.test checks them); stops at the first failure.
# usage: relocated.sh CMAKE BUILD_DIR SRC_DIR MPIEXEC MPICC WORK_DIR
set -euo pipefail
cmake="$1"; build="$2"; src="$3"; mpiexec="$4"; mpicc="$5"; work="$6"
inputs="$src/lit-tests/install/Inputs"
rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/first" >"$work/install.log"
mv "$work/first" "$work/moved"
p="$work/moved"
echo "ok: installed and moved"
# build/bin holds exactly the installed tools (tests and benchmarks live in
# build/tests/bin and build/bench/bin).
if ! diff <(ls "$build/bin") <(ls "$p/bin") >"$work/bin.diff"; then
  echo "FAIL: build/bin and the installed bin/ differ (< build/bin only, > installed only):"; cat "$work/bin.diff"; exit 1
fi
echo "ok: build/bin holds the installed tools only"

# Nothing installed may point into the build tree or at the first prefix.
if grep -rIl -e "$build" -e "$work/first" "$p/bin" "$p/lib" --exclude='*.cmake' >"$work/stale.txt"; then
  echo "FAIL: installed files that name the build tree or the first prefix:"; cat "$work/stale.txt"; exit 1
fi
for f in "$p"/bin/* "$p"/lib/*.so*; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  head -c 4 "$f" | grep -q ELF || continue
  # (The scratch prefix itself lies below the build tree.)
  if ldd "$f" 2>&1 | grep -v -F "$p/" | grep -e "not found" -e "$build" >"$work/ldd.txt"; then
    echo "FAIL: $f does not load from the moved tree alone:"; cat "$work/ldd.txt"; exit 1
  fi
done
echo "ok: no path into the build tree; every binary finds its libraries"

cd "$work"
"$p/bin/sio-cc" --sio-show -O1 app.c -o app | grep -q -- "-fplugin=$p/lib/siotrace.so .* -L$p/lib -Wl,-rpath,$p/lib -lsiotrace-rt"
# Through a symbolic link elsewhere (a user's ~/bin), too.
mkdir links && ln -s "$p/bin/sio-cc" links/sio-cc
links/sio-cc --sio-show app.c | grep -q -- "-fplugin=$p/lib/siotrace.so"
"$p/bin/sio-cc" -O1 "$inputs/app.c" -o app
for n in 1 2 3 4; do
  SIO_TRACE_FILE="app.$n.sio.json" "$mpiexec" -n "$n" ./app app.dat
done
"$p/bin/sio-trace" stats app.4.sio.json | grep -q "^complete: yes"
echo "ok: sio-cc built a traced program; traced at 1..4 ranks"

"$mpicc" -O1 "$inputs/app.c" -o plain
SIO_TRACE_FILE=preload.sio.json LD_PRELOAD="$p/lib/libsiotrace-rt.so" "$mpiexec" -n 2 ./plain plain.dat
"$p/bin/sio-trace" stats preload.sio.json | grep -q "MPI_File_write_at"
echo "ok: LD_PRELOAD of the moved runtime traced an untouched program"

"$p/bin/sio-extrap" app.1.sio.json app.2.sio.json app.3.sio.json app.4.sio.json --ranks=8 \
  -o app.x8.sio.json --emit-replay replay.cpp
"$p/bin/sio-cxx" -O1 replay.cpp -o replay
echo "ok: sio-extrap to 8 ranks; replay compiled with sio-cxx"

"$p/bin/sio-trace" report app.1.sio.json app.2.sio.json app.3.sio.json app.4.sio.json -o report.html 2>/dev/null
grep -q "<svg" report.html
echo "ok: sio-trace report"

if [ -x "$p/bin/sio-fc" ]; then
  "$p/bin/sio-fc" -O1 "$inputs/app.f90" -o fapp
  SIO_TRACE_FILE=fapp.sio.json "$mpiexec" -n 2 ./fapp
  "$p/bin/sio-trace" stats fapp.sio.json | grep -q "MPI_File_write_at"
  echo "ok: sio-fc"
else
  echo "ok: sio-fc (not built: flang-19 missing)"
fi

if [ -x "$build/bin/sio-part-merge" ]; then
  "$p/bin/sio-part-merge" --help | grep -q "^usage: sio-part-merge"
  echo "ok: sio-part-merge"
else
  echo "ok: sio-part-merge (not built: no PnetCDF)"
fi
"$p/bin/sio-runtime-settings" --markdown | grep -q "SIO_TRACE_FILE"
"$p/bin/sio-instrument" --version | grep -q "^sio-instrument 0"
echo "ok: sio-runtime-settings, sio-instrument"

"$cmake" -S "$src/cmake/consumer-test" -B consumer -DCMAKE_PREFIX_PATH="$p" >consumer.log 2>&1 ||
  { cat consumer.log; exit 1; }
"$cmake" --build consumer >>consumer.log 2>&1 || { cat consumer.log; exit 1; }
./consumer/consumer
echo "ok: find_package(sio) from the moved tree"
