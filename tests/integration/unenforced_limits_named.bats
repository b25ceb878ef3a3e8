#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Every limit that cannot be enforced is named, not only the first: in the
# error without --allow-unenforced-limits, and in the warning with it.
# This host is hybrid: its controllers are on cgroup v1, where cgroup v2
# files (memory.high, cpu.weight, io.weight) cannot be written.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	cfg '.linux.resources = {unified: {"memory.high": "104857600", "cpu.weight": "50", "io.weight": "50"}}'
}

@test "create without the flag: the error names memory.high, cpu.weight and io.weight" {
	set_args /bin/true
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "cannot enforce memory.high, cpu.weight and io.weight: cgroup v2 files"
	assert_contains "$stderr" "--allow-unenforced-limits runs without them"
}

@test "--allow-unenforced-limits: the warning names every dropped limit" {
	set_args /bin/true
	run --separate-stderr shim run --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_contains "$stderr" "shim: warning: linux.resources: the memory.high, cpu.weight and io.weight limits are NOT enforced"
}

@test "one limit alone: the same words as before, singular" {
	cfg '.linux.resources = {unified: {"cpu.weight": "50"}}'
	set_args /bin/true
	run --separate-stderr shim run --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_contains "$stderr" "shim: warning: linux.resources: the cpu.weight limit is NOT enforced: cpu.weight: not on this host's cgroup v1 hierarchies"
}
