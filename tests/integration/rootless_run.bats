#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# An ordinary user runs a bundle from `shim spec --rootless`, as with runc:
# state under $XDG_RUNTIME_DIR/shim, and, where the user may not make a
# cgroup (nothing is delegated to it on this hybrid host), no cgroup at all
# when no limit asks for one; a limit it cannot have is refused, saying
# why.  The user is nobody (65534), through setpriv.

load helpers

teardown() {
	if [ -n "${RL:-}" ]; then
		rm -rf "$RL"
	fi
	shim_teardown
}

rootless_setup() {
	# nobody must reach the bundle and write its runtime directory: bats'
	# own temporary directories are root's alone.
	RL=$(mktemp -d /tmp/shim-rootless.XXXXXX)
	chmod 0755 "$RL"
	mkdir -p "$RL/bundle" "$RL/xdg"
	chown -R 65534:65534 "$RL"
	as_nobody sh -c 'cd "$1" && "$2" spec --rootless' _ "$RL/bundle" "$SHIM_BIN"
	jq --arg root "$ROOTFS" --arg tag "SHIM_TEST_TAG=$TAG" \
		'.root.path = $root | .process.terminal = false | .process.env += [$tag]
		 | .process.args = ["/bin/echo", "hello from nobody"]' \
		"$RL/bundle/config.json" >"$RL/config.json.new"
	mv "$RL/config.json.new" "$RL/bundle/config.json"
	chown 65534:65534 "$RL/bundle/config.json"
}

# as_nobody CMD...: CMD as uid and gid 65534, no supplementary groups,
# with the user's runtime and data directories (the verdict history is
# then the user's default one, $XDG_DATA_HOME/shim/history).
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u SHIM_HISTORY_DIR XDG_RUNTIME_DIR="$RL/xdg" XDG_DATA_HOME="$RL/data" "$@"
}

@test "spec --rootless maps the calling user to root in the container" {
	rootless_setup
	assert_eq "$(jq -c .linux.uidMappings "$RL/bundle/config.json")" '[{"containerID":0,"hostID":65534,"size":1}]'
}

@test "an ordinary user runs a rootless bundle: no cgroup where none may be made, state in \$XDG_RUNTIME_DIR/shim" {
	rootless_setup
	run --separate-stderr as_nobody "$SHIM_BIN" run --json --bundle "$RL/bundle" "$ID"
	echo "$stderr"
	assert_status 0
	assert_eq "$output" "hello from nobody"
	assert_eq "$(jq -r .reason <<<"$stderr")" Exited
	assert_contains "$(jq -r .message <<<"$stderr")" "had no cgroup"
	[ -d "$RL/xdg/shim" ]
	assert_eq "$(stat -c %U "$RL/xdg/shim")" nobody
	# Gone with the container.
	assert_eq "$(ls -A "$RL/xdg/shim")" ""
	# The verdict kept in the user's own history.
	assert_eq "$(as_nobody "$SHIM_BIN" verdicts --json "$ID" | jq -r '.[0].verdict.reason')" Exited
	assert_eq "$(stat -c %U "$RL/data/shim/history")" nobody
	run find /sys/fs/cgroup -maxdepth 3 -name "$ID"
	assert_eq "$output" ""
}

@test "a rootless bundle with a memory limit the user cannot have is refused, saying why" {
	rootless_setup
	jq '.linux.resources = {memory: {limit: 67108864}}' "$RL/bundle/config.json" >"$RL/c.json"
	cp "$RL/c.json" "$RL/bundle/config.json"
	run --separate-stderr as_nobody "$SHIM_BIN" run --bundle "$RL/bundle" "$ID"
	assert_status 1
	assert_contains "$stderr" "the memory limit needs a cgroup this user may not make"
	assert_contains "$stderr" "delegated to its user"
	run find /sys/fs/cgroup -maxdepth 3 -name "$ID"
	assert_eq "$output" ""
}

# in_userns SCRIPT ARGS...: SCRIPT by sh as root of a user namespace of
# nobody's own, as rootless podman runs the runtime's start, kill and
# delete (no $USER): rootless although the effective uid is 0.
in_userns() {
	as_nobody unshare --user --map-root-user env -u USER sh -euc "$@"
}

@test "root of the user's own user namespace is rootless (podman's environment): state in \$XDG_RUNTIME_DIR/shim, no cgroup" {
	rootless_setup
	# As podman gives it: no user namespace of the container's own.
	jq 'del(.linux.uidMappings, .linux.gidMappings) | .linux.namespaces -= [{type: "user"}]' \
		"$RL/bundle/config.json" >"$RL/c.json"
	cp "$RL/c.json" "$RL/bundle/config.json"
	run --separate-stderr in_userns '"$1" run --json --bundle "$2" "$3"; ls -A "$XDG_RUNTIME_DIR"' \
		_ "$SHIM_BIN" "$RL/bundle" "$ID"
	echo "$stderr"
	assert_status 0
	assert_eq "${lines[0]}" "hello from nobody"
	assert_eq "${lines[1]}" shim
	assert_contains "$(jq -r .message <<<"$stderr")" "had no cgroup"
	assert_eq "$(as_nobody "$SHIM_BIN" verdicts --json "$ID" | jq -r '.[0].verdict.reason')" Exited
}

@test "exec as root of the user's namespace joins the container's pid namespace (through a helper)" {
	rootless_setup
	jq 'del(.linux.uidMappings, .linux.gidMappings) | .linux.namespaces -= [{type: "user"}]
	    | .process.args = ["/bin/sleep", "600"]' "$RL/bundle/config.json" >"$RL/c.json"
	cp "$RL/c.json" "$RL/bundle/config.json"
	# One user namespace for create, exec and delete, as podman's: the
	# container's pid namespace is its, the host's is not.
	run --separate-stderr in_userns '
		"$1" create --bundle "$2" "$3" </dev/null >/dev/null 2>&1
		"$1" start "$3"
		pid=$("$1" state "$3" | sed -n "s/.*\"pid\": *\([0-9]*\).*/\1/p")
		echo "init $(readlink /proc/$pid/ns/pid)"
		"$1" exec "$3" /bin/sh -c "echo exec \$(readlink /proc/self/ns/pid) \$\$" || echo "exec failed: $?"
		"$1" delete --force "$3"' _ "$SHIM_BIN" "$RL/bundle" "$ID"
	echo "$output"
	echo "$stderr"
	assert_status 0
	local init=${lines[0]#init }
	assert_contains "$init" "pid:["
	# The exec'd process: in init's pid namespace, where its pid is small.
	assert_eq "$(cut -d' ' -f2 <<<"${lines[1]}")" "$init"
	[ "$(cut -d' ' -f3 <<<"${lines[1]}")" -lt 100 ]
	assert_eq "$(ls -A "$RL/xdg/shim")" ""
}
