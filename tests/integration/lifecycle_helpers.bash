# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016
#
# For the tests of the runc-style lifecycle (create, start, state, kill,
# delete, exec, ...): `load helpers` first, then `load lifecycle_helpers`.
#
# `shim create` returns with the container's init still holding the stdio
# it was given, so create (and run --detach, exec --detach) never run under
# bats' `run` with a pipe: ct_create gives them files instead,
# $T/ct.out and $T/ct.err, where the container's output lands too.
#
# Nothing here waits a fixed time: every wait is a loop bounded by
# WAIT_SECS.

WAIT_SECS=${WAIT_SECS:-10}

# Processes the test started itself, outside shim (sleeps, recvtty): killed
# in teardown before the leak checks, so a failing test does not leave
# them running.  A test that passes kills them itself.
BG_PIDS=()

setup() {
	shim_setup
	BG_PIDS=()
}

teardown() {
	local p
	for p in ${BG_PIDS[@]+"${BG_PIDS[@]}"}; do
		kill -9 "$p" 2>/dev/null || true
	done
	shim_teardown
}

# ct_create [create options...] [-- ID]: `shim create --bundle $BUNDLE
# OPTIONS $ID` (or the id after --), stdio on files; $status, and $stderr
# holds what this create printed on stderr (the container's stderr is
# appended to the same file later, not read here).
ct_create() {
	local id=$ID before
	local -a opts=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			id=$2
			break
		fi
		opts+=("$1")
		shift
	done
	touch "$T/ct.out" "$T/ct.err"
	before=$(stat -c %s "$T/ct.err")
	status=0
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" create --bundle "$BUNDLE" \
		${opts[@]+"${opts[@]}"} "$id" </dev/null >>"$T/ct.out" 2>>"$T/ct.err" 3>&- || status=$?
	stderr=$(tail -c +"$((before + 1))" "$T/ct.err")
	output=""
}

# ct_create_ok [create options...]: ct_create that must succeed.
ct_create_ok() {
	ct_create "$@"
	assert_status 0
}

# ct_start_ok [ID]: shim start, which must succeed.
ct_start_ok() {
	run --separate-stderr shim start "${1:-$ID}"
	assert_status 0
}

# ct_up: create and start $ID.
ct_up() {
	ct_create_ok "$@"
	ct_start_ok
}

# ct_field FIELD [ID]: one field of `shim state` (jq -r).
ct_field() {
	shim state "${2:-$ID}" | jq -r ".$1"
}

# ct_status [ID]: the status `shim state` reports, "" when it fails.
ct_status() {
	ct_field status "$@" 2>/dev/null || true
}

# wait_status STATUS [ID]: until `shim state` says STATUS (bounded).
wait_status() {
	local want=$1 id=${2:-$ID} got
	if ! timeout "$WAIT_SECS" bash -c '
		until [ "$(env SHIM_TEST_TAG="$1" "$2" --root "$3" state "$4" 2>/dev/null | jq -r .status)" = "$5" ]; do
			sleep 0.05
		done' _ "$TAG" "$SHIM_BIN" "$STATE" "$id" "$want"; then
		got=$(ct_status "$id")
		echo "container $id: want status $want, still $got after ${WAIT_SECS}s" >&2
		return 1
	fi
}

# wait_file FILE: until FILE exists and is not empty (bounded).
wait_file() {
	timeout "$WAIT_SECS" sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$1" || {
		echo "$1: still missing or empty after ${WAIT_SECS}s" >&2
		return 1
	}
}

# wait_line FILE LINE: until FILE holds LINE as a whole line (bounded).
wait_line() {
	timeout "$WAIT_SECS" sh -c 'until grep -qxF -- "$2" "$1" 2>/dev/null; do sleep 0.05; done' _ "$1" "$2" || {
		echo "$1: no line \"$2\" after ${WAIT_SECS}s; it holds:" >&2
		cat "$1" >&2 2>/dev/null
		return 1
	}
}

# wait_no_tagged: until no process of the test is left (the detached
# watcher exits a moment after delete removed the cgroup).  Bounded; the
# teardown reports whatever is still there.
wait_no_tagged() {
	local i
	for ((i = 0; i < WAIT_SECS * 20; i++)); do
		[ -z "$(tagged_pids)" ] && return 0
		sleep 0.05
	done
}

# alive PID: the process exists and is not a zombie.
alive() {
	local s
	s=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "$s" != Z ] && [ "$s" != X ]
}

# dead PID: the process is gone (or a zombie).  A function, not `! alive`:
# bash's errexit ignores a `!` command, so that would never fail a test.
dead() {
	if alive "$1"; then
		echo "process $1 is still alive: $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" >&2
		return 1
	fi
}

# ct_stop [ID]: SIGKILL everything of the container (kill --all), then wait
# until it is stopped and its detached watcher, having recorded the end,
# has exited.  What delete then removes is no longer changing under it.
ct_stop() {
	local id=${1:-$ID}
	shim kill --all "$id" KILL </dev/null >/dev/null 2>&1 3>&- || true
	wait_status stopped "$id" 2>/dev/null || true
	wait_no_tagged
}

