# Shared by the bench/*.sh scripts; sourced once `src` (the repository) and
# `build` (the build directory) are set:
#   bench_workdir NAME  sets `work` to a fresh temporary directory, removed at exit
#   sio_cxx ARGS...     sio-cxx, with the plugin when it is built (else --sio-no-plugin)
#   build_pair SOURCE   $work/plain (mpicxx.mpich -O2) and $work/traced (sio-cxx -O2)
#   median              the median of the numbers on standard input
# `build` is made absolute, so the scripts may change directory.

build=$(cd "$build" && pwd)

bench_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/sio-$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

sio_cxx() {
  if [ -f "$build/lib/siotrace.so" ]; then
    "$build/bin/sio-cxx" "$@"
  else
    "$build/bin/sio-cxx" --sio-no-plugin "$@"
  fi
}

build_pair() {
  mpicxx.mpich -O2 "$1" -o "$work/plain"
  sio_cxx -O2 "$1" -o "$work/traced"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
