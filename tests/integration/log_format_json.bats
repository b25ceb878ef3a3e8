#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The global options as engines pass them before the command: --root DIR,
# --log FILE, --log-format json.  On an error the log's last line is one
# JSON object, {"level":"error","msg":...,"time":...}, whatever command
# failed; the message is the one printed on stderr.

load helpers
load lifecycle_helpers

# g ARGS...: shim with the global options an engine gives.
g() {
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" --log "$T/log.json" --log-format json "$@"
}

# last_error MSG: the log's last line is {"level":"error","msg":MSG,...}
# and stderr said the same.
last_error() {
	local last
	last=$(tail -n 1 "$T/log.json")
	jq -e 'type == "object"' <<<"$last" >/dev/null || {
		echo "last log line is not a JSON object: $last" >&2
		false
	}
	assert_eq "$(jq -r .level <<<"$last")" error "level"
	assert_eq "$(jq -r .msg <<<"$last")" "$1" "msg"
	jq -e '.time | type == "string"' <<<"$last" >/dev/null
	assert_eq "$stderr" "shim: $1" "stderr"
}

@test "the whole lifecycle with --root, --log, --log-format json: no error logged" {
	sh_cmd 'exec sleep 1000'
	status=0
	g create --bundle "$BUNDLE" --pid-file "$T/pid" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || status=$?
	assert_status 0
	[ -f "$STATE/$ID/state.json" ]
	run --separate-stderr g start "$ID"
	assert_status 0
	run --separate-stderr g state "$ID"
	assert_status 0
	assert_eq "$(jq -r .status <<<"$output")" running
	assert_eq "$(jq -r .pid <<<"$output")" "$(cat "$T/pid")"
	run --separate-stderr g kill "$ID" KILL
	assert_status 0
	wait_status stopped
	wait_no_tagged
	run --separate-stderr g delete "$ID"
	assert_status 0
	[ ! -e "$STATE/$ID" ]
	# Whatever was logged: JSON lines, none an error or a warning.
	if [ -s "$T/log.json" ]; then
		jq -e -s 'all(.[]; (keys == ["level", "msg", "time"]) and (.level == "info" or .level == "debug"))' \
			"$T/log.json" >/dev/null || {
			cat "$T/log.json" >&2
			false
		}
	fi
}

@test "delete logs the verdict of a detached container, as an info line" {
	sh_cmd 'exec sleep 1000'
	ct_up
	shim kill "$ID" KILL
	wait_status stopped
	wait_no_tagged
	run --separate-stderr g delete "$ID"
	assert_status 0
	local line
	line=$(jq -c 'select(.level == "info")' "$T/log.json" | tail -n 1)
	assert_contains "$(jq -r .msg <<<"$line")" "container $ID: "
	assert_contains "$(jq -r .msg <<<"$line")" "verdict {"
}

@test "error: kill of a missing container" {
	run --separate-stderr g kill "$ID" KILL
	assert_status 1
	last_error "container \`$ID\` does not exist"
}

@test "error: state of a missing container" {
	run --separate-stderr g state "$ID"
	assert_status 1
	last_error "container \`$ID\` does not exist"
}

@test "error: a create that fails (the process' cwd is missing)" {
	cfg '.process.cwd = "/nowhere"'
	status=0
	g create --bundle "$BUNDLE" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || status=$?
	stderr=$(cat "$T/ct.err")
	assert_status 1
	last_error 'process.cwd `/nowhere`: No such file or directory'
	[ ! -e "$STATE/$ID" ]
}

@test "error: start and delete of a running container" {
	sh_cmd 'exec sleep 1000'
	ct_up
	run --separate-stderr g start "$ID"
	assert_status 1
	last_error "cannot start container \`$ID\`: it is running"
	run --separate-stderr g delete "$ID"
	assert_status 1
	last_error "cannot delete container \`$ID\`: it is running (stop it first, or use delete --force)"
	# both errors are in the log, one line each
	assert_eq "$(jq -r 'select(.level == "error") | .msg' "$T/log.json" | wc -l)" 2
	ct_cleanup
}

@test "error: exec in a stopped container, kill with a bad signal" {
	sh_cmd 'exit 0'
	ct_up
	wait_status stopped
	run --separate-stderr g exec "$ID" /bin/true
	assert_status 255
	last_error "cannot exec in container \`$ID\`: it is stopped"
	run --separate-stderr g kill "$ID" SIGNOPE
	assert_status 1
	last_error 'kill: `SIGNOPE`: not a signal'
	ct_cleanup
}

@test "error: an unknown command" {
	run --separate-stderr g frobnicate "$ID"
	assert_status 1
	local last
	last=$(tail -n 1 "$T/log.json")
	assert_eq "$(jq -r .level <<<"$last")" error
	assert_eq "$(jq -r .msg <<<"$last")" 'unknown command `frobnicate`'
}

@test "the order of the global options does not matter" {
	run --separate-stderr "$SHIM_BIN" --log-format json --log "$T/log.json" --root "$STATE" state "$ID"
	assert_status 1
	last_error "container \`$ID\` does not exist"
}

@test "--log-format text: the last line is time, level, message, as runc's (logrus) text lines" {
	run --separate-stderr "$SHIM_BIN" --root "$STATE" --log "$T/log.txt" --log-format text state "$ID"
	assert_status 1
	[[ "$(tail -n 1 "$T/log.txt")" =~ ^time=\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\"\ level=error\ msg=\"container\ \`$ID\`\ does\ not\ exist\"$ ]]
}

@test "--debug: debug lines in the log too" {
	sh_cmd 'exec sleep 1000'
	status=0
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" --log "$T/log.json" --log-format json --debug \
		create --bundle "$BUNDLE" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- || status=$?
	assert_status 0
	jq -e -s 'any(.[]; .level == "debug")' "$T/log.json" >/dev/null
	jq -e -s 'all(.[]; .level != "error")' "$T/log.json" >/dev/null
	ct_cleanup
}
