#!/bin/bash
# `make test`: unit tests (also under valgrind), host integration tests,
# both again against an ASan+UBSan build, a short run of every fuzz harness
# (and its saved crash inputs), then the cgroup v2 suite inside the VM.
# Every suite speaks TAP; the last line is the total.
#   SHIM_TEST_SUITES="unit valgrind host asan fuzz vm" (default: all of them)
#   SHIM_FUZZ_SECONDS: seconds per harness in the fuzz suite (10)
set -u
cd "$(dirname "$0")/.."
suites=${SHIM_TEST_SUITES:-unit valgrind host asan fuzz vm}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

# Run a TAP producer, echo its output, and keep the ok/not ok lines.
tap() {
  local name=$1; shift
  echo "== $name: $*"
  "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    status=1
    # A suite that died without a TAP failure line still counts as failed.
    echo "not ok - $name exited with status $rc" >> "$log"
  fi
}

for s in $suites; do
  case $s in
  unit)
    # Every tests/unit/test_*.c has its binary: one that was not built is
    # a failure, not a suite silently left out.
    for c in tests/unit/test_*.c; do
      t=${c%.c}
      if [ -x "$t" ]; then
        tap "unit $(basename "$t")" "$t"
      else
        echo "not ok - unit $(basename "$t"): not built (make $t)" | tee -a "$log"
      fi
    done
    for t in tests/unit/test_*.sh; do
      tap "unit $(basename "$t")" bash "$t"
    done ;;
  host)
    tap "host integration" bats --tap tests/integration ;;
  valgrind)
    tap "unit tests under valgrind" tests/sanitize/run-valgrind.sh ;;
  asan)
    tap "ASan+UBSan build: unit and host" tests/sanitize/run-asan.sh ;;
  fuzz)
    tap "fuzz harnesses" env FUZZ_SECONDS="${SHIM_FUZZ_SECONDS:-10}" tests/fuzz/run.sh ;;
  vm)
    tap "cgroup v2 VM" tests/vm/run -- bats --tap tests/vm ;;
  esac
done

# A skipped test (TAP `ok N ... # skip`) is neither passed nor failed: it
# is counted and listed on its own, so that it cannot pass for a pass.
skips=$(grep -iE '^ok .*# skip' "$log")
skipped=$(grep -ciE '^ok .*# skip' "$log")
passed=$(grep '^ok ' "$log" | grep -civE '# skip')
failed=$(grep -c '^not ok ' "$log")
[ "$failed" -eq 0 ] || status=1
if [ "$skipped" -gt 0 ]; then
  echo "$skipped skipped (neither passed nor failed):"
  printf '%s\n' "$skips" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
exit $status
