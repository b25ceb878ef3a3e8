#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Death counters in node_exporter's textfile format (history/metrics.c):
# SHIM_METRICS_DIR/shim.prom, replaced whole by each death, consistent
# under concurrent deaths (a lock file with a bounded wait).

load helpers

setup() {
	shim_setup
	export SHIM_METRICS_DIR=$T/metrics
}

# count REASON SCOPE: the counter's value, "" when it has no line.
count() {
	sed -n "s/^shim_container_deaths_total{reason=\"$1\",scope=\"$2\"} //p" "$SHIM_METRICS_DIR/shim.prom"
}

@test "an exit, an OOM kill and an exit 0: counted by reason and scope" {
	make_bundle exit3
	ID=$ID-a run_shim
	assert_status 3
	make_bundle memhog
	ID=$ID-b run_shim
	assert_status 137
	make_bundle hello
	ID=$ID-c run_shim
	assert_status 0
	assert_eq "$(count Exited none)" 2
	assert_eq "$(count OOMKilled container)" 1
	assert_eq "$(grep -c '^shim_container_deaths_total' "$SHIM_METRICS_DIR/shim.prom")" 2
	assert_eq "$(grep -c '^# TYPE shim_container_deaths_total counter$' "$SHIM_METRICS_DIR/shim.prom")" 1
	# Readable by node_exporter; no temporary file left beside it.
	assert_eq "$(stat -c %a "$SHIM_METRICS_DIR/shim.prom")" 644
	assert_eq "$(ls "$SHIM_METRICS_DIR")" shim.prom
}

@test "eight deaths at once: none of them lost" {
	local i pids=()
	for i in 1 2 3 4 5 6 7 8; do
		shim run --bundle "$BUNDLE" "$ID-$i" >/dev/null 2>"$T/err$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	cat "$T"/err* >&2
	assert_eq "$(count Exited none)" 8
}

@test "no SHIM_METRICS_DIR: no metrics" {
	unset SHIM_METRICS_DIR
	run_shim
	assert_status 0
	[ ! -e "$T/metrics" ]
}

@test "--metrics-dir: the flag names the directory" {
	unset SHIM_METRICS_DIR
	run --separate-stderr shim --metrics-dir "$T/m2" run --bundle "$BUNDLE" "$ID"
	assert_status 0
	assert_eq "$(cat "$T/m2/shim.prom" | grep -c 'reason="Exited",scope="none"} 1$')" 1
}
