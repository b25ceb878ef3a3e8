#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make fuzz`: every libFuzzer harness (tests/fuzz/fuzz_NAME.c), built with
# clang -fsanitize=fuzzer,address,undefined against the libraries built the
# same way in a copy of the tree (build-fuzz/tree: the normal build is
# untouched).  For each NAME, in TAP:
#   1. every saved crash input (tests/fuzz/regress/NAME/) and every seed
#      (tests/fuzz/corpus/NAME/) is replayed: must not crash;
#   2. FUZZ_SECONDS (60) of fuzzing from the seeds and what earlier runs
#      found (build-fuzz/corpus/NAME/, kept between runs, never committed).
# A crash leaves its input in build-fuzz/crashes/NAME/; once fixed, copy it
# to tests/fuzz/regress/NAME/ so every later run replays it.
#   FUZZ_SECONDS=N   seconds per harness (0: replay only)
#   FUZZ_ONLY=NAME   one harness
set -u
cd "$(dirname "$0")/../.."
top=$PWD
dir=$top/build-fuzz
secs=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
san="-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined -fsanitize=address,undefined"
# shimv2/libshimv2.a: the shim v2's ttrpc and task service (fuzz_ttrpc).
libs="shimv2/libshimv2.a runtime/libshim.a history/libhistory.a evidence/libevidence.a verdict/libverdict.a cgroup/libcgroup.a common/libcommon.a"
mkdir -p "$dir"
# shellcheck disable=SC2086
if ! tests/sanitize/build.sh "$dir" "$cc" "$san -fsanitize=fuzzer-no-link" $libs >"$dir/build.log" 2>&1; then
	cat "$dir/build.log"
	echo "not ok - the fuzzing build of the libraries failed"
	exit 1
fi
# The Makefile's PKGS.
pkg=$(pkg-config --cflags --libs yajl libseccomp libcap libsystemd)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:abort_on_error=1"
n=0 status=0
names=${FUZZ_ONLY:-$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||')}
for name in $names; do
	bin=$dir/fuzz_$name
	# shellcheck disable=SC2086
	if ! (cd "$dir/tree" && $cc $san -fsanitize=fuzzer -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. -Ishimv2/proto \
		-o "$bin" "tests/fuzz/fuzz_$name.c" $libs $pkg -lprotobuf-c) >"$dir/build-$name.log" 2>&1; then
		n=$((n + 1))
		echo "not ok $n - fuzz $name: does not build"
		sed 's/^/# /' "$dir/build-$name.log"
		status=1
		continue
	fi
	seeds=tests/fuzz/corpus/$name regress=tests/fuzz/regress/$name
	found=$dir/corpus/$name crashes=$dir/crashes/$name
	mkdir -p "$found" "$crashes"
	inputs=()
	for f in "$seeds"/* "$regress"/*; do [ -f "$f" ] && inputs+=("$f"); done
	n=$((n + 1))
	if [ ${#inputs[@]} -eq 0 ]; then
		echo "not ok $n - fuzz $name: no seed in $seeds"
		status=1
	elif "$bin" -runs=1 "${inputs[@]}" >"$dir/replay-$name.log" 2>&1; then
		echo "ok $n - fuzz $name: ${#inputs[@]} seeds and saved crash inputs replay cleanly"
	else
		echo "not ok $n - fuzz $name: a seed or saved crash input fails"
		tail -40 "$dir/replay-$name.log" | sed 's/^/# /'
		status=1
		continue
	fi
	[ "$secs" -gt 0 ] || continue
	n=$((n + 1))
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-artifact_prefix="$crashes/" -print_final_stats=1 "${dict[@]}" \
		"$found" "$seeds" >"$dir/fuzz-$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz-$name.log")
	cov=$(grep -oE 'cov: [0-9]+' "$dir/fuzz-$name.log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		echo "ok $n - fuzz $name: ${runs:-?} executions in ${secs} s, $cov, corpus $(ls "$found" | wc -l), no crash"
	else
		echo "not ok $n - fuzz $name: crashed (exit status $rc) after ${runs:-?} executions; input in $crashes/"
		grep -A30 -E '^==[0-9]+==ERROR|runtime error|deadly signal|Test unit written' "$dir/fuzz-$name.log" | head -60 | sed 's/^/# /'
		status=1
	fi
done
echo "1..$n"
exit $status