# ct_cleanup [ID...]: stop (ct_stop) and delete each container ($ID by
# default); at the end nothing of the test's may be left running.
#
# Not a bare `delete --force` of a live container: its watcher then races
# with delete (see delete_force.bats), and tests of other features must not
# fail by that.
#
# All of them are stopped before any is waited for: wait_no_tagged waits
# for every process of the test, so stopping one container at a time
# waited out its whole bound while the next one still ran (27 s for a
# `list` test of three containers).
ct_cleanup() {
	local id
	local -a ids=("${@:-$ID}")
	for id in "${ids[@]}"; do
		shim kill --all "$id" KILL </dev/null >/dev/null 2>&1 3>&- || true
	done
	for id in "${ids[@]}"; do
		wait_status stopped "$id" 2>/dev/null || true
	done
	wait_no_tagged
	for id in "${ids[@]}"; do
		shim delete --force "$id" </dev/null >/dev/null 2>&1 3>&- || true
	done
	wait_no_tagged
}

# ready_cmd SCRIPT: process.args = sh -c "SCRIPT" where SCRIPT announces
# itself through the ready fifo with `ready`, e.g.
#   ready_cmd 'trap "exit 7" TERM; ready; while :; do sleep 0.1; done'
ready_cmd() {
	share_dir
	sh_cmd "ready() { echo ready >/tmp/share/ready; }; $1"
}

# wait_ready_ct: until the container said ready (bounded); the container's
# stderr ($T/ct.err) is shown if it did not.
wait_ready_ct() {
	local line
	line=$(timeout "$WAIT_SECS" cat "$T/share/ready") || {
		echo "the container did not get ready; its stderr:" >&2
		cat "$T/ct.err" >&2
		return 1
	}
	assert_eq "$line" ready "from the ready fifo"
}

# hook_json PATH ARG... [--env K=V...]: one hooks[] entry.
hook_json() {
	local path=$1
	shift
	local -a args=() env=()
	while [ $# -gt 0 ]; do
		if [ "$1" = --env ]; then
			env+=("$2")
			shift 2
			continue
		fi
		args+=("$1")
		shift
	done
	jq -nc --arg p "$path" --argjson a "$(json_array ${args[@]+"${args[@]}"})" \
		--argjson e "$(json_array ${env[@]+"${env[@]}"})" \
		'{path: $p, args: $a} + (if ($e | length) > 0 then {env: $e} else {} end)'
}

# add_hook STAGE HOOK_JSON: append to hooks.STAGE[].
add_hook() {
	cfg --arg s "$1" --argjson h "$2" '.hooks[$s] += [$h]'
}

# sh_hook STAGE SCRIPT [TIMEOUT]: a hook `/bin/sh -c SCRIPT` in STAGE, with
# the test's tag (so teardown finds it if it lingers) and PATH in its env.
# For startContainer (run in the container) /bin/sh is the rootfs' busybox.
sh_hook() {
	local h
	h=$(hook_json /bin/sh sh -c "$2" --env "SHIM_TEST_TAG=$TAG" \
		--env "PATH=/usr/sbin:/usr/bin:/sbin:/bin")
	if [ -n "${3:-}" ]; then
		h=$(jq -c --argjson t "$3" '.timeout = $t' <<<"$h")
	fi
	add_hook "$1" "$h"
}

# nothing_left: no state dir, no cgroup, no process of the test (a hook's
# included: they carry the tag).
nothing_left() {
	[ ! -e "$STATE/$ID" ] || {
		echo "state dir left: $(ls -A "$STATE/$ID")" >&2
		false
	}
	local cg
	cg=$(cgroup2_mount)
	[ -z "$cg" ] || [ ! -e "$cg/shim/$ID" ]
	wait_no_tagged
	assert_eq "$(tagged_pids)" "" "processes left"
}

# need_cgroup2 WHAT: $CG, the cgroup2 mount; fails the test without one.
need_cgroup2() {
	CG=$(cgroup2_mount)
	if [ -z "$CG" ]; then
		echo "$1 needs a cgroup2 mount" >&2
		return 1
	fi
}

# wait_exited PID [WHAT]: until PID, a background job of this shell, has
# exited (bounded; a failure naming WHAT if not); its exit status in
# $exit_rc.
wait_exited() {
	local i
	for ((i = 0; i < WAIT_SECS * 20; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "${2:-process $1} still running after ${WAIT_SECS}s: $(ps -o stat=,pcpu= -p "$1")" >&2
		return 1
	fi
	exit_rc=0
	wait "$1" || exit_rc=$?
}

# wait_cgroup_procs N [ID]: until the container's cgroup ($CG, see
# need_cgroup2) holds N processes (bounded).
wait_cgroup_procs() {
	local f=$CG/shim/${2:-$ID}/cgroup.procs
	timeout "$WAIT_SECS" sh -c 'until [ "$(wc -l <"$1")" -eq "$2" ]; do sleep 0.05; done' _ "$f" "$1" || {
		echo "$f: want $1 processes, have: $(cat "$f" 2>/dev/null)" >&2
		return 1
	}
}
