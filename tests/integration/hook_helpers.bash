# SPDX-License-Identifier: Apache-2.0
# shim-oom-hook inside Debian's runc on this host (load helpers first):
# bundles with config/oci-hooks.json's hooks running this build, runc run
# under a subreaper as conmon or containerd-shim would, and the stored
# verdict.

SUBREAPER=$REPO/tests/helpers/subreaper
HOOK=$REPO/shim-oom-hook

# hook_setup: shim_setup, and $VDIR (the verdict store) and $RUNC_ROOT.
hook_setup() {
	shim_setup
	command -v runc >/dev/null || { echo "runc is not installed (make deps)" >&2; return 1; }
	VDIR=$T/verdicts
	RUNC_ROOT=$T/runc
}

# setup and teardown of every file that loads this one and has none of
# its own: runc's container removed at the end.
setup() {
	hook_setup
}

teardown() {
	runc --root "$RUNC_ROOT" delete --force "$ID" 2>/dev/null || true
	shim_teardown
}

# hook_bundle EXAMPLE: the example with config/oci-hooks.json's hooks
# (createRuntime + poststop) running this build, in cgroup /shimhook-ID.
# runc gives a hook only the config's env: the test's verdict history is
# named on the hook's command line.
hook_bundle() {
	make_bundle "$1"
	cfg --arg hook "$HOOK" --arg vdir "$VDIR" --arg id "$ID" --arg hist "$SHIM_HISTORY_DIR" \
		--slurpfile frag "$REPO/config/oci-hooks.json" \
		'.linux.cgroupsPath = "/shimhook-" + $id
		| .hooks = ($frag[0].hooks | map_values(map(.path = $hook
			| .args = [.args[0], "--dir", $vdir, "--history-dir", $hist] + .args[1:])))'
}

# runc_detached: `runc run -d` under the subreaper, which inherits init and
# reaps it at once, as conmon or containerd-shim would; $REAPER_PID, and
# init's pid in $T/pid.
runc_detached() {
	(cd "$BUNDLE" && exec "$SUBREAPER" runc --root "$RUNC_ROOT" run -d --pid-file "$T/pid" "$ID" \
		</dev/null >/dev/null 2>"$T/runc.err" 3>&-) &
	REAPER_PID=$!
	timeout 20 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
}

# hv JQ: a field of the stored verdict of $ID.
hv() {
	jq -r ".verdict | $1" "$VDIR/$ID/verdict.json"
}

# hook_runc_teardown: runc's container removed; a cgroup of it left in any
# hierarchy, or a watcher still running after a bounded wait, fails the
# test (and is cleaned up); then shim_teardown.
hook_runc_teardown() {
	local problems="" d i
	runc --root "$RUNC_ROOT" delete --force "$ID" 2>/dev/null || true
	# runc removes the container's cgroup in every hierarchy.
	for d in $(cgroup_v1_mounts) $(cgroup2_mount); do
		if [ -d "$d/shimhook-$ID" ]; then
			problems+="cgroup left behind: $d/shimhook-$ID"$'\n'
			rmdir "$d/shimhook-$ID" 2>/dev/null || true
		fi
	done
	# The watcher ends with the container, after its last record.
	for i in $(seq 1 50); do
		pgrep -f -- "--dir $VDIR" >/dev/null || break
		sleep 0.1
	done
	i=$(pgrep -f -- "--dir $VDIR" | tr '\n' ' ')
	if [ -n "$i" ]; then
		problems+="watchers left behind: $i"$'\n'
		# shellcheck disable=SC2086
		kill -9 $i 2>/dev/null || true
	fi
	shim_teardown || problems+="(shim_teardown failed)"$'\n'
	if [ -n "$problems" ]; then
		printf 'teardown: %s' "$problems" >&2
		return 1
	fi
}
