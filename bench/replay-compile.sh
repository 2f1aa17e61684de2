#!/usr/bin/env bash
# Compile time and size of a replay whose trace holds long tables (issue 29:
# "a replay of a trace with a 100,000-entry table compiles in under 30 s at
# -O2").
#
#   bench/replay-compile.sh [--build DIR] [--entries N[,N...]] [--opt -O2]
#
# For each N, two programs whose traces hold tables of N entries:
#   offsets   N pwrites at pseudo-random offsets with pseudo-random sizes
#             (values no model fits: two packed tables, docs/trace-format.md)
#   datatype  an hindexed and an indexed type of N blocks used as file views
#             (lit-tests/replay/Inputs/long_type_table.c: the datatype table)
# Each is traced at 1 rank, its replay generated with sio-replay-gen and
# compiled with mpicxx.mpich; the replay is run once and must trace back to
# the same trace (when it does not, the line says so). Prints one line per
# program and N: the trace's size, the replay's lines and bytes, the
# compile's wall time and peak memory, and the binary's size.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
entries="1000,10000,100000"
opt="-O2"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --entries) entries="$2"; shift 2 ;;
    --opt) opt="$2"; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--entries N[,N...]] [--opt -O2]" >&2; exit 2 ;;
  esac
done
. "$src/bench/common.sh"
bench_workdir replay-compile

cat >"$work/tables.cpp" <<'CPP'
#include <mpi.h>

#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = std::atoi(argv[1]);
  int fd = open("tables.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  const char buf[8] = {};
  unsigned x = 777u;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    if (pwrite(fd, buf, 1 + (x >> 28) % 8, off_t((x >> 8) % 1000000)) < 0)
      return 1;
  }
  close(fd);
  MPI_Finalize();
}
CPP
sio_cxx -O2 "$work/tables.cpp" -o "$work/offsets"
if [ -f "$build/lib/siotrace.so" ]; then
  "$build/bin/sio-cc" -O2 "$src/lit-tests/replay/Inputs/long_type_table.c" -o "$work/datatype"
else
  "$build/bin/sio-cc" --sio-no-plugin -O2 "$src/lit-tests/replay/Inputs/long_type_table.c" -o "$work/datatype"
fi
echo "Command: bench/replay-compile.sh --entries $entries --opt $opt ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-9s %-8s %12s %10s %12s %10s %10s %12s  %s\n' table entries trace_bytes cpp_lines cpp_bytes compile_s peak_MiB binary_bytes round_trip
for kind in offsets datatype; do
for n in ${entries//,/ }; do
  d="$work/$kind.$n"
  mkdir -p "$d/app" "$d/replay"
  (cd "$d/app" && SIO_QUIET=1 SIO_TRACE_FILE="$d/trace.json" mpiexec.mpich -n 1 "$work/$kind" "$n")
  "$build/bin/sio-replay-gen" "$d/trace.json" -o "$d/replay.cpp"
  /usr/bin/time -f '%e %M' -o "$d/time" mpicxx.mpich $opt "$d/replay.cpp" -o "$d/replay.bin"
  read -r seconds kib <"$d/time"
  round="not checked"
  if LD_PRELOAD="$build/lib/libsiotrace-rt.so" true 2>/dev/null; then
    (cd "$d/replay" && SIO_QUIET=1 LD_PRELOAD="$build/lib/libsiotrace-rt.so" SIO_TRACE_FILE="$d/replay.json" \
      mpiexec.mpich -n 1 "$d/replay.bin" --fast-forward)
    # Preloaded: the replay has no plugin markers, so loops and sites differ;
    # the values (every offset and count) must be the trace's.
    if "$build/bin/sio-trace" stats "$d/trace.json" | grep -i 'bytes' >"$d/a" &&
      "$build/bin/sio-trace" stats "$d/replay.json" | grep -i 'bytes' >"$d/b" && cmp -s "$d/a" "$d/b"; then
      round="same bytes"
    else
      round="DIFFERENT bytes"
    fi
  fi
  printf '%-9s %-8s %12s %10s %12s %10s %10s %12s  %s\n' "$kind" "$n" "$(stat -c %s "$d/trace.json")" \
    "$(wc -l <"$d/replay.cpp")" "$(stat -c %s "$d/replay.cpp")" "$seconds" "$((kib / 1024))" \
    "$(stat -c %s "$d/replay.bin")" "$round"
done
done
