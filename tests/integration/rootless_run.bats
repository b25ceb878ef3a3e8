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
