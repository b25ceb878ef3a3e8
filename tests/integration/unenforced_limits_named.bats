#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Every limit that cannot be enforced is named, not only the first: in the
# error without --allow-unenforced-limits, in the warning with it, and in
# update's error.  This host is hybrid: no controller is on its cgroup v2,
# so memory, pids and cpu limits all go unenforced.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	cfg '.linux.resources = {memory: {limit: 104857600}, pids: {limit: 100}, cpu: {shares: 512}}'
}

@test "create without the flag: the error names memory, pids and cpu" {
	set_args /bin/true
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "cannot enforce the memory, pids and cpu limits: the \`memory\`, \`pids\` and \`cpu\` controllers are not"
	assert_contains "$stderr" "--allow-unenforced-limits runs without them"
}

@test "--allow-unenforced-limits: the warning names every dropped limit" {
	set_args /bin/true
	run --separate-stderr shim run --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_contains "$stderr" "shim: warning: linux.resources: the memory, pids and cpu limits are NOT enforced"
}

@test "one limit alone: the same words as before, singular" {
	cfg '.linux.resources = {pids: {limit: 100}}'
	set_args /bin/true
	run --separate-stderr shim run --allow-unenforced-limits --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_contains "$stderr" "shim: warning: linux.resources: the pids limit is NOT enforced: the \`pids\` controller is not"
}

@test "update of two limits it cannot enforce names both" {
	cfg 'del(.linux.resources)'
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr shim update --memory 64M --pids-limit 10 "$ID"
	assert_error "cannot enforce the memory and pids limits: the controllers are not enabled for cgroup \`/shim/$ID\`"
	ct_cleanup
}
