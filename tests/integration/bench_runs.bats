#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `make bench`'s harness runs, prints its table and writes its plots, and
# leaves nothing behind.  A timing is never checked: speed is make bench's.

load helpers

@test "bench/run.sh --quick: the table has every scenario for shim and the floor, the plots exist, nothing is left" {
	[ -x "$REPO/bench/timeit" ] && [ -x "$REPO/bench/floor" ] && [ -x "$REPO/bench/hooktime" ]
	run --separate-stderr "$REPO/bench/run.sh" --quick --out "$T/out" --runtimes "shim runc"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	local row
	for row in "run floor" "run shim" "nolimit shim" "lifecycle shim" "exec shim" "run runc" "nolimit runc" "hook runc"; do
		# Every row ran and none failed (the fail column is 0), with a
		# cpu time.
		printf '%s\n' "$output" | awk -v sc="${row% *}" -v rt="${row#* }" \
			'$1 == sc && $2 == rt && $8 == 0 && $6 ~ /^[0-9.]+$/ { found = 1 } END { exit !found }' ||
			{ echo "no clean row: $row"; false; }
	done
	printf '%s\n' "$output" | grep -qE '^shim [0-9]+[KM]'
	# The hook's own time, from hooktime's log: every run's two stages.
	printf '%s\n' "$output" | grep -qE '^# shim-oom-hook runs [0-9.]+ ms per container \(prestart [0-9.]+, poststop [0-9.]+; medians of [1-9][0-9]*, 0 failed\)$'
	# Median, min and max of at least two samples (the quick run's).
	printf '%s\n' "$output" | grep -qE '^shim seq 4 [0-9.]+ [0-9.]+ [0-9.]+$'
	if valgrind -q --tool=none "$REPO/shim" --version >/dev/null 2>&1; then
		printf '%s\n' "$output" | grep -qE '^shim --version [0-9]+$'
	else
		# The ASan build: valgrind cannot run it, and the bench says so.
		assert_contains "$stderr" "valgrind cannot run $REPO/shim (an ASan build?)"
	fi
	[ "$(head -c 8 "$T/out/latency.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
	[ "$(head -c 8 "$T/out/scaling.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
	# Its own roots, bundles and containers are gone.
	run bash -c 'ls -d /run/shim-bench.* 2>/dev/null'
	[ -z "$output" ]
	run bash -c 'find /sys/fs/cgroup -maxdepth 4 -name "*bench-*" 2>/dev/null'
	echo "$output"
	[ -z "$output" ]
	run pgrep -f 'sleep 100000'
	[ "$status" -eq 1 ]
}

@test "bench/run.sh --baseline DIR: an earlier tree timed in the same rounds, as runtime base and scenario hookbase" {
	run --separate-stderr "$REPO/bench/run.sh" --quick --out "$T/out" --runtimes "shim runc" --baseline "$REPO"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	local row
	for row in "run base" "nolimit base" "lifecycle base" "exec base" "hookbase runc"; do
		printf '%s\n' "$output" | awk -v sc="${row% *}" -v rt="${row#* }" \
			'$1 == sc && $2 == rt && $8 == 0 && $6 ~ /^[0-9.]+$/ { found = 1 } END { exit !found }' ||
			{ echo "no clean row: $row"; false; }
	done
	assert_contains "$output" "# the baseline's shim-oom-hook adds "
	assert_contains "$output" "# the baseline's shim-oom-hook runs "
	printf '%s\n' "$output" | grep -qE '^base seq 4 [0-9.]+ [0-9.]+ [0-9.]+$'
	if valgrind -q --tool=none "$REPO/shim" --version >/dev/null 2>&1; then
		printf '%s\n' "$output" | grep -qE '^shim@base --version [0-9]+$'
	fi
	run bash -c 'ls -d /run/shim-bench.* 2>/dev/null'
	[ -z "$output" ]
}
