# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the sanitizer runs: sanitizer_env LOGDIR sets the options of
# ASan, LSan and UBSan.  Reports go to LOGDIR/KIND.PID as well as making
# the process fail (exitcode 86, never a status shim gives itself): a
# report from a process whose stderr a test swallows is still seen, by
# sanitizer_check.
sanitizer_env() {
	local logs=$1
	mkdir -p "$logs"
	# detect_leaks: leaks are reported at exit; the container's init execs
	# the workload (no exit, so no leak check there), every other process
	# of ours exits through exit() and is checked.
	export ASAN_OPTIONS="detect_leaks=1:exitcode=86:log_path=$logs/asan:abort_on_error=0:detect_stack_use_after_return=1:check_initialization_order=1"
	export LSAN_OPTIONS="exitcode=86:log_path=$logs/lsan"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$logs/ubsan"
}

# sanitizer_check LOGDIR: fails (and prints them) when any report was written.
sanitizer_check() {
	local logs=$1 f n=0
	for f in "$logs"/*; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		echo "== sanitizer report $f"
		cat "$f"
	done
	if [ "$n" -gt 0 ]; then
		echo "not ok - $n sanitizer report(s) in $logs"
		return 1
	fi
	echo "ok - no sanitizer report in $logs"
}
