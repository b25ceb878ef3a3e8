#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# The layout rules of docs/DESIGN.md, checked on the built tree (TAP):
#   - a folder includes only the folders below it;
#   - a `*_internal.h` is included only from its own folder;
#   - no source file over 800 lines;
#   - no dup() (its copy lacks O_CLOEXEC);
#   - every global symbol carries its module's prefix;
#   - verdict/ calls nothing that does I/O;
#   - no two object files call each other (no two-way dependency);
#   - no binary is linked against libsystemd (common/sdlib.c loads it).
# Run from anywhere after `make`; objects are read with nm.
set -u
cd "$(dirname "$0")/../.." || exit 1

folders="common cgroup verdict evidence history runtime cli hooks shimv2"
declare -A may_include=(
	[common]=""
	[cgroup]="common"
	[verdict]="common cgroup"
	[evidence]="common cgroup verdict"
	[history]="common cgroup verdict evidence"
	[runtime]="common cgroup verdict evidence history"
	[cli]="common cgroup verdict evidence history runtime"
	[hooks]="common cgroup verdict evidence history"
	# (containerd/ and google/: its generated protobuf headers, shimv2/proto/)
	[shimv2]="common cgroup verdict evidence history runtime containerd google"
)
# Module prefixes a folder's global symbols may start with, besides the
# object's own name (hook_store.o: hook_store_).
declare -A prefixes=(
	[common]="shim_error log_ util_ pidfd_"
	[cgroup]="cgroup_ cg_"
	[verdict]="verdict_ kmsg_"
	[evidence]="evidence_ monitor_ watcher_ init_exit_ kmsg_reader_ kmsg_evidence_ mark_"
	[history]="history_"
	[runtime]="runtime_ config_ container_ launch_ lifecycle_ oci_hooks_ process_ rootfs_ security_ state_ supervise_ sync_ userns_"
	[cli]="cmd_ main"
	[hooks]="main"
	[shimv2]="main"
)

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; shift; printf '#   %s\n' "$@"; }
check() { # check DESCRIPTION PROBLEM...: ok when there is no problem
	local what=$1; shift
	if [ $# -eq 0 ]; then ok "$what"; else not_ok "$what" "$@"; fi
}

for d in $folders; do
	bad=()
	for f in "$d"/*.[ch]; do
		for inc in $(sed -n 's|^#include "\([a-z_-]*\)/.*|\1|p' "$f" | sort -u); do
			[ "$inc" = "$d" ] && continue
			case " ${may_include[$d]} " in *" $inc "*) ;; *) bad+=("$f includes $inc/") ;; esac
		done
	done
	check "$d/ includes only ${may_include[$d]:-nothing of the project}" "${bad[@]}"
done

bad=()
for f in $(for d in $folders; do ls "$d"/*.[ch]; done) tests/unit/*.c; do
	while read -r h; do
		[ "${h%%/*}" = "${f%%/*}" ] || bad+=("$f includes $h")
	done < <(sed -n 's|^#include "\([a-z_-]*/[a-z_]*_internal\.h\)"|\1|p' "$f")
done
check "an *_internal.h is included only from its own folder" "${bad[@]}"

