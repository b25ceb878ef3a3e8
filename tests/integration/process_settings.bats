#!/usr/bin/env bats
# process.*: user (uid, gid, additionalGids, umask), rlimits, cwd, env and
# the PATH lookup, noNewPrivileges, oomScoreAdj, args.

load helpers

# The value of a field of the container's /proc/self/status in $output.
status_field() {
	awk -v f="$1:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' <<<"$output"
}

@test "uid, gid and additionalGids are applied (real, effective, saved, fs)" {
	cfg '.process.user = {uid: 1000, gid: 1001, additionalGids: [5, 1002]}'
	set_args /bin/cat /proc/self/status
	run_shim
	assert_status 0
	assert_eq "$(status_field Uid)" "1000 1000 1000 1000" "Uid"
	assert_eq "$(status_field Gid)" "1001 1001 1001 1001" "Gid"
	assert_eq "$(status_field Groups)" "5 1002" "Groups"
}

@test "id in the container agrees" {
	cfg '.process.user = {uid: 65534, gid: 65534, additionalGids: [5]}'
	sh_cmd 'id -u; id -g; id -G'
	run_shim
	assert_status 0
	assert_eq "$output" "65534
65534
65534 5"
}

@test "no additionalGids: no supplementary groups, not the runtime's" {
	set_args /bin/cat /proc/self/status
	# the runtime itself in groups 4 and 24
	run --separate-stderr setpriv --groups 4,24 \
		env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$(status_field Groups)" "" "Groups"
	assert_eq "$(status_field Uid)" "0 0 0 0" "Uid"
}

@test "umask is applied" {
	cfg '.process.user.umask = 63'
	sh_cmd 'umask; touch /tmp/f; stat -c %a /tmp/f'
	run_shim
	assert_status 0
	assert_eq "$output" "0077
600"
}

@test "without a umask the process gets 0022, whatever the runtime's own" {
	umask 0077
	sh_cmd 'umask'
	run_shim
	umask 0022
	assert_status 0
	assert_eq "$output" "0022"
}

@test "noNewPrivileges true sets NoNewPrivs, false leaves it off" {
	set_args /bin/cat /proc/self/status
	run_shim
	assert_status 0
	assert_eq "$(status_field NoNewPrivs)" 1
	cfg '.process.noNewPrivileges = false'
	run_shim
	assert_status 0
	assert_eq "$(status_field NoNewPrivs)" 0
}

@test "rlimits are applied: soft and hard, several types, 2^64-1 is unlimited" {
	# jq would turn 2^64-1 into a float: put it in with sed.
	cfg '.process.rlimits = [
		{type: "RLIMIT_NOFILE", soft: 512, hard: 1000},
		{type: "RLIMIT_CORE", soft: "U64MAX", hard: "U64MAX"},
		{type: "RLIMIT_NPROC", soft: 300, hard: 400}]'
	sh_cmd 'ulimit -n; ulimit -Hn; ulimit -c; ulimit -u; ulimit -Hu'
	# (last: another jq edit would round it again)
	sed -i 's/"U64MAX"/18446744073709551615/g' "$BUNDLE/config.json"
	run_shim
	assert_status 0
	assert_eq "$output" "512
1000
unlimited
300
400"
}

@test "an rlimit above the runtime's own hard limit fails, naming process.rlimits[i]" {
	# This machine's root lacks CAP_SYS_RESOURCE: a hard limit cannot be
	# raised.  Where it has it, there is nothing to test here.
	local capeff
	capeff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
	if (((0x$capeff >> 24) & 1)); then
		skip "the runtime may raise hard limits here (it has CAP_SYS_RESOURCE)"
	fi
	local hard want
	hard=$(ulimit -Hn)
	want=$((hard + 1000))
	cfg --argjson n "$want" '.process.rlimits = [
		{type: "RLIMIT_CORE", soft: 0, hard: 0},
		{type: "RLIMIT_NOFILE", soft: $n, hard: $n}]'
	run_shim
	assert_error "process.rlimits[1]: hard limit $want is above the runtime's own $hard, and raising it needs CAP_SYS_RESOURCE"
}

@test "oomScoreAdj is applied" {
	cfg '.process.oomScoreAdj = 500'
	set_args /bin/cat /proc/self/oom_score_adj
	run_shim
	assert_status 0
	assert_eq "$output" "500"
}

@test "cwd is applied" {
	cfg '.process.cwd = "/usr/bin"'
	set_args /bin/pwd
	run_shim
	assert_status 0
	assert_eq "$output" "/usr/bin"
}

@test "a cwd that does not exist in the container is an error naming process.cwd" {
	cfg '.process.cwd = "/no/such/dir"'
	run_shim
	assert_error "process.cwd \`/no/such/dir\`: No such file or directory"
}

@test "env is exactly process.env" {
	cfg --arg tag "SHIM_TEST_TAG=$TAG" '.process.env = ["A=1", "B=with spaces", "EMPTY=", $tag]'
	set_args /usr/bin/env
	FROM_THE_HOST=leak run_shim
	assert_status 0
	assert_eq "$(sort <<<"$output")" "$(printf '%s\n' "A=1" "B=with spaces" "EMPTY=" "SHIM_TEST_TAG=$TAG" | sort)"
}

@test "args reach the process unchanged" {
	set_args /bin/echo "two  spaces" '$HOME' '"quoted"' ''
	run_shim
	assert_status 0
	assert_eq "$output" 'two  spaces $HOME "quoted" '
}

@test "the program is looked up in the container's PATH" {
	# A directory only the container has on its PATH: neither the host's
	# PATH nor a default one would find the program.
	mkdir "$T/mybin"
	printf '#!/bin/sh\necho found via the container PATH\n' >"$T/mybin/only-here"
	chmod +x "$T/mybin/only-here"
	add_mount /tmp/mybin bind "$T/mybin" bind ro
	cfg --arg tag "SHIM_TEST_TAG=$TAG" '.process.env = ["PATH=/nowhere:/tmp/mybin", $tag]'
	set_args only-here
	run_shim
	assert_status 0
	assert_eq "$output" "found via the container PATH"
}

@test "a program not on the container's PATH is not found, even if the host's has it" {
	cfg --arg tag "SHIM_TEST_TAG=$TAG" '.process.env = ["PATH=/nowhere", $tag]'
	set_args sh -c 'echo ran'
	run_shim
	assert_error 'process.args[0] "sh": executable file not found in $PATH in the container'
}

@test "without PATH in env the default PATH is searched" {
	cfg --arg tag "SHIM_TEST_TAG=$TAG" '.process.env = [$tag]'
	set_args sysctl -n kernel.ostype
	run_shim
	assert_status 0
	assert_eq "$output" "Linux"
}

@test "an empty PATH entry is the working directory" {
	cfg --arg tag "SHIM_TEST_TAG=$TAG" '.process.env = ["PATH=/nowhere:", $tag] | .process.cwd = "/sbin"'
	set_args sysctl -n kernel.ostype
	run_shim
	assert_status 0
	assert_eq "$output" "Linux"
}
