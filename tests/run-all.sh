#!/bin/bash
# `make test`: unit tests, host integration tests, then the cgroup v2 suite
# inside the VM.  Every suite speaks TAP; the last line is the total.
#   SHIM_TEST_SUITES="unit host vm" (default: all three)
set -u
cd "$(dirname "$0")/.."
suites=${SHIM_TEST_SUITES:-unit host vm}
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
    for t in tests/unit/test_*; do
      case $t in *.c|*.h) continue;; esac
      [ -x "$t" ] && tap "unit $(basename "$t")" "$t"
    done ;;
  host)
    tap "host integration" bats --tap tests/integration ;;
  vm)
    tap "cgroup v2 VM" tests/vm/run -- bats --tap tests/vm ;;
  esac
done

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
