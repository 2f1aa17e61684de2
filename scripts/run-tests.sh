#!/usr/bin/env bash
# Runs every sio test suite: installs missing Debian packages, configures and
# builds, then runs the unit tests (ctest) and the lit suites, and ends with one
# line "N passed, N failed" summing both. Exit status is 0 only if all pass.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deps.sh
source "$here/deps.sh"
src="$(cd "$here/.." && pwd)"
build="${SIO_BUILD_DIR:-$src/build}"

sio_install_missing_packages
sio_enable_deb_src
sio_configure_and_build

jobs="$(nproc)"
log_dir="$build/test-logs"
mkdir -p "$log_dir"

echo "== unit tests (ctest) =="
set +e
(cd "$build" && ctest --output-on-failure -j "$jobs") 2>&1 | tee "$log_dir/ctest.log"
ctest_status=${PIPESTATUS[0]}
# --time-tests: the slowest tests are listed at the end, where CI time goes.
echo "== lit tests =="
python3 "${SIO_LLVM_PREFIX:-/usr/lib/llvm-19}/build/utils/lit/lit.py" -sv --time-tests -j "$jobs" \
  "$build/lit-tests" 2>&1 | tee "$log_dir/lit.log"
lit_status=${PIPESTATUS[0]}
set -e

# ctest: "100% tests passed, 0 tests failed out of 12"
ctest_total=$(sed -n 's/.*tests failed out of \([0-9]\+\).*/\1/p' "$log_dir/ctest.log" | tail -1)
ctest_failed=$(sed -n 's/.*tests passed, \([0-9]\+\) tests failed out of.*/\1/p' "$log_dir/ctest.log" | tail -1)
ctest_total=${ctest_total:-0}
ctest_failed=${ctest_failed:-0}
ctest_passed=$((ctest_total - ctest_failed))
# lit: "  Passed: 10" / "  Failed: 1" / "  Unsupported: 2" ...
lit_count() {
  local n
  n=$(sed -n "s/^ *$1 *: *\([0-9]\+\).*/\1/p" "$log_dir/lit.log" | tail -1)
  echo "${n:-0}"
}
lit_passed=$(( $(lit_count Passed) + $(lit_count 'Expectedly Failed') ))
lit_failed=$(( $(lit_count Failed) + $(lit_count 'Unexpectedly Passed') + $(lit_count Unresolved) + $(lit_count 'Timed Out') ))
lit_skipped=$(lit_count Unsupported)

passed=$((ctest_passed + lit_passed))
failed=$((ctest_failed + lit_failed))
if [ "$ctest_status" -ne 0 ] && [ "$ctest_failed" -eq 0 ]; then failed=$((failed + 1)); fi
if [ "$lit_status" -ne 0 ] && [ "$lit_failed" -eq 0 ]; then failed=$((failed + 1)); fi
echo "ctest: $ctest_passed passed, $ctest_failed failed; lit: $lit_passed passed, $lit_failed failed, $lit_skipped unsupported"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
