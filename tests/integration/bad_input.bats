#!/usr/bin/env bats
# Every bad input fails with exit status 1, one exact message on stderr, and
# leaves nothing behind (the teardown checks state, mounts, processes,
# cgroups).

load helpers

@test "a bundle that does not exist" {
	BUNDLE=$T/no-such-bundle
	run_shim
	assert_error "bundle \`$T/no-such-bundle\`: No such file or directory"
}

@test "a bundle without config.json" {
	rm "$BUNDLE/config.json"
	run_shim
	assert_error "$BUNDLE/config.json: No such file or directory"
}

@test "a malformed config.json: its line and column" {
	printf '{\n  "ociVersion": "1.0.2",\n  "process": {\n    "args": ["/bin/sh",],\n' >"$BUNDLE/config.json"
	run_shim
	assert_error "$BUNDLE/config.json: line 4, column 24: malformed JSON: parse error: unallowed token at this point in JSON text"
}

@test "a truncated config.json" {
	# cut inside the string of args[2], on line 12 after 40 bytes
	head -c 200 "$REPO/examples/hello/config.json" >"$BUNDLE/config.json"
	run_shim
	assert_error "$BUNDLE/config.json: line 12, column 41: malformed JSON: parse error: premature EOF"
}

@test "a value of the wrong type: its JSON path" {
	cfg '.process.args[0] = 42'
	run_shim
	assert_error "$BUNDLE/config.json: process.args[0]: expected string, got number"
	cfg '.process.args[0] = "/bin/sh" | .mounts[3].options[1] = false'
	run_shim
	assert_error "$BUNDLE/config.json: mounts[3].options[1]: expected string, got boolean"
	cfg '.mounts[3].options[1] = "noexec" | .process.user.uid = "root"'
	run_shim
	assert_error "$BUNDLE/config.json: process.user.uid: expected non-negative integer, got string"
}

@test "an unknown namespace type" {
	cfg '.linux.namespaces += [{type: "pidfd"}]'
	run_shim
	assert_error "$BUNDLE/config.json: linux.namespaces[6].type: unknown namespace type \`pidfd\`"
}

@test "a missing required field" {
	cfg 'del(.process.cwd)'
	run_shim
	assert_error "$BUNDLE/config.json: process.cwd: required"
}

@test "a rootfs that does not exist" {
	cfg --arg r "$T/no-rootfs" '.root.path = $r'
	run_shim
	assert_error "root.path \`$T/no-rootfs\`: No such file or directory"
}

@test "a rootfs that is a file" {
	touch "$T/file"
	cfg --arg r "$T/file" '.root.path = $r'
	run_shim
	assert_error "root.path \`$T/file\`: not a directory"
}

@test "an executable that does not exist in the container" {
	set_args /bin/nope
	run_shim
	assert_error 'process.args[0] "/bin/nope": not found in the container: no such file or directory'
}

@test "an executable on the host only" {
	# The runtime's own binary exists on the host, not in the container.
	set_args "$SHIM_BIN"
	run_shim
	assert_error "process.args[0] \"$SHIM_BIN\": not found in the container: no such file or directory"
}

@test "a file that is not executable" {
	set_args /etc/passwd
	run_shim
	assert_error 'process.args[0] "/etc/passwd": exec: Permission denied'
}

@test "a bind mount whose source does not exist" {
	add_mount /tmp/data bind "$T/no-source" rbind
	run_shim
	assert_error "mounts[8].source \`$T/no-source\`: No such file or directory"
}

@test "a mount the kernel refuses: its index and destination" {
	add_mount /tmp/bad tmpfs tmpfs size=lots
	run_shim
	assert_error "mounts[8]: mount \`tmpfs\` on \`/tmp/bad\` (type tmpfs): Invalid argument"
}

@test "an invalid container id" {
	run --separate-stderr shim run --bundle "$BUNDLE" 'bad id'
	assert_status 1
	assert_contains "$stderr" "container id \`bad id\`: only letters, digits and \`_-.+\` are allowed"
	assert_eq "$(wc -l <<<"$stderr")" 1
}

@test "an id already in use (its state dir exists): refused, the other's state kept" {
	mkdir -p "$STATE/$ID"
	touch "$STATE/$ID/marker"
	run_shim
	assert_status 1
	assert_eq "$stderr" "shim: container \`$ID\` already exists (state in \`$STATE/$ID\`)"
	assert_eq "$output" ""
	[ -e "$STATE/$ID/marker" ]
	rm -r "${STATE:?}/$ID"
}

@test "an id already in use by a running container: refused, the first one unharmed" {
	share_dir
	START_ENV=(--default-signal=INT,QUIT)
	sh_cmd 'trap "echo first done; exit 0" TERM; echo ready >/tmp/share/ready; sleep 1000 & wait'
	start_bg
	wait_ready
	[ -d "$STATE/$ID" ]
	# the same id, another bundle
	local first=$BUNDLE
	BUNDLE=$T/second
	make_bundle hello
	run_shim
	assert_status 1
	assert_eq "$stderr" "shim: container \`$ID\` already exists (state in \`$STATE/$ID\`)"
	assert_eq "$output" ""
	# The first is still running, its state still there.
	[ -d "$STATE/$ID" ]
	kill -0 "$SHIM_PID"
	kill -TERM "$SHIM_PID"
	wait_shim
	assert_status 0
	assert_eq "$(cat "$T/out")" "first done"
	[ ! -e "$STATE/$ID" ]
	BUNDLE=$first
}

@test "an unknown option of run" {
	run --separate-stderr shim run --bogus --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "run: unknown option"
}

@test "an unknown command" {
	run --separate-stderr shim frobnicate
	assert_status 1
	assert_eq "${stderr%%$'\n'*}" "shim: unknown command \`frobnicate\`"
}
