#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A container put into a cgroup that already exists: one with processes in
# it is used, with runc's warning ("container's cgroup is not empty"); a
# frozen one is refused, in runc's words ("container's cgroup unexpectedly
# frozen"), for `run` and `create` alike, and nothing is left behind.
# The cgroup v2 hierarchy of this host (hybrid: /sys/fs/cgroup/unified),
# and the v1 freezer hierarchy, where a cgroup left FROZEN is refused too.

load helpers
load lifecycle_helpers

setup() {
	shim_setup
	CG=$(cgroup2_mount)
	[ -n "$CG" ] || {
		echo "no cgroup2 mounted" >&2
		return 1
	}
	# The /shim parents this test makes (mkdir -p below, frozen_v1) are
	# its own to remove: left behind, they would be the next container's.
	MADE_PARENTS=()
	made_parent "$CG"
	# The default path, shim/ID, made beforehand.
	OCC=$CG/shim/$ID
	mkdir -p "$OCC"
	SQUATTER=
	FRZ=
}

# made_parent MOUNT: MOUNT/shim is removed at teardown if it is not there
# now.
made_parent() {
	[ -e "$1/shim" ] || MADE_PARENTS+=("$1/shim")
}

# frozen_v1: the container's directory in the v1 freezer hierarchy, made
# and left FROZEN by someone else ($FRZ); skipped without that hierarchy.
frozen_v1() {
	local m
	m=$(cgroup_v1_mount freezer)
	[ -n "$m" ] || skip "no cgroup v1 freezer hierarchy"
	made_parent "$m"
	FRZ=$m/shim/$ID
	mkdir -p "$FRZ"
	echo FROZEN >"$FRZ/freezer.state"
	assert_eq "$(cat "$FRZ/freezer.state")" FROZEN "$FRZ/freezer.state"
}

teardown() {
	local problems="" d
	if [ -n "$SQUATTER" ]; then
		kill -9 "$SQUATTER" 2>/dev/null || true
		wait "$SQUATTER" 2>/dev/null || true
	fi
	if [ -d "$OCC" ]; then
		echo 0 >"$OCC/cgroup.freeze"
		rmdir "$OCC" || problems+="rmdir $OCC failed; "
	fi
	if [ -n "$FRZ" ] && [ -d "$FRZ" ]; then
		echo THAWED >"$FRZ/freezer.state"
		rmdir "$FRZ" || problems+="rmdir $FRZ failed; "
	fi
	# A parent another container holds meanwhile is not empty: it stays.
	for d in "${MADE_PARENTS[@]}"; do
		[ ! -d "$d" ] || rmdir "$d" 2>/dev/null || [ -n "$(find "$d" -mindepth 1 -type d -print -quit)" ] ||
			problems+="rmdir $d failed; "
	done
	shim_teardown || problems+="shim_teardown; "
	if [ -n "$problems" ]; then
		echo "teardown: $problems" >&2
		return 1
	fi
}

# bounded CMD...: `shim CMD ... --bundle $BUNDLE $ID` under bats' run, at
# most 30 s: a container in a frozen cgroup must never be waited for.
bounded() {
	local cmd=$1
	shift
	run --separate-stderr timeout -k 5 30 env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
		"$cmd" --bundle "$BUNDLE" "$@" "$ID" </dev/null 3>&-
}

# squat: a process of the test's in the cgroup.
squat() {
	sleep 1000 3>&- &
	SQUATTER=$!
	echo "$SQUATTER" >"$OCC/cgroup.procs"
}

@test "run into a cgroup with a process in it: runc's warning, and the container runs" {
	squat
	set_args /bin/echo hello
	run_shim
	assert_status 0
	assert_eq "$output" "hello"
	assert_contains "$stderr" "container's cgroup is not empty: 1 process(es) found"
}

@test "create into a cgroup with a process in it: the same warning" {
	squat
	set_args /bin/true
	ct_create
	assert_status 0
	assert_contains "$stderr" "container's cgroup is not empty: 1 process(es) found"
	ct_cleanup
}

@test "run into a frozen cgroup: refused, nothing left" {
	echo 1 >"$OCC/cgroup.freeze"
	set_args /bin/true
	bounded run
	assert_status 1
	assert_contains "$stderr" "container's cgroup unexpectedly frozen"
	[ ! -e "$STATE/$ID" ]
}

@test "create into a frozen cgroup: refused, nothing left" {
	echo 1 >"$OCC/cgroup.freeze"
	set_args /bin/true
	bounded create
	assert_status 1
	assert_contains "$stderr" "container's cgroup unexpectedly frozen"
	[ ! -e "$STATE/$ID" ]
}

@test "run under a frozen parent cgroup: refused too" {
	rmdir "$OCC"
	OCC=$CG/shim/$ID-parent
	mkdir -p "$OCC"
	echo 1 >"$OCC/cgroup.freeze"
	cfg --arg p "/shim/$ID-parent/child" '.linux.cgroupsPath = $p'
	set_args /bin/true
	bounded run
	assert_status 1
	assert_contains "$stderr" "container's cgroup unexpectedly frozen"
	[ ! -e "$OCC/child" ]
}

@test "run into a v1 freezer cgroup left FROZEN: refused at once, nothing left" {
	frozen_v1
	set_args /bin/true
	bounded run
	assert_status 1
	assert_contains "$stderr" "container's cgroup unexpectedly frozen"
	assert_contains "$stderr" "freezer"
	[ ! -e "$STATE/$ID" ]
	assert_eq "$(cat "$FRZ/freezer.state")" FROZEN "someone else's freezer.state"
}

@test "create into a v1 freezer cgroup left FROZEN: refused at once, nothing left" {
	frozen_v1
	set_args /bin/true
	bounded create
	assert_status 1
	assert_contains "$stderr" "container's cgroup unexpectedly frozen"
	[ ! -e "$STATE/$ID" ]
}

@test "run under a v1 freezer parent left FROZEN: refused too, the child removed" {
	frozen_v1
	rmdir "$FRZ"
	FRZ=$(cgroup_v1_mount freezer)/shim/$ID-parent
	mkdir -p "$FRZ"
	echo FROZEN >"$FRZ/freezer.state"
	cfg --arg p "/shim/$ID-parent/child" '.linux.cgroupsPath = $p'
	set_args /bin/true
	bounded run
	assert_status 1
	assert_contains "$stderr" "container's cgroup unexpectedly frozen"
	[ ! -e "$FRZ/child" ]
	[ ! -e "$CG/shim/$ID-parent/child" ]
}
