#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The detached watcher (evidence/watcher.c), as `create`, `run --detach` and
# shim-oom-hook arm it:
#   - its baseline is taken before init exists (the cgroup is still empty),
#     as `run`'s monitor takes its own: what init and the createRuntime and
#     createContainer hooks do is the container's evidence, not the
#     baseline's;
#   - a watcher that could not be started is an error of `create` (its
#     evidence would be silently lost) and a recorded arming error of the
#     hook, never a watcher reported as armed.
# SHIM_TEST_WATCHER_FORK_FAIL=1 makes the watcher exit before it runs; it is
# read in that one place (evidence/watcher.c) and nowhere else.

load helpers

SUBREAPER=$REPO/tests/helpers/subreaper
HOOK=$REPO/shim-oom-hook

teardown() {
	if [ -n "${RUNC_ROOT:-}" ]; then
		runc --root "$RUNC_ROOT" delete --force "$ID" 2>/dev/null || true
	fi
	shim_teardown
}

# baseline_populated: cgroup.events' populated in the record's baseline.
baseline_populated() {
	jq -r '.baseline["cgroup.events"].populated' "$STATE/$ID/record.json"
}

@test "create: the watcher's baseline is taken before init exists" {
	make_bundle sleeper
	shim create --bundle "$BUNDLE" "$ID" 3>&-
	assert_eq "$(shim state "$ID" | jq -r .status)" created
	assert_eq "$(baseline_populated)" false "baseline taken while the cgroup was still empty"
	shim delete --force "$ID"
	# The watcher ends on the state's removal, a moment after delete returns.
	# shellcheck disable=SC2046
	wait_gone $(tagged_pids)
}

@test "run --detach: the watcher's baseline is taken before init exists" {
	make_bundle sleeper
	shim run --detach --bundle "$BUNDLE" "$ID" 3>&- >/dev/null 2>&1
	assert_eq "$(shim state "$ID" | jq -r .status)" running
	assert_eq "$(baseline_populated)" false "baseline taken while the cgroup was still empty"
	shim delete --force "$ID"
	# The watcher ends on the state's removal, a moment after delete returns.
	# shellcheck disable=SC2046
	wait_gone $(tagged_pids)
}

@test "create fails, and leaves nothing, when the watcher cannot be started" {
	make_bundle sleeper
	# Not under `run`: a container created after all would hold its pipes.
	status=0
	env SHIM_TEST_WATCHER_FORK_FAIL=1 SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
		create --bundle "$BUNDLE" "$ID" >/dev/null 2>"$T/err" 3>&- || status=$?
	assert_status 1
	assert_contains "$(cat "$T/err")" "container $ID: start the watcher: it exited with status 1 before it ran"
	run shim state "$ID"
	assert_status 1
}

@test "shim-oom-hook records why the watcher could not be started, and the verdict says so" {
	command -v runc >/dev/null || { echo "runc is not installed (make deps)" >&2; return 1; }
	VDIR=$T/verdicts
	RUNC_ROOT=$T/runc
	make_bundle exit3
	cfg --arg hook "$HOOK" --arg vdir "$VDIR" --arg id "$ID" --slurpfile frag "$REPO/config/oci-hooks.json" \
		'.linux.cgroupsPath = "/shimhook-" + $id
		| .hooks = ($frag[0].hooks | map_values(map(.path = $hook | .args = [.args[0], "--dir", $vdir] + .args[1:])))
		| .hooks.createRuntime[0].env = ["SHIM_TEST_WATCHER_FORK_FAIL=1"]'
	(cd "$BUNDLE" && exec "$SUBREAPER" runc --root "$RUNC_ROOT" run -d --pid-file "$T/pid" "$ID" \
		</dev/null >/dev/null 2>"$T/runc.err" 3>&-) &
	local reaper=$!
	wait "$reaper"
	runc --root "$RUNC_ROOT" delete "$ID"
	assert_contains "$(jq -r .error "$VDIR/$ID/meta.json")" "start the watcher: it exited with status 1 before it ran"
	[ ! -e "$VDIR/$ID/record.json" ]
	assert_contains "$(jq -r .verdict.message "$VDIR/$ID/verdict.json")" \
		"the watcher could not be armed: cgroup \`/shimhook-$ID\`: start the watcher"
	assert_eq "$(jq -r .verdict.oom_killed "$VDIR/$ID/verdict.json")" null
}
