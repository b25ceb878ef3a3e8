#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The verdict history (history/history.h): every final verdict of `run` and
# of `delete` kept as one file in SHIM_HISTORY_DIR (helpers.bash points it
# at the test's own directory), after the state is gone; `shim verdicts`
# finds them by id prefix, by the engine's name, --since, --json; the store
# keeps to its limits; a store that cannot be written never fails the run.

load helpers

# records: how many records the history holds.
records() {
	[ -d "$SHIM_HISTORY_DIR" ] || { echo 0; return; }
	find "$SHIM_HISTORY_DIR" -maxdepth 1 -name '[0-9]*.json' | wc -l
}

# rec JQ: a field of the only record of $ID.
rec() {
	shim verdicts --json "$ID" | jq -r ".[0] | $1"
}

@test "run by hand: an exit, then an OOM kill, each kept after the state is gone" {
	make_bundle exit3
	run_shim
	assert_status 3
	make_bundle memhog
	ID=$ID-hog run_shim
	assert_status 137
	[ ! -e "$STATE/$ID" ]
	assert_eq "$(records)" 2
	assert_eq "$(rec .verdict.reason)" Exited
	assert_eq "$(rec .verdict.exit_code)" 3
	assert_eq "$(rec .source)" run
	ID=$ID-hog
	assert_eq "$(rec .verdict.reason)" OOMKilled
	assert_eq "$(rec .verdict.oom_killed)" true
	assert_eq "$(rec .verdict.memory_limit)" 67108864
	# The record's verdict is the one `run --json` prints: the same code.
	run --separate-stderr shim verdicts "$ID"
	assert_status 0
	assert_eq "$(tr -s ' ' <<<"${lines[0]}")" "TIME ID NAME REASON OOM_KILLED EXIT PEAK SOURCE"
	assert_contains "${lines[1]}" "$ID"
	assert_contains "${lines[1]}" OOMKilled
	assert_eq "${#lines[@]}" 2
}

@test "kill -9 from outside of a detached container: the verdict of its delete is kept" {
	make_bundle sleeper
	env SHIM_TEST_TAG="$TAG" "$REPO/tests/helpers/subreaper" "$SHIM_BIN" --root "$STATE" create \
		--bundle "$BUNDLE" --pid-file "$T/pid" "$ID" </dev/null >"$T/ct.out" 2>"$T/ct.err" 3>&- &
	local reaper=$!
	timeout 10 sh -c 'until [ -s "$1" ]; do sleep 0.05; done' _ "$T/pid"
	shim start "$ID"
	kill -9 "$(cat "$T/pid")"
	wait "$reaper"
	assert_eq "$(records)" 0
	run --separate-stderr shim delete "$ID"
	assert_status 0
	assert_eq "$(rec .source)" delete
	assert_eq "$(rec .verdict.reason)" Killed
	assert_eq "$(rec .verdict.signal)" SIGKILL
}

@test "verdicts: by id prefix, by the engine's name, --since, --json" {
	cfg '.annotations["io.kubernetes.cri.container-name"] = "web" | .annotations["io.kubernetes.cri.sandbox-name"] = "shop"'
	ID=$ID-aaa run_shim
	assert_status 0
	cfg '.annotations["io.kubernetes.cri.container-name"] = "db"'
	ID=$ID-bbb run_shim
	assert_status 0
	run --separate-stderr shim verdicts --json web
	assert_status 0
	assert_eq "$(jq -r 'map(.id) | join(" ")' <<<"$output")" "$ID-aaa"
	assert_eq "$(jq -r '.[0].name + " " + .[0].pod' <<<"$output")" "web shop"
	run --separate-stderr shim verdicts --json shop/web
	assert_eq "$(jq -r 'map(.id) | join(" ")' <<<"$output")" "$ID-aaa"
	run --separate-stderr shim verdicts --json "$ID"
	assert_eq "$(jq -r 'map(.id) | join(" ")' <<<"$output")" "$ID-aaa $ID-bbb"
	run --separate-stderr shim verdicts --json we
	assert_eq "$output" "[]"
	run --separate-stderr shim verdicts --json --since 1h
	assert_eq "$(jq length <<<"$output")" 2
	run --separate-stderr shim verdicts --json --since @"$(($(date +%s) + 3600))"
	assert_eq "$output" "[]"
	run --separate-stderr shim verdicts --since yesterday
	assert_status 1
	assert_contains "$stderr" "--since: \`yesterday\`"
}

# four_runs VAR=VALUE: hello run four times ($ID-1 .. $ID-4) with it set.
# The store is pruned at most once a minute (the mtime of its .pruned):
# that mark is made older before each run, so that each run prunes.
four_runs() {
	local i
	for i in 1 2 3 4; do
		if [ -e "$SHIM_HISTORY_DIR/.pruned" ]; then
			touch -d '2 minutes ago' "$SHIM_HISTORY_DIR/.pruned"
		fi
		env "$1" SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" run --bundle "$BUNDLE" "$ID-$i"
	done
}

@test "a podman container (io.container.manager=libpod): its name from the hosts file podman wrote" {
	printf '127.0.0.1 localhost\n10.88.0.5 877386e833a8 my-named-ct\n' >"$T/hosts"
	cfg '.hostname = "877386e833a8" | .annotations["io.container.manager"] = "libpod"'
	add_mount /etc/hosts bind "$T/hosts" rbind ro
	run_shim
	assert_status 0
	run --separate-stderr shim verdicts --json my-named-ct
	assert_eq "$(jq -r '.[0].id + " " + .[0].name' <<<"$output")" "$ID my-named-ct"
}

@test "the store keeps to its count: the oldest records go first" {
	four_runs SHIM_HISTORY_KEEP=2
	assert_eq "$(records)" 2
	run --separate-stderr shim verdicts --json
	assert_eq "$(jq -r 'map(.id) | join(" ")' <<<"$output")" "$ID-3 $ID-4"
}

@test "the store keeps to its size: 1000 bytes hold the newest records only" {
	four_runs SHIM_HISTORY_KEEP_BYTES=1000
	assert_eq "$(records)" 2
	[ "$(du -cb "$SHIM_HISTORY_DIR"/*.json | tail -1 | cut -f1)" -le 1000 ]
}

@test "an unwritable history directory: the run succeeds, with a warning" {
	: >"$T/file"
	SHIM_HISTORY_DIR=$T/file/history run_shim
	assert_status 0
	assert_contains "$stderr" "verdict history not written"
}

@test "a full disk (ENOSPC): the run succeeds, with a warning naming it" {
	mkdir "$T/full"
	mount -t tmpfs -o size=16k tmpfs "$T/full"
	register_mount "$T/full"
	mkdir "$T/full/history"
	run -1 dd if=/dev/zero of="$T/full/fill" bs=4k count=64
	SHIM_HISTORY_DIR=$T/full/history run_shim
	assert_status 0
	assert_contains "$stderr" "No space left on device"
	assert_eq "$(ls -A "$T/full/history")" ""
}

@test "no journal socket (this host): nothing is printed" {
	[ ! -S /run/systemd/journal/socket ] || skip "journald runs here: tests/vm/systemd_journal.bats covers it"
	run_shim
	assert_status 0
	assert_eq "$stderr" ""
	assert_eq "$(records)" 1
}

@test "SHIM_HISTORY_DIR empty, or --history-dir \"\": no history, and verdicts says why" {
	SHIM_HISTORY_DIR= run_shim
	assert_status 0
	assert_eq "$(records)" 0
	run --separate-stderr shim --history-dir "" verdicts
	assert_status 1
	assert_contains "$stderr" "no verdict history: --history-dir is empty"
}
