#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make test-valgrind`: every unit test binary under valgrind's memcheck;
# any error or leak (definite, indirect or possible) fails it.  TAP out.
set -u
cd "$(dirname "$0")/../.."
# test_cgroup_parse re-execs itself (/proc/self/exe, which is valgrind's
# tool under valgrind) to set this; set it here instead.
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
n=0 status=0
for c in tests/unit/test_*.c; do
	t=${c%.c}
	n=$((n + 1))
	out=$(valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible "$t" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q '^not ok' <<<"$out"; then
		echo "ok $n - valgrind $t"
	else
		status=1
		echo "not ok $n - valgrind $t (exit status $rc)"
		grep -v '^ok' <<<"$out" | sed 's/^/# /'
	fi
done
echo "1..$n"
exit $status