bad=()
for d in $folders; do
	for f in "$d"/*.[ch]; do
		l=$(wc -l < "$f")
		[ "$l" -le 800 ] || bad+=("$f: $l lines")
	done
done
check "no source file over 800 lines" "${bad[@]}"

# O_CLOEXEC everywhere: a dup(2) copy would not have it (F_DUPFD_CLOEXEC
# does); dup2/dup3 onto stdio in a child about to exec are meant to stay.
mapfile -t bad < <(grep -nE '(^|[^_a-z0-9])dup ?\(' $(printf '%s/*.c ' $folders) 2>/dev/null)
check "no dup() without O_CLOEXEC (use fcntl F_DUPFD_CLOEXEC)" "${bad[@]}"

objs=()
for d in $folders; do
	for o in "$d"/*.o; do [ -e "$o" ] && objs+=("$o"); done
done
if [ ${#objs[@]} -eq 0 ]; then
	not_ok "objects to check" "no object files: run make first"
	echo "1..$n"
	exit 1
fi

for d in $folders; do
	bad=()
	for o in "$d"/*.o; do
		while read -r sym; do
			good=0
			for p in ${prefixes[$d]} "$(basename "$o" .o)_"; do
				case $sym in "$p"*) good=1 ;; esac
			done
			[ $good = 1 ] || bad+=("$o: $sym")
		# (__odr_asan.NAME: ASan's marker of NAME, in `make test-asan`'s objects)
		done < <(nm -g --defined-only "$o" | awk '$3 !~ /^__odr_asan/ {print $3}')
	done
	check "$d/: every global symbol has its module's prefix (${prefixes[$d]})" "${bad[@]}"
done

# verdict/ is pure: besides its own symbols it may call only string and
# memory functions, yajl's generator and the error object; a read, a
# clock or a syscall there is a layer mixed up.
mapfile -t bad < <(
	for o in verdict/*.o; do
		nm -u "$o" | awk -v o="$o" '{print o ": " $NF}'
	done | grep -vE ': (verdict_|kmsg_|shim_error|yajl_gen_|mem(chr|cmp|cpy|move|set)$|str(chr|rchr|cmp|ncmp|len|ndup|dup|str|spn|cspn)$|v?snprintf$|sigabbrev_np$|__(u)?divti3$|__stack_chk_fail$|__(asan|ubsan|sanitizer)|__[a-z_]+_chk$|_GLOBAL_OFFSET_TABLE_)'
)
check "verdict/ calls nothing that does I/O" "${bad[@]}"

# Who calls whom, from each object's undefined symbols and where they are
# defined; then the pairs that call each other.
two_way=$(
	for o in "${objs[@]}"; do
		nm -g --defined-only "$o" | awk -v o="$o" '{print "D", $3, o}'
		nm -u "$o" | awk -v o="$o" '{print "U", $NF, o}'
	done | awk '
		$1 == "D" { def[$2] = $3; next }
		{ use[NR] = $2; user[NR] = $3 }
		END {
			for (i in use) if ((use[i] in def) && def[use[i]] != user[i]) edge[user[i] " " def[use[i]]] = 1
			for (e in edge) { split(e, p, " "); if ((p[2] " " p[1]) in edge && p[1] < p[2]) print p[1] " <-> " p[2] }
		}'
)
mapfile -t bad < <(printf '%s' "$two_way" | sed '/^$/d')
check "no two object files depend on each other" "${bad[@]}"

# Linked, libsystemd and the libraries it pulls in are loaded at every start
# of every command; common/sdlib.c loads it when one needs it.
bad=()
for b in shim shim-oom-hook containerd-shim-shim-v2; do
	if [ ! -e "$b" ]; then
		bad+=("$b: not built")
	elif readelf -d "$b" | grep -q 'NEEDED.*libsystemd'; then
		bad+=("$b: linked against libsystemd")
	fi
done
check "no binary is linked against libsystemd" "${bad[@]}"

# <syslog.h> defines LOG_WARNING, LOG_INFO and LOG_DEBUG as other numbers
# than common/log.h's levels: in a file that has both, a log line indexes
# the level names out of range (a --log-format json line crashed).  Asked
# of the preprocessor, so that one pulled in by another header counts.
bad=()
for f in $(git ls-files '*.c' | grep -v '^tests/'); do
	grep -q '"common/log.h"' "$f" || continue
	if printf '#include "%s"\n' "$f" | cc -E -dM -D_GNU_SOURCE -I. -I/usr/include/yajl -Ishimv2/proto -x c - 2>/dev/null |
		grep -q '^#define LOG_WARNING'; then
		bad+=("$f: common/log.h and <syslog.h> in one file")
	fi
done
check "no file with common/log.h includes <syslog.h>" "${bad[@]}"

echo "1..$n"
exit $fail
