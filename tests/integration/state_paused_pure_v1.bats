#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `state` of a paused container on a pure cgroup v1 host (no cgroup2 mount
# at all): there is no cgroup.events to say `frozen 1`, the v1 freezer's
# freezer.state says FROZEN, and state must say "paused" as runc does.
# The fixture: this hybrid host in a mount namespace of its own whose cgroup2
# mount is gone, so that every shim command in it sees a pure v1 host.

load helpers

setup() {
	shim_setup
	if [ -z "$(cgroup_v1_mount freezer)" ]; then
		skip "no cgroup v1 freezer hierarchy on this host"
	fi
	make_bundle sleeper
}

@test "pure v1 host: a paused container's state is paused (freezer.state FROZEN), running again after resume" {
	local cg2
	# The script below runs in a shell of its own.
	export SHIM_BIN STATE ID BUNDLE T
	cg2=$(cgroup2_mount)
	# shellcheck disable=SC2016
	run timeout 60 unshare -m --propagation private bash -c '
		shim() { "$SHIM_BIN" --root "$STATE" "$@"; }
		status() { shim state "$ID" | jq -r .status; }
		# Whatever happens, the container is thawed (a frozen task cannot
		# die) and killed, and the run waited for.
		end() {
			[ -e "$2/shim/$ID/freezer.state" ] && echo THAWED >"$2/shim/$ID/freezer.state"
			shim kill "$ID" KILL 2>/dev/null
			wait
		}
		if [ -n "$1" ]; then umount "$1" || exit 90; fi
		grep -q " - cgroup2 " /proc/self/mountinfo && exit 91
		shim run --bundle "$BUNDLE" "$ID" </dev/null >/dev/null 2>"$T/run.err" 3>&- &
		trap "end \"\$@\"" EXIT
		for i in $(seq 1 200); do [ "$(status 2>/dev/null)" = running ] && break; sleep 0.05; done
		echo "before $(status)"
		shim pause "$ID" || exit 92
		echo "paused $(status)"
		echo "freezer $(cat "$2/shim/$ID/freezer.state")"
		shim resume "$ID" || exit 93
		echo "resumed $(status)"
	' _ "$cg2" "$(cgroup_v1_mount freezer)"
	echo "$output" >&2
	cat "$T/run.err" >&2
	assert_status 0
	assert_eq "$(grep ^before <<<"$output")" "before running"
	assert_eq "$(grep ^freezer <<<"$output")" "freezer FROZEN"
	assert_eq "$(grep ^paused <<<"$output")" "paused paused"
	assert_eq "$(grep ^resumed <<<"$output")" "resumed running"
}
