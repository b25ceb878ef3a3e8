#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim run --json ... 2>&1 | head -1`: the reader of the runtime's stderr
# is gone before the verdict is printed.  A broken pipe must never cost the
# cleanup: no SIGPIPE death (status 141) leaving the state dir and the
# cgroup behind; the container's exit code still passes through.  (The
# teardown fails the test on a state dir or cgroup left behind.)

load helpers

setup() {
	shim_setup
	share_dir
}

# The pipe's reader closes its end, then tells the container (which waits
# for that, bounded) that it may exit.
@test "run --json with its stderr reader gone: exit code passes, nothing left behind" {
	sh_cmd 'i=0; until [ -e /tmp/share/closed ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done; exit 3'
	{ shim run --json --bundle "$BUNDLE" "$ID" </dev/null 3>&- 2>&1 && echo 0 >"$T/rc" || echo $? >"$T/rc"; } |
		{ exec <&-; touch "$T/share/closed"; }
	assert_eq "$(cat "$T/rc")" 3 "shim run's exit status"
	[ ! -e "$STATE/$ID" ]
	[ ! -e "/sys/fs/cgroup/unified/shim/$ID" ]
}

@test "run without --json, its stderr reader gone before the verdict's text: the same" {
	sh_cmd 'i=0; until [ -e /tmp/share/closed ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done; exit 5'
	{ shim run --bundle "$BUNDLE" "$ID" </dev/null 3>&- 2>&1 && echo 0 >"$T/rc" || echo $? >"$T/rc"; } |
		{ exec <&-; touch "$T/share/closed"; }
	assert_eq "$(cat "$T/rc")" 5 "shim run's exit status"
	[ ! -e "$STATE/$ID" ]
}
