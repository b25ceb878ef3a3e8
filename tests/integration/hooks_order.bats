#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# config.json hooks: prestart, createRuntime and createContainer during
# create, startContainer during start (in the container, before the
# process), poststart after it, poststop at delete -- each with the state
# JSON on stdin, its own args and env.

load helpers
load lifecycle_helpers

# log_hook STAGE: a hook that appends STAGE to the shared hooks.log and
# saves its stdin as state.STAGE.json.  startContainer runs inside the
# container, after pivot_root: it sees the shared dir at /tmp/share.
log_hook() {
	local d=$T/share
	[ "$1" = startContainer ] && d=/tmp/share
	sh_hook "$1" "echo $1 >>$d/hooks.log; cat >$d/state.$1.json"
}

all_stages() {
	local s
	for s in prestart createRuntime createContainer startContainer poststart poststop; do
		log_hook "$s"
	done
}

setup() {
	shim_setup
	BG_PIDS=()
	share_dir
	sh_cmd 'echo workload >>/tmp/share/hooks.log; exec sleep 1000'
}

# log_lines: hooks.log as one line of space-separated words.
log_lines() {
	tr '\n' ' ' <"$T/share/hooks.log" | sed 's/ $//'
}

@test "the six stages run in the spec's order" {
	all_stages
	ct_create_ok --pid-file "$T/pid"
	assert_eq "$(log_lines)" "prestart createRuntime createContainer" "after create"
	ct_start_ok
	# poststart ran before start returned; the workload runs on its own.
	wait_line "$T/share/hooks.log" workload
	local log
	log=$(log_lines)
	[[ "$log" == "prestart createRuntime createContainer startContainer workload poststart" ||
		"$log" == "prestart createRuntime createContainer startContainer poststart workload" ]] || {
		echo "hooks.log: $log" >&2
		false
	}
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	assert_eq "$(tail -1 "$T/share/hooks.log")" poststop
	assert_eq "$(grep -c . "$T/share/hooks.log")" 7 "lines in hooks.log"
	wait_no_tagged
}

@test "every hook gets the state JSON on stdin: ociVersion, id, pid, bundle" {
	all_stages
	ct_create_ok --pid-file "$T/pid"
	ct_start_ok
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	local s f pid
	pid=$(cat "$T/pid")
	for s in prestart createRuntime createContainer startContainer poststart poststop; do
		f=$T/share/state.$s.json
		jq -e . "$f" >/dev/null || {
			echo "$s: no state JSON: $(cat "$f")" >&2
			false
		}
		assert_eq "$(jq -r .ociVersion "$f")" 1.2.0 "$s: ociVersion"
		assert_eq "$(jq -r .id "$f")" "$ID" "$s: id"
		assert_eq "$(jq -r .bundle "$f")" "$(realpath "$BUNDLE")" "$s: bundle"
		if [ "$s" = poststop ]; then
			assert_eq "$(jq -r .pid "$f")" 0 "$s: pid (stopped)"
		else
			assert_eq "$(jq -r .pid "$f")" "$pid" "$s: pid"
		fi
	done
	wait_no_tagged
}

@test "the state's status: creating during create, running for poststart, stopped for poststop" {
	all_stages
	ct_up
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	local s
	for s in prestart createRuntime createContainer; do
		assert_eq "$(jq -r .status "$T/share/state.$s.json")" creating "$s: status"
	done
	assert_eq "$(jq -r .status "$T/share/state.poststart.json")" running "poststart: status"
	assert_eq "$(jq -r .status "$T/share/state.poststop.json")" stopped "poststop: status"
	wait_no_tagged
}

@test "startContainer sees the container created (create has finished), as runc passes it" {
	log_hook startContainer
	ct_up
	wait_file "$T/share/state.startContainer.json"
	ct_cleanup
	# runtime-spec: "created" is the status from the end of create until
	# the process runs; runc's init passes it to startContainer hooks.
	assert_eq "$(jq -r .status "$T/share/state.startContainer.json")" created "startContainer: status"
	assert_eq "$(jq -r .id "$T/share/state.startContainer.json")" "$ID" "startContainer: id"
}

@test "a hook's args (argv[0] included) and env are the config's, nothing of the runtime's" {
	local script='tr "\0" " " </proc/$$/cmdline >"$OUT.cmdline"; env | sort >"$OUT.env"'
	add_hook prestart "$(hook_json /bin/sh custom-argv0 -c "$script" zero one \
		--env "OUT=$T/share/pre" --env HOOKVAR=hook-value --env "SHIM_TEST_TAG=$TAG")"
	add_hook poststop "$(hook_json /bin/sh other-argv0 -c "$script" \
		--env "OUT=$T/share/post" --env "SHIM_TEST_TAG=$TAG")"
	ct_create_ok
	assert_eq "$(cat "$T/share/pre.cmdline")" "custom-argv0 -c $script zero one "
	# dash adds PWD of its own
	assert_eq "$(grep -v '^PWD=' "$T/share/pre.env")" "HOOKVAR=hook-value
OUT=$T/share/pre
SHIM_TEST_TAG=$TAG"
	ct_cleanup
	assert_eq "$(cat "$T/share/post.cmdline")" "other-argv0 -c $script "
	assert_eq "$(grep -v '^PWD=' "$T/share/post.env")" "OUT=$T/share/post
SHIM_TEST_TAG=$TAG"
}

@test "a hook without env gets an empty environment" {
	add_hook prestart "$(hook_json /bin/sh sh -c "env >$T/share/env")"
	ct_create_ok
	assert_eq "$(grep -v '^PWD=' "$T/share/env")" ""
	ct_cleanup
}

@test "hooks of one stage run in the order given" {
	sh_hook prestart "echo first >>$T/share/hooks.log"
	sh_hook prestart "echo second >>$T/share/hooks.log"
	sh_hook prestart "echo third >>$T/share/hooks.log"
	ct_create_ok
	assert_eq "$(log_lines)" "first second third"
	ct_cleanup
}

@test "createContainer runs in the container's namespaces, createRuntime in the runtime's" {
	cfg '.hostname = "hooked"'
	sh_hook createRuntime "hostname >$T/share/cr.host; readlink /proc/self/ns/uts >$T/share/cr.uts"
	sh_hook createContainer "hostname >$T/share/cc.host; readlink /proc/self/ns/uts >$T/share/cc.uts"
	ct_create_ok --pid-file "$T/pid"
	assert_eq "$(cat "$T/share/cr.uts")" "$(readlink /proc/self/ns/uts)" "createRuntime's uts namespace"
	assert_eq "$(cat "$T/share/cc.uts")" "$(readlink "/proc/$(cat "$T/pid")/ns/uts")" "createContainer's uts namespace"
	assert_eq "$(cat "$T/share/cc.host")" hooked
	ct_cleanup
}

@test "poststop hooks are the ones of create, even if the bundle changed since" {
	log_hook poststop
	ct_up
	cfg 'del(.hooks)'
	ct_stop
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$(log_lines)" "workload poststop"
	wait_no_tagged
}

@test "shim run (foreground) runs all six stages too" {
	all_stages
	sh_cmd 'echo workload >>/tmp/share/hooks.log'
	run_shim
	assert_status 0
	local log
	log=$(log_lines)
	[[ "$log" == "prestart createRuntime createContainer startContainer workload poststart poststop" ||
		"$log" == "prestart createRuntime createContainer startContainer poststart workload poststop" ]] || {
		echo "hooks.log: $log" >&2
		false
	}
	assert_eq "$(jq -r .status "$T/share/state.poststop.json")" stopped
}
