#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# podman's `--runtime-flag allow-unenforced-limits` puts the flag before the
# command (`shim --allow-unenforced-limits create ...`): as a global option
# it means what create's and run's own option means.  This host is hybrid
# (its controllers on cgroup v1), so memory.high, a cgroup v2 file, cannot
# be enforced.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	cfg '.linux.resources.unified = {"memory.high": "104857600"}'
}

@test "a limit that cannot be enforced is refused without the flag" {
	set_args /bin/true
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "memory.high: cannot enforce it"
	assert_contains "$stderr" "--allow-unenforced-limits"
}

@test "run: --allow-unenforced-limits before the command runs it, with the warning" {
	set_args /bin/echo ran
	run --separate-stderr shim --allow-unenforced-limits run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$output" ran
	assert_contains "$stderr" "the memory.high limit is NOT enforced"
}

@test "create: --allow-unenforced-limits before the command, as podman passes it" {
	sh_cmd 'exec sleep 1000'
	touch "$T/ct.out" "$T/ct.err"
	status=0
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" --allow-unenforced-limits create \
		--bundle "$BUNDLE" "$ID" </dev/null >>"$T/ct.out" 2>>"$T/ct.err" 3>&- || status=$?
	assert_status 0
	assert_contains "$(cat "$T/ct.err")" "the memory.high limit is NOT enforced"
	assert_eq "$(ct_status)" created
	ct_cleanup
}

@test "shim --help names the global --allow-unenforced-limits" {
	run --separate-stderr shim --help
	assert_status 0
	assert_contains "$output" "--allow-unenforced-limits"
}
