#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim-oom-hook show NAME`: the name an engine gave a container, recorded
# at arming (hooks/hook_name.h), finds its verdict, as podman and docker
# find a container: the full id first, then a name, then a unique id
# prefix.  podman's own case (its hosts file) is in tests/vm/hook_podman.bats.

load helpers
load hook_helpers

@test "show NAME: containerd's CRI name annotation, recorded at arming, finds the verdict" {
	hook_bundle exit3
	cfg '.annotations["io.kubernetes.cri.container-name"] = "web"'
	runc_detached
	wait "$REAPER_PID"
	runc --root "$RUNC_ROOT" delete "$ID"
	assert_eq "$(jq -r .name "$VDIR/$ID/meta.json")" web
	run --separate-stderr "$HOOK" --dir "$VDIR" show --json web
	echo "$output $stderr"
	assert_status 0
	assert_eq "$(jq -r .exit_code <<<"$output")" "$(hv .exit_code)"
	[ -z "$stderr" ]
}

# store DIR ID NAME ARMED_AT: a finished container's directory, as the hook
# leaves it.
store() {
	mkdir -p "$1/$2"
	jq -n --arg name "$3" --arg at "$4" '{cgroup: "/x", bundle: null, name: $name, pid: 1, armed_at: $at}' \
		>"$1/$2/meta.json"
	jq -n --arg id "$2" '{verdict: {reason: "Exited", message: ("exited: " + $id)}}' >"$1/$2/verdict.json"
}

@test "show NAME: the latest container of a reused name, the id before the name, the name before a prefix" {
	local v=$T/verdicts
	store "$v" aaaa1111 web 2026-12-03T10:00:00Z
	store "$v" bbbb2222 web 2026-12-03T11:00:00Z
	store "$v" cccc3333 db 2026-12-03T09:00:00Z
	store "$v" web aaaa 2026-12-03T09:00:00Z
	store "$v" dbx9 other 2026-12-03T09:00:00Z

	run --separate-stderr "$HOOK" --dir "$v" show bbbb2222
	assert_status 0
	assert_eq "${lines[0]}" "exited: bbbb2222"

	# A directory named like the name: the id wins, as in podman.
	run --separate-stderr "$HOOK" --dir "$v" show web
	assert_status 0
	assert_eq "${lines[0]}" "exited: web"
	rm -r "$v/web"

	# Two containers had the name: the latest, and stderr says so.
	run --separate-stderr "$HOOK" --dir "$v" show web
	echo "$output / $stderr"
	assert_status 0
	assert_eq "${lines[0]}" "exited: bbbb2222"
	assert_contains "$stderr" "1 earlier container was named web; showing the latest, bbbb2222"

	# `db` is a name and the prefix of `dbx9`: the name.
	run --separate-stderr "$HOOK" --dir "$v" show db
	assert_status 0
	assert_eq "${lines[0]}" "exited: cccc3333"

	run --separate-stderr "$HOOK" --dir "$v" show nosuch
	[ "$status" -ne 0 ]
	assert_contains "$stderr" "no verdict for container nosuch"
}
