#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# --debug and where the log goes, as runc: the log is the --log FILE, or
# stderr without one; its lines are runc's (logrus) text lines,
#   time="..." level=debug msg="..."
# or, with --log-format json, {"level":"debug","msg":...,"time":...}.
# Debug lines only with --debug.  Errors and warnings are also printed on
# stderr as "shim: msg", unless stderr is itself the JSON log.

load helpers

TEXT_LINE='^time="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z" level=(error|warning|info|debug) msg=".*"$'

# all_json FILE: every line of FILE is one {level, msg, time} object.
all_json() {
	jq -e -s 'length > 0 and all(.[]; type == "object" and keys == ["level", "msg", "time"])' "$1" >/dev/null || {
		cat "$1" >&2
		false
	}
}

@test "--debug without --log: debug lines on stderr, as runc's text lines" {
	run --separate-stderr shim --debug run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
	grep -qE "^time=\"[^\"]+\" level=debug msg=\"container $ID: init is pid [0-9]+\"$" <<<"$stderr" || {
		echo "no debug line for init's pid in: $stderr" >&2
		false
	}
	# every line of stderr is a log line
	assert_eq "$(grep -cvE "$TEXT_LINE" <<<"$stderr")" 0 "stderr lines that are not log lines"
}

@test "without --debug: no debug line anywhere" {
	run --separate-stderr shim --log "$T/log" run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	[ ! -s "$T/log" ]
	run --separate-stderr shim run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$stderr" ""
}

@test "--debug --log FILE: the debug lines go to the file, in text, not to stderr" {
	run --separate-stderr shim --debug --log "$T/log" run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$stderr" ""
	grep -qE "^time=\"[^\"]+\" level=debug msg=\"container $ID: cgroup [^\"]+\"$" "$T/log" || {
		cat "$T/log" >&2
		false
	}
	assert_eq "$(grep -cvE "$TEXT_LINE" "$T/log")" 0 "log lines not in runc's text form"
}

@test "--debug --log-format json without --log: stderr is the JSON log" {
	run --separate-stderr shim --debug --log-format json run --bundle "$BUNDLE" "$ID"
	assert_status 0
	printf '%s\n' "$stderr" >"$T/stderr"
	all_json "$T/stderr"
	jq -e -s --arg m "container $ID: init is pid " \
		'any(.[]; .level == "debug" and (.msg | startswith($m)))' "$T/stderr" >/dev/null
}

@test "--log-format json without --log: an error is one JSON line on stderr" {
	run --separate-stderr shim --log-format json state "$ID"
	assert_status 1
	assert_eq "$output" ""
	assert_eq "$(wc -l <<<"$stderr")" 1 "lines on stderr"
	assert_eq "$(jq -r .level <<<"$stderr")" error
	assert_eq "$(jq -r .msg <<<"$stderr")" "container \`$ID\` does not exist"
	assert_eq "$(jq -c keys <<<"$stderr")" '["level","msg","time"]'
}

@test "--log-format json without --log: warnings are JSON lines on stderr too" {
	cfg '.linux.intelRdt = {}'
	run --separate-stderr shim --log-format json run --bundle "$BUNDLE" "$ID"
	assert_status 0
	printf '%s\n' "$stderr" >"$T/stderr"
	all_json "$T/stderr"
	assert_eq "$(jq -r 'select(.level == "warning") | .msg' "$T/stderr" | cut -d: -f1,2)" "config.json: linux.intelRdt"
}

@test "text log: a message with quotes, a backslash and a newline stays one quoted line" {
	cfg '.process.args = ["/bin/\"q\"\\b\nname"]'
	run --separate-stderr shim --log "$T/log" run --bundle "$BUNDLE" "$ID"
	assert_status 1
	assert_eq "$(wc -l <"$T/log")" 1 "lines in the log"
	assert_eq "$(sed -E 's/^time="[^"]+" //' "$T/log")" \
		'level=error msg="process.args[0] \"/bin/\"q\"\\b\nname\": not found in the container: no such file or directory"'
}

@test "shim-oom-hook: the same log, its error a JSON line on stderr with --log-format json" {
	# Not a hook call (no state on stdin): the error is the line to check,
	# in the format of the log it was given.
	run --separate-stderr "$REPO/shim-oom-hook" --debug --log-format json createRuntime </dev/null
	assert_status 1
	printf '%s\n' "$stderr" >"$T/stderr"
	all_json "$T/stderr"
	jq -e -s 'any(.[]; .level == "error")' "$T/stderr" >/dev/null
}
