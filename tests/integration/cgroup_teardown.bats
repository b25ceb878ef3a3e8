#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Every container gets a cgroup on the cgroup2 mount, even on a hybrid host
# where it has no controllers, and the teardown leaves none behind: not its
# own, and not the shared /shim parent once the last container is gone.

load helpers

@test "the container runs in its own cgroup, /shim/ID" {
	set_args /bin/cat /proc/self/cgroup
	del_namespace cgroup
	run_shim
	assert_status 0
	assert_contains "$output" "0::/shim/$ID"
}

@test "the last container to go removes the shared /shim parent, whoever made it" {
	local cg a b
	cg=$(cgroup2_mount)
	# Only meaningful when no other container holds /shim.
	if [ -d "$cg/shim" ]; then
		echo "$cg/shim exists already (another container, or a test's leftover):" >&2
		find "$cg/shim" -name cgroup.procs -exec grep -H . {} + >&2
		find "$cg/shim" -type d >&2
		return 1
	fi
	set_args /bin/sleep 600
	# A makes /shim; B finds it there; A goes first, then B must remove it.
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID-a" >/dev/null 2>&1 &
	a=$!
	for _ in $(seq 1 200); do [ -d "$cg/shim/$ID-a" ] && break; sleep 0.05; done
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID-b" >/dev/null 2>&1 &
	b=$!
	for _ in $(seq 1 200); do [ -d "$cg/shim/$ID-b" ] && break; sleep 0.05; done
	[ -d "$cg/shim/$ID-b" ]
	# Each run reports its init's SIGKILL (128 + 9), having cleaned up.
	echo 1 > "$cg/shim/$ID-a/cgroup.kill"
	status=0
	wait "$a" || status=$?
	assert_status 137
	[ -d "$cg/shim" ]
	echo 1 > "$cg/shim/$ID-b/cgroup.kill"
	status=0
	wait "$b" || status=$?
	assert_status 137
	[ ! -e "$cg/shim" ]
	# The same in every v1 hierarchy (a hybrid or v1 host).
	local h
	while IFS= read -r h; do
		if [ -e "$h/shim" ]; then
			echo "$h/shim is left" >&2
			return 1
		fi
	done < <(cgroup_v1_mounts)
}

# Another container's teardown removes /shim (empty then) while this one,
# having just made or found it, is about to make /shim/ID under it: the
# mkdir fails with ENOENT, and the walk starts over.  The runtime is held
# (SIGSTOP) after each parent level of its walk; the first time, the test
# removes /shim wherever it is still empty, as that teardown would.
@test "a /shim parent removed under a container's walk: its cgroup is made again, and it runs" {
	local pid removed=0 tries st h
	if [ -d "$(cgroup2_mount)/shim" ]; then
		echo "/shim exists already: another container holds it" >&2
		return 1
	fi
	env SHIM_TEST_STOP=cgroup:after-parent SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run \
		--bundle "$BUNDLE" "$ID" >"$T/out" 2>&1 &
	pid=$!
	for tries in $(seq 1 400); do
		st=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || true)
		[ -n "$st" ] || break
		if [ "$st" = T ]; then
			if [ "$removed" = 0 ]; then
				while IFS= read -r h; do
					rmdir "$h/shim" 2>/dev/null && removed=$((removed + 1))
				done < <(cgroup2_mount; cgroup_v1_mounts)
				[ "$removed" -gt 0 ]
			fi
			kill -CONT "$pid"
		fi
		sleep 0.01
	done
	# Never leave it stopped: a stop after the last look is let go too.
	kill -CONT "$pid" 2>/dev/null || [ ! -e "/proc/$pid" ]
	status=0
	wait "$pid" || status=$?
	cat "$T/out"
	assert_status 0
	echo "/shim removed under the walk in $removed hierarchies"
}
