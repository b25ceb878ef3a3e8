#!/bin/bash
# `make test`: unit tests (also under valgrind), host integration tests,
# both again against an ASan+UBSan build, a short run of every fuzz harness
# (and its saved crash inputs), then the cgroup v2 suite inside the VM, once
# per kernel.  Every suite speaks TAP; the last line is the total.
#   SHIM_TEST_SUITES="unit valgrind host asan fuzz vm" (default: all of them)
#   SHIM_FUZZ_SECONDS: seconds per harness in the fuzz suite (10)
#   SHIM_VM_KERNELS="6.1 6.12 6.18" (the default): the kernels the vm suite
#     boots, each its own suite, "cgroup v2 VM (6.12)".  A word is a Debian 12
#     kernel series (6.1: the one linux-image-amd64 depends on; 6.12:
#     linux-image-6.12-amd64's), 6.18 (Debian 13's trixie-backports kernel,
#     the first here with PIDFD_INFO_EXIT) or a kernel package name
#     (tests/vm/build.sh downloads whichever is named).
#   SHIM_VM_VERDICT_ONLY="6.12" (the default): kernels that run only the
#     verdict suites (VM_VERDICT_FILES below), not the engines, devices,
#     resources, load and systemd suites: the oldest and the newest kernel
#     run everything, the one between them what changes with the kernel's
#     OOM accounting.  "" runs everything everywhere.
set -u
cd "$(dirname "$0")/.."
suites=${SHIM_TEST_SUITES:-unit valgrind host asan fuzz vm}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

# Run a TAP producer, echo its output, and keep its ok/not ok lines, each
# tagged with the suite's name (the VM suite runs once per kernel: a
# failure must say which), and the suite's own counts and duration.
summary=()
# The VM files whose outcome depends on how the kernel counts and reports
# an OOM kill and a process's exit: what a middle kernel must still pass.
VM_VERDICT_FILES="tests/vm/smoke.bats tests/vm/oom_verdict.bats tests/vm/oom_scopes.bats
  tests/vm/verdict_witnesses.bats tests/vm/lifecycle_verdict.bats tests/vm/hook_runc_crun.bats"
tap() {
  local name=$1; shift
  local out start rc p f sk
  echo "== $name: $*"
  out=$(mktemp)
  start=$(date +%s)
  "$@" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    status=1
    # A suite that died without a TAP failure line still counts as failed.
    echo "not ok - $name exited with status $rc" >> "$out"
  fi
  grep -E '^(not )?ok ' "$out" | awk -v n="$name" '{ print $0 "  [" n "]" }' >> "$log"
  p=$(grep '^ok ' "$out" | grep -civE '# skip')
  f=$(grep -c '^not ok ' "$out")
  sk=$(grep -ciE '^ok .*# skip' "$out")
  [ "$sk" -eq 0 ] && sk= || sk=", $sk skipped"
  summary+=("$name: $p passed, $f failed$sk ($(($(date +%s) - start)) s)")
  rm -f "$out"
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
    tap "host integration" bats --tap --timing tests/integration ;;
  valgrind)
    tap "unit tests under valgrind" tests/sanitize/run-valgrind.sh ;;
  asan)
    tap "ASan+UBSan build: unit and host" tests/sanitize/run-asan.sh ;;
  fuzz)
    tap "fuzz harnesses" env FUZZ_SECONDS="${SHIM_FUZZ_SECONDS:-10}" tests/fuzz/run.sh ;;
  vm)
    for k in ${SHIM_VM_KERNELS-6.1 6.12 6.18}; do
      case $k in
      6.1) pkg=linux-image-amd64 ;;
      6.18) pkg=linux-image-6.18.15+deb13-amd64 ;;
      [0-9]*.[0-9]*) pkg=linux-image-$k-amd64 ;;
      *) pkg=$k ;;
      esac
      case " ${SHIM_VM_VERDICT_ONLY-6.12} " in
      *" $k "*)
        tap "cgroup v2 VM, verdict suites ($k)" tests/vm/run -k "$pkg" -t 1800 -- \
          bats --tap --timing $VM_VERDICT_FILES
        continue ;;
      esac
      # -t: the whole suite on one kernel, 12-15 min under TCG on a loaded
      # 2-core host; the default 1200 s bound is too tight for it.
      # systemd_*.bats need systemd as PID 1: the VM's systemd mode (-s).
      tap "cgroup v2 VM ($k)" tests/vm/run -k "$pkg" -t 2700 -- \
        bats --tap --timing $(ls tests/vm/*.bats | grep -v '^tests/vm/systemd_')
      tap "cgroup v2 VM, systemd as PID 1 ($k)" tests/vm/run -s -k "$pkg" -t 1200 -- \
        bats --tap --timing tests/vm/systemd_*.bats
    done ;;
  esac
done

# A skipped test (TAP `ok N ... # skip`) is neither passed nor failed: it
# is counted and listed on its own, so that it cannot pass for a pass.
[ ${#summary[@]} -eq 0 ] || printf '== %s\n' "${summary[@]}"
skips=$(grep -iE '^ok .*# skip' "$log")
skipped=$(grep -ciE '^ok .*# skip' "$log")
passed=$(grep '^ok ' "$log" | grep -civE '# skip')
failed=$(grep -c '^not ok ' "$log")
[ "$failed" -eq 0 ] || status=1
if [ "$skipped" -gt 0 ]; then
  echo "$skipped skipped (neither passed nor failed):"
  printf '%s\n' "$skips" | sed 's/^/  /'
fi
if [ "$failed" -gt 0 ]; then
  echo "$failed failed:"
  grep '^not ok ' "$log" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
exit $status
