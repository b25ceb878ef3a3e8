#!/usr/bin/env bats
# mounts[]: options split into flags, propagation and filesystem data, bind
# mounts (ro, rbind), all of it visible in the container's mountinfo.

load helpers

# mountinfo_line MOUNTPOINT: "<per-mount options> <fstype> <super options>"
# from the container's mountinfo in $output.
mountinfo_of() {
	awk -v mp="$1" '$5 == mp { for (i = 7; $i != "-"; i++) ; print $6, $(i + 1), $(i + 3) }' <<<"$output"
}

@test "tmpfs flags ro,nosuid,nodev,noexec and data size=,mode= are applied" {
	add_mount /tmp/flags tmpfs tmpfs ro nosuid nodev noexec size=64k mode=750
	sh_cmd 'cat /proc/self/mountinfo; echo; stat -c "%a" /tmp/flags; touch /tmp/flags/x'
	run_shim
	assert_status 1
	local mi
	mi=$(mountinfo_of /tmp/flags)
	[[ "$mi" =~ ^ro,nosuid,nodev,noexec(,relatime)?\ tmpfs\ ro,size=64k,mode=750 ]] || {
		echo "mountinfo of /tmp/flags: $mi" >&2
		return 1
	}
	assert_contains "$output" $'\n\n750'
	assert_contains "$stderr" "touch: /tmp/flags/x: Read-only file system"
}

@test "options that clear a flag win when they come last (rw after ro, exec after noexec)" {
	add_mount /tmp/cleared tmpfs tmpfs ro noexec rw exec
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	local mi
	mi=$(mountinfo_of /tmp/cleared)
	[[ "$mi" =~ ^rw(,relatime)?\ tmpfs ]] || {
		echo "mountinfo of /tmp/cleared: $mi" >&2
		return 1
	}
}

@test "noexec: a program on the mount cannot be run" {
	add_mount /tmp/nx tmpfs tmpfs noexec
	sh_cmd 'cp /bin/busybox /tmp/nx/bb && /tmp/nx/bb true'
	run_shim
	assert_status 126
	assert_contains "$stderr" "Permission denied"
}

@test "a read-only bind mount of a host directory: readable, not writable" {
	mkdir "$T/src"
	echo from-host >"$T/src/file"
	add_mount /tmp/ro bind "$T/src" bind ro
	sh_cmd 'cat /tmp/ro/file; echo changed >/tmp/ro/file'
	run_shim
	assert_status 1
	assert_eq "$output" "from-host"
	assert_contains "$stderr" "Read-only file system"
	assert_eq "$(cat "$T/src/file")" "from-host" "host file"
}

@test "a read-write bind mount: what the container writes is on the host" {
	mkdir "$T/src"
	add_mount /tmp/rw bind "$T/src" rbind rw
	sh_cmd 'echo from-container >/tmp/rw/new'
	run_shim
	assert_status 0
	assert_eq "$(cat "$T/src/new")" "from-container"
}

@test "a bind mount of a single file" {
	echo one-file >"$T/file"
	add_mount /tmp/file bind "$T/file" bind ro
	sh_cmd 'cat /tmp/file; test -f /tmp/file && echo is-a-file'
	run_shim
	assert_status 0
	assert_eq "$output" "one-file
is-a-file"
}

@test "type bind without a bind option is a bind mount too" {
	mkdir "$T/src"
	echo typed >"$T/src/file"
	cfg --arg s "$T/src" '.mounts += [{destination: "/tmp/typed", type: "bind", source: $s}]'
	sh_cmd 'cat /tmp/typed/file'
	run_shim
	assert_status 0
	assert_eq "$output" "typed"
}

@test "a bind source relative to the bundle" {
	mkdir "$BUNDLE/data"
	echo in-bundle >"$BUNDLE/data/file"
	add_mount /tmp/rel bind data bind ro
	sh_cmd 'cat /tmp/rel/file'
	run_shim
	assert_status 0
	assert_eq "$output" "in-bundle"
}

@test "rbind brings the mounts below the source along, bind does not" {
	mkdir -p "$T/src/sub"
	mount -t tmpfs "shim-sub-$TAG" "$T/src/sub"
	register_mount "$T/src/sub"
	echo below >"$T/src/sub/file"
	add_mount /tmp/rbind bind "$T/src" rbind
	add_mount /tmp/bind bind "$T/src" bind
	sh_cmd 'cat /tmp/rbind/sub/file; ls /tmp/bind/sub | wc -l'
	run_shim
	assert_status 0
	assert_eq "$output" "below
0"
}

@test "propagation options are applied: shared on a tmpfs" {
	add_mount /tmp/shared tmpfs tmpfs shared
	add_mount /tmp/private tmpfs tmpfs
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	local shared private
	shared=$(awk '$5 == "/tmp/shared"' <<<"$output")
	private=$(awk '$5 == "/tmp/private"' <<<"$output")
	assert_contains "$shared" " shared:"
	assert_not_contains "$private" " shared:"
}

@test "propagation options on a bind mount without other flags (rbind, rslave)" {
	mkdir "$T/src"
	echo slave >"$T/src/file"
	add_mount /tmp/slave bind "$T/src" rbind rslave
	sh_cmd 'cat /tmp/slave/file'
	run_shim
	assert_status 0
	assert_eq "$output" "slave"
}

@test "a cgroup mount is the unified hierarchy, read-only as asked" {
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	local mi
	mi=$(mountinfo_of /sys/fs/cgroup)
	[[ "$mi" =~ ^ro,nosuid,nodev,noexec(,relatime)?\ cgroup2\  ]] || {
		echo "mountinfo of /sys/fs/cgroup: $mi" >&2
		return 1
	}
}

@test "mounts are made in order: a later one lands inside an earlier one" {
	add_mount /tmp/outer tmpfs tmpfs size=1m
	add_mount /tmp/outer/inner tmpfs tmpfs size=2m
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	local outer inner
	outer=$(awk '$5 == "/tmp/outer" { print $1 }' <<<"$output")
	inner=$(awk '$5 == "/tmp/outer/inner" { print $2 }' <<<"$output")
	[ -n "$outer" ]
	assert_eq "$inner" "$outer" "parent of /tmp/outer/inner"
}

@test "a destination through a symlink stays inside the rootfs" {
	# The host directory, bind-mounted into the container, holds a symlink
	# to "/tmp"; the next mount's destination goes through it.  Resolved
	# in the container's root it is the container's /tmp, never the host's.
	mkdir "$T/src"
	ln -s /tmp "$T/src/link"
	local name=shim-escape-$TAG
	add_mount /tmp/d bind "$T/src" bind
	add_mount "/tmp/d/link/$name" tmpfs tmpfs
	sh_cmd "awk '{ print \$5 }' /proc/self/mountinfo | grep -x /tmp/$name"
	run_shim
	if [ -e "/tmp/$name" ]; then
		rmdir "/tmp/$name"
		echo "the mount went through the symlink to the host's /tmp" >&2
		return 1
	fi
	assert_status 0
	assert_eq "$output" "/tmp/$name"
}
