#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The hostile-config corpus (hostile_configs.tsv: GROUP, CASE, EDIT,
# EXPECTED ERROR): every case makes `create` fail with exit status 1 and
# that error on stderr, in bounded time, leaving no state dir and no
# process; the teardown then checks mounts and cgroups for the whole group.
# One test per group, looping over its cases: a failure names each case
# that went wrong and how.

load helpers

TABLE=$BATS_TEST_DIRNAME/hostile_configs.tsv

# mini_rootfs: the bundle's rootfs becomes $T/rootfs, a copy of the
# example one that a case may plant symlinks in.
mini_rootfs() {
	rm -rf "$T/rootfs"
	cp -a "$ROOTFS" "$T/rootfs"
	cfg --arg r "$T/rootfs" '.root.path = $r'
}

# run_group GROUP: every case of GROUP; fails listing the cases that failed.
run_group() {
	local group=$1 g name edit want n=0 left why
	local -a bad=()
	while IFS=$'\t' read -r g name edit want; do
		[ "$g" = "$group" ] || continue
		n=$((n + 1))
		make_bundle hello
		if [[ $edit == sh:* ]]; then
			eval "${edit#sh:}"
		else
			cfg "$edit"
		fi
		# Files, not bats' pipes: a create that wrongly succeeds leaves an
		# init holding its stdio, which would keep `run` waiting.
		status=0
		timeout -s KILL 30 env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
			create --bundle "$BUNDLE" "$ID" </dev/null >"$T/out" 2>"$T/err" 3>&- || status=$?
		stderr=$(cat "$T/err")
		why=
		if [ "$status" -ne 1 ]; then
			why="exit status $status (want 1)"
		elif [[ $stderr != *"$want"* ]]; then
			why="stderr lacks the expected error"
		elif [[ $stderr != "shim: "* ]]; then
			why="stderr is not one error of shim's"
		fi
		left=
		[ ! -d "$STATE" ] || left=$(ls -A "$STATE")
		[ -z "$left" ] || why="${why:+$why; }left a state dir: $left"
		left=$(tagged_pids)
		[ -z "$left" ] || why="${why:+$why; }left processes: $left"
		if [ -n "$why" ]; then
			bad+=("case \`$name\`: $why
    want: $want
    got:  $(head -c 600 <<<"$stderr")")
			"$SHIM_BIN" --root "$STATE" delete --force "$ID" </dev/null >/dev/null 2>&1 3>&- || true
		fi
	done < <(grep -v '^#' "$TABLE")
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s\n' "${bad[@]}" >&2
		echo "${#bad[@]} of $n cases of group $group failed" >&2
		return 1
	fi
	echo "$n cases" >&3
	[ "$n" -gt 0 ]
}

@test "hostile configs: wrong types" {
	run_group types
}

@test "hostile configs: huge and negative numbers" {
	run_group numbers
}

@test "hostile configs: 1 MB strings, bad strings" {
	run_group strings
}

@test "hostile configs: structure (deep nesting, duplicate keys, not JSON, huge)" {
	run_group structure
}

@test "hostile configs: paths (.., relative, missing)" {
	run_group paths
}

@test "hostile configs: the rootfs (symlinks out of it, a symlink rootfs, mounts over /proc, args[0] not runnable)" {
	run_group rootfs
}

@test "hostile configs: ids, namespaces, capabilities, seccomp" {
	run_group ids
}

@test "hostile configs: the table has at least 100 cases, each in a group a test runs" {
	local groups
	groups=$(grep -v '^#' "$TABLE" | cut -f1 | sort -u | tr '\n' ' ')
	assert_eq "$groups" "ids numbers paths rootfs strings structure types " "groups"
	[ "$(grep -vc '^#' "$TABLE")" -ge 100 ]
}
