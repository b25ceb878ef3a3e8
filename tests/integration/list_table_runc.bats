#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim list`'s table as runc's: the columns ID, PID, STATUS, BUNDLE,
# CREATED, OWNER, aligned (Go's tabwriter: at least 12 wide, 3 spaces
# between) however long an id or a bundle is; OWNER is a user name; -q
# prints the ids only, even with --format json.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	BG_PIDS=()
	sh_cmd 'exec sleep 1000'
	LONG=$ID-with-an-id-well-over-twenty-four-characters
}

# The long id is not $ID, which is all shim_teardown looks for: a test
# that fails halfway must not leave it behind.
teardown() {
	local cg
	shim delete --force "$LONG" >/dev/null 2>&1 || true
	cg=$(cgroup2_mount)
	if [ -n "$cg" ] && [ -d "$cg/shim/$LONG" ]; then
		echo "cgroup left behind: $cg/shim/$LONG" >&2
		rmdir "$cg/shim/$LONG" 2>/dev/null || true
		shim_teardown
		return 1
	fi
	shim_teardown
}

# starts LINE: the offsets where each column of LINE starts.
starts() {
	awk '{ n = split($0, c, ""); s = ""; prev = " ";
		for (i = 1; i <= n; i++) { if (c[i] != " " && prev == " ") s = s " " (i - 1); prev = c[i] }
		print s }' <<<"$1"
}

@test "list: the columns line up with the header for a long id and a long bundle" {
	local long=$LONG
	mv "$BUNDLE" "$T/a-bundle-directory-whose-path-is-longer-than-forty-characters"
	BUNDLE=$T/a-bundle-directory-whose-path-is-longer-than-forty-characters
	ct_create_ok -- "$long"
	ct_start_ok "$long"
	ct_create_ok
	run --separate-stderr shim list
	assert_status 0
	local header row
	header=$(head -1 <<<"$output")
	assert_eq "$(tr -s ' ' <<<"$header")" "ID PID STATUS BUNDLE CREATED OWNER"
	for row in "$(sed -n 2p <<<"$output")" "$(sed -n 3p <<<"$output")"; do
		assert_eq "$(starts "$row")" "$(starts "$header")" "columns of: $row"
	done
	row=$(awk -v id="$long" '$1 == id' <<<"$output")
	assert_eq "$(awk '{ print $3, $4, $6 }' <<<"$row")" "running $BUNDLE root"
	# three spaces after the longest id
	assert_eq "$(starts "$header" | awk '{ print $2 }')" "$((${#long} + 3))" "where PID starts"
	ct_cleanup "$long" "$ID"
}

@test "list of no container: runc's header" {
	run --separate-stderr shim list
	assert_status 0
	assert_eq "$output" "ID          PID         STATUS      BUNDLE      CREATED     OWNER"
}

@test "list -q --format json: the ids only, as runc" {
	ct_up
	run --separate-stderr shim list -q --format json
	assert_status 0
	assert_eq "$output" "$ID"
	ct_cleanup
}
