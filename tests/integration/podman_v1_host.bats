#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# podman 4.3 (Debian's, cgroupfs manager, conmon) with `--runtime shim` on
# this hybrid host, where the controllers are on cgroup v1: a container
# with podman's default pids limit, a memory hog podman reports
# OOMKilled=true (with runc it says false: runc writes no <bundle>/oom),
# and `podman kill -s KILL` OOMKilled=false.
#
# This machine has no CAP_SYS_RESOURCE, so neither runc nor shim may raise
# the hard rlimits podman asks for by default (nofile and nproc 1048576;
# both fail the same way): the containers are given lower ones.

load helpers

setup_file() {
	command -v podman >/dev/null || skip "podman is not installed (make test-deps)"
	local d=$BATS_FILE_TMPDIR/podman
	mkdir -p "$d/tmp"
	cat >"$d/storage.conf" <<-EOF2
		[storage]
		driver = "vfs"
		runroot = "$d/run"
		graphroot = "$d/storage"
	EOF2
	echo '{"default": [{"type": "insecureAcceptAnything"}]}' >"$d/policy.json"
	export CONTAINERS_STORAGE_CONF=$d/storage.conf PODMAN_DIR=$d
	# The cgroups podman makes (libpod_parent) in hierarchies that did not
	# have them: removed at the end.
	ls -d /sys/fs/cgroup/*/libpod_parent 2>/dev/null >"$d/cgroups.before" || true
	tar -C "$ROOTFS" -c . | P import --quiet --signature-policy "$d/policy.json" - localhost/shimtest:latest >/dev/null
}

teardown_file() {
	local d
	[ -n "${PODMAN_DIR:-}" ] || return 0
	P rm --all --force >/dev/null 2>&1 || true
	P rmi --all --force >/dev/null 2>&1 || true
	for d in /sys/fs/cgroup/*/libpod_parent; do
		[ -d "$d" ] || continue
		grep -qxF "$d" "$PODMAN_DIR/cgroups.before" && continue
		# conmon's own cgroup, empty once it has gone.
		[ ! -d "$d/conmon" ] || rmdir "$d/conmon"
		rmdir "$d"
	done
}

setup() {
	shim_setup
	# conmon writes an `oom` file into its working directory.
	cd "$BATS_TEST_TMPDIR" || return 1
}

teardown() {
	local ids
	ids=$(P ps -aq --no-trunc)
	P rm --all --force >/dev/null 2>&1 || true
	for i in $ids; do
		if ls -d /sys/fs/cgroup/*/libpod_parent/libpod-"$i" >/dev/null 2>&1; then
			echo "cgroups left behind for $i" >&2
			return 1
		fi
		[ ! -e "/run/shim/$i" ] || { echo "shim state left behind: /run/shim/$i" >&2; return 1; }
	done
	shim_teardown
}

P() {
	podman --cgroup-manager cgroupfs --events-backend file --tmpdir "$PODMAN_DIR/tmp" "$@"
}

# podman run with shim, rlimits it may set, no network.
prun() {
	P --runtime "$SHIM_BIN" run --network none --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 "$@"
}

@test "podman --runtime shim on a v1 host: podman's default pids limit is in force" {
	run prun -d --name pidsct localhost/shimtest:latest /bin/sh -c 'echo ready; exec sleep 600'
	echo "$output"
	[ "$status" -eq 0 ]
	id=$(P inspect -f '{{.Id}}' pidsct)
	# podman's default pids limit, in the container's v1 pids cgroup.
	assert_eq "$(cat "/sys/fs/cgroup/pids/libpod_parent/libpod-$id/pids.max")" 2048
	run P --runtime "$SHIM_BIN" exec pidsct /bin/sh -c 'echo from exec'
	assert_eq "$output" "from exec"
	run P --runtime "$SHIM_BIN" rm -f -t 0 pidsct
	[ "$status" -eq 0 ]
}

@test "podman --runtime shim on a v1 host: a memory hog is OOMKilled=true, exit code 137" {
	run prun --name hog --memory 64m --memory-swap 64m localhost/shimtest:latest /bin/memhog -s 8 -n 256
	[ "$status" -eq 137 ]
	run P inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' hog
	echo "podman inspect: $output"
	assert_eq "$output" "true 137"
}

@test "podman --runtime shim on a v1 host: podman kill -s KILL is OOMKilled=false, exit code 137" {
	run prun -d --name victim --memory 64m --memory-swap 64m localhost/shimtest:latest \
		/bin/sh -c 'echo ready; exec sleep 600'
	[ "$status" -eq 0 ]
	run P --runtime "$SHIM_BIN" kill -s KILL victim
	[ "$status" -eq 0 ]
	run P wait victim
	assert_eq "$output" 137
	run P inspect -f '{{.State.OOMKilled}} {{.State.ExitCode}}' victim
	echo "podman inspect: $output"
	assert_eq "$output" "false 137"
}
