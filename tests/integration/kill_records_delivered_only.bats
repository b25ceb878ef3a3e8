#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The record of signals (ROOT/ID/signals, read by the verdict) holds a
# signal only once `shim kill` delivered it to a live init: a kill of a
# stopped container is an error and records nothing, and `kill --all` of a
# stopped container signals what is left in its cgroup without recording
# anything (an engine's cleanup `kill --all KILL` after init died must not
# become the cause of its death).

load helpers
load lifecycle_helpers

# recorded: the record's bits, or "none" without a record.
recorded() {
	if [ -e "$STATE/$ID/signals" ]; then
		cat "$STATE/$ID/signals"
	else
		echo none
	fi
}

@test "kill --all of a stopped container is accepted and records nothing" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	run --separate-stderr shim kill --all "$ID" KILL
	assert_status 0
	assert_eq "$(recorded)" none "the record after kill --all of a stopped container"
	ct_cleanup
}

@test "kill of a stopped container fails and records nothing" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	run --separate-stderr shim kill "$ID" KILL
	assert_error "cannot kill container \`$ID\`: it is stopped"
	assert_status 1
	assert_eq "$(recorded)" none "the record after kill of a stopped container"
	ct_cleanup
}

@test "a signal delivered to a live init is recorded, with --all too" {
	sh_cmd 'trap "" USR1 USR2; while :; do sleep 0.1; done'
	ct_up
	run --separate-stderr shim kill "$ID" USR1
	assert_status 0
	assert_eq "$(recorded)" $((1 << (10 - 1))) "the record after USR1"
	run --separate-stderr shim kill --all "$ID" USR2
	assert_status 0
	assert_eq "$(recorded)" $(((1 << (10 - 1)) | (1 << (12 - 1)))) "the record after USR1 and USR2"
	ct_cleanup
}
