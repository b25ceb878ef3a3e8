#!/usr/bin/env bats
# The container's stdin, stdout and stderr are the runtime's own file
# descriptors, passed through untouched; nothing else is passed (but
# LISTEN_FDS).

load helpers

@test "stdout redirected to a file: the container writes straight into it" {
	sh_cmd 'echo line one; echo line two'
	shim run --bundle "$BUNDLE" "$ID" >"$T/stdout" 2>"$T/stderr"
	assert_eq "$(cat "$T/stdout")" "line one
line two"
	[ ! -s "$T/stderr" ]
}

@test "stdout and stderr are the runtime's very files, not pipes" {
	sh_cmd 'stat -L -c "%d %i" /proc/self/fd/1 /proc/self/fd/2'
	shim run --bundle "$BUNDLE" "$ID" >"$T/stdout" 2>"$T/stderr"
	assert_eq "$(cat "$T/stdout")" "$(stat -c "%d %i" "$T/stdout" "$T/stderr")"
}

@test "stderr goes to the runtime's stderr" {
	sh_cmd 'echo to-err >&2; echo to-out'
	shim run --bundle "$BUNDLE" "$ID" >"$T/stdout" 2>"$T/stderr"
	assert_eq "$(cat "$T/stdout")" "to-out"
	assert_eq "$(cat "$T/stderr")" "to-err"
}

@test "stdin: piped input reaches the container" {
	sh_cmd 'read line; echo "got: $line"; cat'
	run --separate-stderr bash -c 'printf "hi\nrest\n" | "$@"' _ \
		env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$output" "got: hi
rest"
}

@test "stdin from a file, with the file offset shared" {
	printf 'first\nsecond\n' >"$T/in"
	sh_cmd 'read line; echo "$line"'
	# The container reads one line; the caller's shell reads on from there.
	run --separate-stderr bash -c '{ "$@"; read rest; echo "after: $rest"; } <"$0"' "$T/in" \
		env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$output" "first
after: second"
}

@test "stdin at EOF (/dev/null)" {
	sh_cmd 'if read line; then echo "read: $line"; else echo eof; fi'
	shim run --bundle "$BUNDLE" "$ID" </dev/null >"$T/stdout"
	assert_eq "$(cat "$T/stdout")" "eof"
}

@test "no other file descriptor of the runtime's caller leaks into the container" {
	set_args /bin/ls /proc/self/fd
	shim run --bundle "$BUNDLE" "$ID" >"$T/stdout" 5>"$T/five" 7<"$T/stdout"
	# 0 1 2, and 3: ls's own directory
	assert_eq "$(tr '\n' ' ' <"$T/stdout")" "0 1 2 3 "
}

@test "LISTEN_FDS=1 passes fd 3 through (socket activation)" {
	echo through-fd-3 >"$T/three"
	cfg --arg tag "SHIM_TEST_TAG=$TAG" '.process.env = ["LISTEN_FDS=1", $tag]'
	sh_cmd 'cat <&3'
	shim run --bundle "$BUNDLE" "$ID" >"$T/stdout" 3<"$T/three"
	assert_eq "$(cat "$T/stdout")" "through-fd-3"
}
