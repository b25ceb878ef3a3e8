#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make test-asan`: everything built with ASan and UBSan in a copy of the
# tree (build-asan/tree: the normal build is untouched), then the unit and
# host suites run against that build (tests/run-all.sh of the copy, so its
# tests use its shim, shim-oom-hook and helpers).  Any sanitizer report,
# even from a process whose stderr a test swallowed, fails the run.
#   SHIM_ASAN_SUITES="unit host" (default)
set -u
cd "$(dirname "$0")/../.."
top=$PWD
dir=$top/build-asan
. tests/sanitize/env.sh
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
units=$(ls tests/unit/test_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
mkdir -p "$dir"
if ! tests/sanitize/build.sh "$dir" "${CC:-gcc}" "$san" all $units >"$dir/build.log" 2>&1; then
	cat "$dir/build.log"
	echo "not ok - the ASan+UBSan build failed"
	exit 1
fi
logs=$dir/reports
rm -rf "$logs"
sanitizer_env "$logs"
status=0
# The plain host suite soaks delete --force for 300 rounds; here a third of
# them (3 min under ASan on this 2-core machine for all 300).
export SHIM_TEST_SOAK_ROUNDS=${SHIM_TEST_SOAK_ROUNDS:-100}
(cd "$dir/tree" && SHIM_TEST_SUITES=${SHIM_ASAN_SUITES:-unit host} tests/run-all.sh) || status=1
sanitizer_check "$logs" || status=1
exit $status
