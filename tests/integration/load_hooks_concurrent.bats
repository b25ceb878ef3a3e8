#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# 32 containers at once under Debian's runc, each with shim-oom-hook as its
# createRuntime and poststop hook, all sharing one verdict directory: 32
# concurrent arms (and watchers), then half killed with kill -9 and half
# exiting 0 at the same moment: 32 concurrent poststops, each racing its
# watcher's last read.  Every verdict is stored, from the watcher's record
# (never "missing"), and right; no poststop gave up waiting for its
# watcher; nothing is left:
# no hook process, no temporary file in the verdict directory, no cgroup,
# no runc state.
# The host's cgroup2 has no memory controller: the OOM side is the VM's
# (tests/vm/load_concurrent.bats).

load helpers

HOOK=$REPO/shim-oom-hook
N=32

setup() {
	shim_setup
	command -v runc >/dev/null || { echo "runc is not installed (make deps)" >&2; return 1; }
	VDIR=$T/verdicts
	RUNC_ROOT=$T/runc
	mkdir -p "$T/share"
	# One bundle for all: each container k gets a copy with its own
	# cgroup (/shimhook-$ID-k) and program.
	cfg --arg hook "$HOOK" --arg vdir "$VDIR" --arg log "$T/hook.log" \
		--slurpfile frag "$REPO/config/oci-hooks.json" \
		'.hooks = ($frag[0].hooks | map_values(map(.path = $hook
			| .args = [.args[0], "--dir", $vdir, "--log", $log] + .args[1:])))'
	add_mount /tmp/share bind "$T/share" rbind
}

teardown() {
	local k problems=""
	for ((k = 1; k <= N; k++)); do
		runc --root "$RUNC_ROOT" delete --force "$ID-$k" >/dev/null 2>&1 || true
	done
	# A watcher exits right after its last record: a bounded wait.
	for ((k = 0; k < 100; k++)); do
		pgrep -f -- "--dir $VDIR" >/dev/null || break
		sleep 0.1
	done
	if pgrep -f -- "--dir $VDIR" >/dev/null; then
		problems+="hook processes left behind: $(pgrep -a -f -- "--dir $VDIR")"$'\n'
		# shellcheck disable=SC2046
		kill -9 $(pgrep -f -- "--dir $VDIR") 2>/dev/null || true
	fi
	if [ -d "$VDIR" ] && [ -n "$(find "$VDIR" -name '*.tmp' -o -name '.gone.*')" ]; then
		problems+="temporary files left behind: $(find "$VDIR" -name '*.tmp' -o -name '.gone.*')"$'\n'
	fi
	if [ -n "$(find /sys/fs/cgroup -maxdepth 2 -type d -name "shimhook-$ID-*")" ]; then
		problems+="cgroups left behind: $(find /sys/fs/cgroup -maxdepth 2 -type d -name "shimhook-$ID-*")"$'\n'
		find /sys/fs/cgroup -maxdepth 2 -type d -name "shimhook-$ID-*" -delete 2>/dev/null || true
	fi
	if [ -d "$RUNC_ROOT" ] && [ -n "$(ls -A "$RUNC_ROOT")" ]; then
		problems+="runc state left behind: $(ls -A "$RUNC_ROOT" | tr '\n' ' ')"$'\n'
	fi
	shim_teardown || problems+="(shim_teardown failed)"$'\n'
	if [ -n "$problems" ]; then
		printf 'teardown: %s' "$problems" >&2
		return 1
	fi
}

# bundle_for K: $T/b.K, container K's bundle: odd K sleeps until killed,
# even K exits 0 once /tmp/share/go exists (bounded: exit 7 after 60 s).
bundle_for() {
	local dir=$T/b.$1 script
	if (($1 % 2)); then
		script='exec sleep 1000'
	else
		script='i=0; until [ -e /tmp/share/go ]; do i=$((i + 1)); [ $i -lt 1200 ] || exit 7; sleep 0.05; done; exit 0'
	fi
	mkdir -p "$dir"
	jq --arg id "$ID-$1" --arg s "$script" \
		'.linux.cgroupsPath = "/shimhook-" + $id | .process.args = ["/bin/sh", "-c", $s]' \
		"$BUNDLE/config.json" >"$dir/config.json"
}

