#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# tests/run-all.sh runs a VM suite once more when the guest kernel crashed
# (vm/run's 125 with a panic or an oops in the console's tail), keeping the
# first run's output as comments; any other failure stands.  A fake vm/run
# plays the VM.

load helpers

# The function, as run-all.sh defines it.
setup_file() {
	sed -n '/^vm_retry_crash()/,/^}/p' "$REPO/tests/run-all.sh" >"$BATS_FILE_TMPDIR/retry.bash"
	[ -s "$BATS_FILE_TMPDIR/retry.bash" ]
}

# fake_vm CRASHES: a vm/run that crashes the guest CRASHES times, then runs
# a suite of two passing tests.
fake_vm() {
	cat >"$T/vm" <<EOF2
#!/bin/bash
n=\$(cat "$T/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/count"
echo 1..2
echo "ok 1 first"
if [ "\$n" -lt $1 ]; then
	echo "vm/run: VM FAILURE: the VM stopped after 99s without an exit status" >&2
	echo "[   98.557334] traps: PANIC: double fault, error_code: 0x0" >&2
	exit 125
fi
echo "ok 2 second"
EOF2
	chmod +x "$T/vm"
}

@test "a guest kernel crash: the suite runs once more, the crash kept as comments" {
	fake_vm 1
	source "$BATS_FILE_TMPDIR/retry.bash"
	run vm_retry_crash "$T/vm"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$T/count")" -eq 2 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq 2 ]
	grep -qx '# first run: \[   98.557334\] traps: PANIC: double fault, error_code: 0x0' <<<"$output"
	grep -qx '# the guest kernel crashed (above): the suite runs once more' <<<"$output"
}

@test "a second crash fails the suite" {
	fake_vm 2
	source "$BATS_FILE_TMPDIR/retry.bash"
	run vm_retry_crash "$T/vm"
	echo "$output"
	[ "$status" -eq 125 ]
	[ "$(cat "$T/count")" -eq 2 ]
}

@test "a VM failure without a crash (a timeout) and a failing test are not run again" {
	source "$BATS_FILE_TMPDIR/retry.bash"
	run vm_retry_crash sh -c 'echo x >>"$1"; echo "vm/run: VM FAILURE: timed out after 1800s (-t)"; exit 125' _ "$T/count"
	[ "$status" -eq 125 ]
	[ "$(wc -l <"$T/count")" -eq 1 ]
	run vm_retry_crash sh -c 'echo x >>"$1"; echo "not ok 1 x"; exit 1' _ "$T/count"
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$T/count")" -eq 2 ]
}
