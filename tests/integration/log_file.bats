#!/usr/bin/env bats
# --log FILE [--log-format text|json]: errors and warnings go to the file
# too, one line each; json lines are {"level","msg","time"}.

load helpers

@test "--log-format json: an error is one {level, msg, time} line" {
	set_args /bin/nope
	run --separate-stderr shim --log "$T/log.json" --log-format json run --bundle "$BUNDLE" "$ID"
	assert_error 'process.args[0] "/bin/nope": not found in the container: no such file or directory'
	assert_eq "$(wc -l <"$T/log.json")" 1 "lines in the log"
	jq -e '.level == "error"' "$T/log.json" >/dev/null
	assert_eq "$(jq -r .msg "$T/log.json")" 'process.args[0] "/bin/nope": not found in the container: no such file or directory'
	jq -e '.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$")' \
		"$T/log.json" >/dev/null
	assert_eq "$(jq -c 'keys' "$T/log.json")" '["level","msg","time"]'
}

@test "--log-format json: a message with quotes and a newline stays one valid line" {
	cfg '.process.args = ["/bin/\"quoted\"\nname"]'
	run --separate-stderr shim --log "$T/log.json" --log-format json run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_eq "$(wc -l <"$T/log.json")" 1 "lines in the log"
	assert_eq "$(jq -r .msg "$T/log.json")" 'process.args[0] "/bin/"quoted"
name": not found in the container: no such file or directory'
}

@test "--log text: time, level, message, as runc's (logrus) text lines" {
	cfg '.process.cwd = "/nowhere"'
	run --separate-stderr shim --log "$T/log.txt" run --bundle "$BUNDLE" "$ID"
	assert_error 'process.cwd `/nowhere`: No such file or directory'
	assert_eq "$(wc -l <"$T/log.txt")" 1 "lines in the log"
	[[ "$(cat "$T/log.txt")" =~ ^time=\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\"\ level=error\ msg=\"process\.cwd\ \`/nowhere\`:\ No\ such\ file\ or\ directory\"$ ]]
}

@test "the log is appended to, not truncated" {
	set_args /bin/nope
	run --separate-stderr shim --log "$T/log.json" --log-format json run --bundle "$BUNDLE" "$ID"
	assert_error 'process.args[0] "/bin/nope": not found in the container: no such file or directory'
	run --separate-stderr shim --log "$T/log.json" --log-format json run --bundle "$BUNDLE" "$ID"
	assert_error 'process.args[0] "/bin/nope": not found in the container: no such file or directory'
	assert_eq "$(jq -s 'length' "$T/log.json")" 2
}

@test "warnings are logged by name, and printed on stderr" {
	cfg '.process.ioPriority = {class: "IOPRIO_CLASS_IDLE"} | .linux.intelRdt = {}'
	run --separate-stderr shim --log "$T/log.json" --log-format json run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$(jq -r 'select(.level == "warning") | .msg' "$T/log.json" | cut -d: -f1,2)" "config.json: process.ioPriority
config.json: linux.intelRdt"
	assert_contains "$stderr" "shim: warning: config.json: process.ioPriority: "
	assert_contains "$stderr" "shim: warning: config.json: linux.intelRdt: "
}

@test "a clean run logs nothing, and the container's output never goes to the log" {
	run --separate-stderr shim --log "$T/log.json" --log-format json run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
	[ ! -s "$T/log.json" ]
}

@test "--log-format that is neither text nor json is refused" {
	run --separate-stderr shim --log "$T/log" --log-format yaml run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "--log-format: \`yaml\` is neither \`text\` nor \`json\`"
}

@test "--log in a directory that does not exist is refused" {
	run --separate-stderr shim --log "$T/no/dir/log" run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_contains "$stderr" "--log \`$T/no/dir/log\`: No such file or directory"
}
