#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# shim-oom-hook inside Debian's runc on a pure cgroup v1 host (no cgroup2
# mount at all; runc runs there): /proc/PID/cgroup's `0::` line names no
# cgroup of the container, so the hook arms on the container's v1 memory
# cgroup alone and its watcher ends on init's pidfd.  Before, the hook
# recorded "not watched" (the process is in the root cgroup).  The fixture:
# pure_v1_helpers.bash; the hook's registration: hook_helpers.bash.

load helpers
load hook_helpers
load pure_v1_helpers

setup() {
	hook_setup
	require_pure_v1_view
}

teardown() {
	hook_runc_teardown
}

# In the pure v1 view: `runc run -d` under the subreaper (which reaps init
# at once, as conmon does), then [kill -9 of init when $1 is kill], the
# subreaper waited for, runc delete; the hook's verdict on lines `shown
# JSON` and `meta JSON`.
RUNC_SCRIPT='
	export RUNC_ROOT VDIR HOOK SUBREAPER
	(cd "$BUNDLE" && exec "$SUBREAPER" runc --root "$RUNC_ROOT" run -d --pid-file "$T/pid" "$ID" \
		</dev/null >/dev/null 2>"$T/runc.err" 3>&-) &
	reaper=$!
	timeout 20 sh -c "until [ -s \"\$1\" ]; do sleep 0.05; done" _ "$T/pid" || { cat "$T/runc.err"; exit 1; }
	if [ "$1" = kill ]; then kill -9 "$(cat "$T/pid")"; fi
	wait "$reaper"
	runc --root "$RUNC_ROOT" delete "$ID" || exit 1
	echo "shown $("$HOOK" --dir "$VDIR" show --json "$ID")"
	echo "meta $(cat "$VDIR/$ID/meta.json")"
'

# shown JQ: of the hook's verdict the script printed.
shown() {
	pv1 shown | jq -c "$1"
}

@test "hook under runc, pure v1: memhog over its 32 MiB is OOMKilled, the counters witness it" {
	export RUNC_ROOT VDIR HOOK SUBREAPER
	hook_bundle memhog
	cfg '.linux.resources.memory = {limit: 33554432}'
	in_pure_v1 "$RUNC_SCRIPT"
	assert_status 0
	# Armed on the v1 memory cgroup (runc's cgroupsPath there).
	assert_eq "$(pv1 meta | jq -r .cgroup)" "/shimhook-$ID"
	assert_eq "$(pv1 meta | jq -r .error)" null
	assert_eq "$(shown .oom_killed)" true
	assert_eq "$(shown .reason)" '"OOMKilled"'
	assert_eq "$(shown .memory_limit)" 33554432
	assert_eq "$(shown '.witnesses | index("counters") != null')" true
	assert_eq "$(jq -r .record "$VDIR/$ID/verdict.json")" complete
}

@test "hook under runc, pure v1: kill -9 of init is no OOM kill" {
	export RUNC_ROOT VDIR HOOK SUBREAPER
	hook_bundle sleeper
	cfg '.linux.resources.memory = {limit: 33554432}'
	in_pure_v1 "$RUNC_SCRIPT" kill
	assert_status 0
	assert_eq "$(pv1 meta | jq -r .error)" null
	assert_eq "$(shown .oom_killed)" false
	assert_eq "$(shown .memory_limit)" 33554432
	assert_eq "$(shown '.witnesses | index("counters") != null')" true
	assert_eq "$(shown .reason)" '"Killed"'
	assert_eq "$(shown .signal)" '"SIGKILL"'
}
