#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A user namespace given by path is joined first, and the namespaces the
# config asks to create are made inside it (clone3 would make them the
# host's, where the container's root may not mount anything).  A new pid
# namespace there is refused (unshare would not make init pid 1): the
# tests join one of the user namespace's by path.

load helpers

# hold_userns: a process of the test in a user namespace of its own,
# 0..65535 -> 200000..265535, with a pid namespace of that user namespace
# for its children (its pid_for_children); $HOLDER is its pid.
hold_userns() {
	env SHIM_TEST_TAG="$TAG" unshare --user --pid --fork --kill-child sleep 600 3>&- &
	HOLDER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		if [ "$(readlink "/proc/$HOLDER/ns/user")" != "$(readlink /proc/self/ns/user)" ]; then
			echo "0 200000 65536" >"/proc/$HOLDER/uid_map"
			echo "0 200000 65536" >"/proc/$HOLDER/gid_map"
			return 0
		fi
		sleep 0.05
	done
	echo "the holder did not get its user namespace" >&2
	return 1
}

teardown() {
	if [ -n "${HOLDER:-}" ]; then
		local child
		child=$(cat "/proc/$HOLDER/task/$HOLDER/children" 2>/dev/null)
		kill -9 "$HOLDER" $child 2>/dev/null
		wait "$HOLDER" 2>/dev/null
		# shellcheck disable=SC2086
		[ -z "$child" ] || wait_gone $child
	fi
	shim_teardown
}

# join_holder: the holder's user and pid namespaces.
join_holder() {
	cfg --arg u "/proc/$HOLDER/ns/user" --arg p "/proc/$HOLDER/ns/pid_for_children" \
		'.linux.namespaces |= map(select(.type != "pid")) + [{type: "user", path: $u}, {type: "pid", path: $p}]'
}

@test "the joined namespace's maps apply; mount, net, uts, ipc, cgroup are new and belong to it" {
	hold_userns
	join_holder
	# proc, sysfs, mqueue and cgroup2 mount only where the container's
	# root owns the pid, net, ipc and cgroup namespaces.
	sh_cmd 'readlink /proc/self/ns/user; readlink /proc/self/ns/pid; cat /proc/self/uid_map | tr -s " "; id -u; hostname
		ls /sys/class/net; for t in mnt net uts ipc cgroup; do readlink /proc/self/ns/$t; done'
	run_shim
	assert_status 0
	local lines t
	mapfile -t lines <<<"$output"
	assert_eq "${lines[*]:0:6}" "$(readlink "/proc/$HOLDER/ns/user") $(readlink "/proc/$HOLDER/ns/pid_for_children") \
 0 200000 65536 0 hello lo"
	for t in 6 7 8 9 10; do
		if [ "${lines[t]}" = "$(readlink "/proc/self/ns/${lines[t]%%:*}")" ]; then
			echo "the host's namespace: ${lines[t]}" >&2
			return 1
		fi
	done
}

@test "a new pid namespace inside a joined user namespace is refused" {
	hold_userns
	cfg --arg u "/proc/$HOLDER/ns/user" '.linux.namespaces += [{type: "user", path: $u}]'
	run_shim
	assert_error "$BUNDLE/config.json: linux.namespaces: a new \`pid\` namespace inside a \`user\` namespace joined by path is not supported: join a pid namespace by path too"
}

@test "uidMappings given with a joined namespace are ignored, with a warning" {
	hold_userns
	join_holder
	cfg '.linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65536}]'
	sh_cmd 'cat /proc/self/uid_map | tr -s " "'
	run_shim
	assert_status 0
	assert_eq "$output" " 0 200000 65536"
	assert_contains "$stderr" "linux.uidMappings: ignored: the user namespace joined by path has its own mappings"
}

@test "the user namespace is joined first: a namespace it does not own cannot be joined after it" {
	hold_userns
	join_holder
	# The host's uts namespace belongs to the host's user namespace: from
	# inside the joined one, setns into it is refused.  Joined before
	# the user namespace it would have worked, with the host's powers.
	cfg --arg p "/proc/$$/ns/uts" '.linux.namespaces |= map(select(.type != "uts")) + [{type: "uts", path: $p}]
		| del(.hostname)'
	run_shim
	local i
	i=$(jq '.linux.namespaces | map(.type) | index("uts")' "$BUNDLE/config.json")
	assert_error "linux.namespaces[$i]: join \`/proc/$$/ns/uts\`: Operation not permitted"
}
