# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016
#
# A pure cgroup v1 host on this hybrid one: `in_pure_v1 SCRIPT [ARGS...]`
# runs SCRIPT (bash, bounded) in a mount namespace of its own whose cgroup2
# mount is gone, so that every shim command in it sees a pure v1 host (as
# state_paused_pure_v1.bats does).  `load helpers` and `load
# lifecycle_helpers` first.  In SCRIPT:
#
#   shim ARGS...        the shim under test, --root $STATE;
#   create_sr           `shim create` of $ID under tests/helpers/subreaper
#                       (init is reaped at once, as conmon does), its pid
#                       in $T/pid;
#   wait_recorded       until create's watcher wrote its last record;
#   state_verdict JQ    of the verdict in `shim state`'s annotations;
#   delete_logged JQ    `shim delete`, then JQ of the verdict it logged:
#                       lines `delete 0` and `deleted VALUE`.
#
# Whatever happens, the container is thawed, killed and deleted when SCRIPT
# ends.  Exit 90/91: the pure v1 view could not be made.

# require_pure_v1_view: skip where there is no v1 memory hierarchy.
require_pure_v1_view() {
	[ -n "$(cgroup_v1_mount memory)" ] || skip "no cgroup v1 memory hierarchy on this host"
}

PURE_V1_PRELUDE='
	shim() { env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" "$@"; }
	create_sr() {
		env SHIM_TEST_TAG="$TAG" "$REPO/tests/helpers/subreaper" "$SHIM_BIN" --root "$STATE" create \
			--bundle "$BUNDLE" --pid-file "$T/pid" "$ID" </dev/null >>"$T/ct.out" 2>>"$T/ct.err" 3>&- &
		REAPER_PID=$!
		timeout 10 sh -c "until [ -s \"\$1\" ]; do sleep 0.05; done" _ "$T/pid"
	}
	wait_recorded() {
		timeout 20 sh -c "until [ \"\$(jq -r .ended \"\$1\" 2>/dev/null)\" = true ]; do sleep 0.05; done" \
			_ "$STATE/$ID/record.json"
	}
	state_verdict() { shim state "$ID" | jq -r ".annotations[\"io.github.shim.verdict\"]" | jq -c "$1"; }
	delete_logged() {
		shim --log "$T/log.json" --log-format json delete "$ID" && echo "delete 0"
		echo "deleted $(jq -r "select(.level == \"info\") | .msg" "$T/log.json" | sed -n "s/.*; verdict //p" | jq -c "$1")"
	}
	pure_v1_end() {
		local f
		f=$(awk "\$(NF-2) == \"cgroup\" && (\",\" \$NF \",\") ~ /,freezer,/ { print \$5; exit }" /proc/self/mountinfo)
		[ -e "$f/shim/$ID/freezer.state" ] && echo THAWED >"$f/shim/$ID/freezer.state"
		shim delete -f "$ID" 2>/dev/null
		wait
	}
	if [ -n "$PURE_V1_CG2" ]; then umount "$PURE_V1_CG2" || exit 90; fi
	grep -q " - cgroup2 " /proc/self/mountinfo && exit 91
	trap pure_v1_end EXIT
'

in_pure_v1() {
	local script=$1
	shift
	export SHIM_BIN STATE ID BUNDLE T TAG REPO
	PURE_V1_CG2=$(cgroup2_mount)
	export PURE_V1_CG2
	run --separate-stderr timeout 120 unshare -m --propagation private bash -c "$PURE_V1_PRELUDE$script" _ "$@"
	echo "$output" >&2
	echo "$stderr" >&2
}

# pv1 KEY: the value the script printed on its line `KEY VALUE`.
pv1() {
	awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' <<<"$output"
}
