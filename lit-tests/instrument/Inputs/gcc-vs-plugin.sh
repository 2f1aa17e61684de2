#!/bin/sh
# gcc-vs-plugin.sh SAMPLE.cpp RANKS: builds the sample twice, with sio-cxx
# (clang -fplugin=siotrace.so) and as sio-instrument's output compiled by
# MPICH's wrapper on g++ (the compile command taken from a compilation
# database that names mpicxx), runs both at RANKS ranks in fresh directories, and
# prints "equal: SAMPLE" when `sio-trace diff` finds the traces equal (it
# prints the differences and exits 1 otherwise).
# Environment: SIO_BIN, SIO_LIB, SIO_INCLUDE, MPICXX, MPIEXEC.
set -eu
src=$1
ranks=$2
name=$(basename "$src" .cpp)
work=$name.work
rm -rf "$work" && mkdir -p "$work/plugin" "$work/gcc"
# Same working directory for both compiles, so ids name the same path.
cp "$src" "$work/$name.cpp"
cd "$work"
"$SIO_BIN/sio-cxx" -O1 "$name.cpp" -o plugin.exe
# The compile command names MPICH's wrapper, as in a CMake build with
# CMAKE_CXX_COMPILER=mpicxx: sio-instrument asks it for its include flags.
printf '[{"directory": "%s", "command": "%s -O1 -c %s.cpp", "file": "%s.cpp"}]\n' \
  "$(pwd)" "$MPICXX" "$name" "$name" > compile_commands.json
"$SIO_BIN/sio-instrument" -p . -o instrumented "$name.cpp"
OMPI_CXX= MPICH_CXX=g++ "$MPICXX" -O1 -I"$SIO_INCLUDE" instrumented/"$name.cpp" -o gcc.exe \
  -L"$SIO_LIB" -Wl,-rpath,"$SIO_LIB" -lsiotrace-rt
(cd plugin && SIO_TRACE_FILE=../plugin.json "$MPIEXEC" -n "$ranks" ../plugin.exe)
(cd gcc && SIO_TRACE_FILE=../gcc.json "$MPIEXEC" -n "$ranks" ../gcc.exe)
"$SIO_BIN/sio-trace" diff plugin.json gcc.json
echo "equal: $name"
