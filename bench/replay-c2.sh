#!/usr/bin/env bash
# C2 of ScalaIOExtrap: does the time-accurate replay of an (extrapolated)
# trace take the time the application takes? For each sample program with
# computation between its I/O phases: trace it, extrapolate to the target
# rank count (sio-extrap, when built; otherwise the trace is taken at the
# target count directly and the script says so), emit and build the replay,
# then run application and replay RUNS times each, alternating, and report
# the median wall times and their ratio. Goal: within 3 %.
#
#   bench/replay-c2.sh [--build DIR] [--ranks N] [--runs R] [--work DIR]
#
# A benchmark, not a test: it prints numbers and never fails on them.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$src/build"
target=8
runs=5
work=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --ranks) target=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "replay-c2: unknown option $1" >&2; exit 2 ;;
  esac
done
work="${work:-$build/bench-replay-c2}"
mpicxx=$(command -v mpicxx.mpich)
mpiexec=$(command -v mpiexec.mpich)
for tool in sio-cxx sio-trace sio-replay-gen; do
  [ -x "$build/bin/$tool" ] || { echo "replay-c2: $build/bin/$tool is missing: build sio first" >&2; exit 2; }
done
plugin_flag=""
[ -e "$build/lib/siotrace.so" ] || plugin_flag="--sio-no-plugin"
export MPIR_CVAR_CH4_NUM_VCIS=1
mkdir -p "$work"
cd "$work"

# The sample programs: I/O phases separated by computation (the programs of
# lit-tests/runtime have none, so C2 uses these two).
cat > phases.cpp <<'CPP'
// Checkpointing: each step computes, then every rank writes its block of a
// shared file (N-to-1, collective) and rank 0 appends a log line.
#include <mpi.h>
#include <chrono>
#include <cstdio>
#include <vector>
static double sink;
static void compute(double ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(long(ms * 1000));
  while (std::chrono::steady_clock::now() < end) sink += 1e-9;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int block = 1 << 20, steps = 8;
  std::vector<char> buf(block, 'x');
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "checkpoint.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int step = 0; step < steps; step++) {
    compute(60 + 10 * (rank % 2));
    MPI_File_write_at_all(fh, MPI_Offset(step) * n * block + MPI_Offset(rank) * block, buf.data(), block, MPI_BYTE,
                          MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
}
CPP
cat > perrank.cpp <<'CPP'
// N-to-N: each rank computes and appends to its own file with POSIX calls,
// then reads it back between two more computation phases.
#include <mpi.h>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>
static double sink;
static void compute(double ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(long(ms * 1000));
  while (std::chrono::steady_clock::now() < end) sink += 1e-9;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char> buf(256 << 10, 'y');
  std::string name = "part_" + std::to_string(rank) + ".dat";
  int fd = open(name.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0644);
  for (int i = 0; i < 10; i++) {
    compute(40);
    if (write(fd, buf.data(), buf.size()) < 0) return 1;
  }
  compute(100);
  for (int i = 0; i < 10; i++) {
    if (pread(fd, buf.data(), buf.size(), off_t(i) * off_t(buf.size())) < 0) return 1;
    compute(20);
  }
  close(fd);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
}
CPP

have_extrap=0
[ -x "$build/bin/sio-extrap" ] && have_extrap=1
wall() { # seconds of one run of "$@", in a clean directory
  rm -rf run && mkdir run && cd run
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null
  t1=$(date +%s.%N)
  cd ..
  echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

printf '%-10s %6s %12s %12s %8s  %s\n' program ranks app_s replay_s ratio trace
for app in phases perrank; do
  "$mpicxx" -O2 "$app.cpp" -o "$app.plain"
  "$build/bin/sio-cxx" $plugin_flag -O2 "$app.cpp" -o "$app.traced"
  if [ $have_extrap = 1 ]; then
    # Four rank counts below the target (the target itself is never traced),
    # extrapolated to it.
    inputs=()
    for n in $((target / 4)) $((3 * target / 8)) $((target / 2)) $((3 * target / 4)); do
      [ "$n" -ge 1 ] || continue
      [[ " ${inputs[*]} " == *" $app.$n.json "* ]] && continue
      (rm -rf trace && mkdir trace && cd trace && SIO_TRACE_FILE="../$app.$n.json" "$mpiexec" -n "$n" "../$app.traced" > /dev/null)
      inputs+=("$app.$n.json")
    done
    "$build/bin/sio-extrap" --ranks "$target" "${inputs[@]}" -o "$app.x$target.json" --emit-replay "$app.replay.cpp"
    kind="extrapolated from ${inputs[*]}"
  else
    (rm -rf trace && mkdir trace && cd trace && SIO_TRACE_FILE="../$app.$target.json" "$mpiexec" -n "$target" "../$app.traced" > /dev/null)
    "$build/bin/sio-replay-gen" "$app.$target.json" -o "$app.replay.cpp"
    kind="taken at $target ranks (sio-extrap not built)"
  fi
  "$mpicxx" -O2 "$app.replay.cpp" -o "$app.replay"
  app_times=()
  replay_times=()
  for ((r = 0; r < runs; r++)); do
    app_times+=("$(wall "$mpiexec" -n "$target" "../$app.plain")")
    replay_times+=("$(wall "$mpiexec" -n "$target" "../$app.replay" --seed "$r")")
  done
  a=$(median "${app_times[@]}")
  b=$(median "${replay_times[@]}")
  printf '%-10s %6d %12.3f %12.3f %8.4f  %s\n' "$app" "$target" "$a" "$b" "$(echo "$b / $a" | bc -l)" "$kind"
  echo "  app runs:    ${app_times[*]}"
  echo "  replay runs: ${replay_times[*]}"
done