# start_one K: `runc run` of container K in the foreground, as the
# VM's hook tests do: runc reaps init and runs the poststop hook at once,
# while the watcher may still be taking its last read.  init's pid in
# $T/pid.K, runc's exit status (the container's) in $T/rc.K.
start_one() {
	local rc=0
	cd "$T/b.$1" &&
		runc --root "$RUNC_ROOT" run --pid-file "$T/pid.$1" "$ID-$1" \
			</dev/null >/dev/null 2>"$T/run.err.$1" 3>&- || rc=$?
	echo "$rc" >"$T/rc.$1"
}

# hv K JQ: a field of container K's stored verdict document.
hv() {
	jq -r "$2" "$VDIR/$ID-$1/verdict.json"
}

@test "32 concurrent shim-oom-hook arms and poststops under runc: every verdict stored and right" {
	local k i rc pids=() bad=() want got
	for ((k = 1; k <= N; k++)); do
		bundle_for "$k"
	done
	# 32 concurrent runs: 32 createRuntime hooks arming at once.
	for ((k = 1; k <= N; k++)); do
		start_one "$k" &
		pids+=($!)
	done
	for ((k = 1; k <= N; k++)); do
		for ((i = 0; i < 600; i++)); do
			[ -s "$T/pid.$k" ] && break
			sleep 0.1
		done
		[ -s "$T/pid.$k" ] || bad+=("container $k did not start: $(cat "$T/run.err.$k")")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s\n' "${bad[@]}" >&2
		false
	fi
	# Every watcher armed before any container ends.
	for ((k = 1; k <= N; k++)); do
		[ -e "$VDIR/$ID-$k/record.json" ] || bad+=("container $k: no record at arming")
	done
	# Then all 32 end at once: the even ones exit 0, the odd ones are
	# killed with SIGKILL.
	touch "$T/share/go"
	for ((k = 1; k <= N; k += 2)); do
		kill -9 "$(cat "$T/pid.$k")"
	done
	# Their 32 poststop hooks run at once, as each runc sees its init end.
	for k in "${pids[@]}"; do
		wait "$k"
	done
	for ((k = 1; k <= N; k++)); do
		rc=$(cat "$T/rc.$k")
		want=$(((k % 2) ? 137 : 0))
		[ "$rc" = "$want" ] || bad+=("container $k: runc run exited $rc (want $want): $(cat "$T/run.err.$k")")
		if [ ! -s "$VDIR/$ID-$k/verdict.json" ]; then
			bad+=("container $k: no verdict stored")
			continue
		fi
		got=$(hv "$k" '[.stage, (.record | if . == "incomplete" then "complete" else . end), .verdict.oom_killed,
			.verdict.reason, .verdict.signal, .verdict.exit_code, .verdict.killed_by] | map(tostring) | join(" ")')
		if ((k % 2)); then
			# killed_by null: a hook does not see the runtime's
			# signals, and `runc kill` would look the same.
			want="poststop complete false Killed SIGKILL 137 null"
		else
			want="poststop complete false Exited null 0 null"
		fi
		[ "$got" = "$want" ] || bad+=("container $k: verdict \"$got\", want \"$want\"")
	done
	# Under this load runc often removes a cgroup before its watcher wakes
	# to read it empty ("incomplete", the race hooks/README.md describes);
	# the exit status (pidfd) and the kernel log still give the verdict.
	# Said, not asserted.
	echo "records: $(cat "$VDIR"/"$ID"-*/verdict.json | jq -r .record | sort | uniq -c | tr -s ' \n' ' ')" >&3
	# No poststop gave up waiting for its watcher, no hook failed.
	if grep -E 'has not finished|error' "$T/hook.log" >&2; then
		bad+=("the hooks logged errors or lock time-outs (above)")
	fi
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s\n' "${bad[@]}" >&2
		false
	fi
	# Each verdict directory holds exactly what the hook keeps there.
	for ((k = 1; k <= N; k++)); do
		got=$(ls -A "$VDIR/$ID-$k" | tr '\n' ' ')
		[ "$got" = "meta.json record.json verdict.json watcher.lock " ] ||
			bad+=("container $k: verdict directory holds: $got")
	done
	got=$(ls -A "$VDIR" | grep -v "^$ID-" | tr '\n' ' ')
	[ "$got" = ".lock " ] || bad+=("verdict directory also holds: $got")
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s\n' "${bad[@]}" >&2
		false
	fi
	# All 32 gone from runc.
	assert_eq "$(runc --root "$RUNC_ROOT" list -q)" "" "runc containers left"
}
