#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# linux.namespaces: each listed type is new (or joined by path), each one not
# listed is the host's.

load helpers

@test "the process is pid 1 and sees only its own processes" {
	# The glob is expanded by sh itself: no other process runs.
	sh_cmd 'echo $$ /proc/[0-9]*'
	run_shim
	assert_status 0
	assert_eq "$output" "1 /proc/1"
}

@test "the container has its own hostname; the host's is untouched" {
	local before
	before=$(hostname)
	cfg '.hostname = "box-in-shim"'
	set_args /bin/hostname
	run_shim
	assert_status 0
	assert_eq "$output" "box-in-shim"
	assert_eq "$(hostname)" "$before" "host hostname"
}

@test "a new network namespace has only lo, and it is up" {
	sh_cmd 'ls /sys/class/net; ip -o link show lo; ping -c1 -W2 127.0.0.1 >/dev/null && echo ping ok'
	# busybox ping needs a raw socket; without process.capabilities the
	# process has no capabilities at all.
	cfg '.process.capabilities = {bounding: ["CAP_NET_RAW"], effective: ["CAP_NET_RAW"], permitted: ["CAP_NET_RAW"]}'
	run_shim
	assert_status 0
	local lines
	mapfile -t lines <<<"$output"
	assert_eq "${lines[0]}" "lo" "interfaces"
	[[ "${lines[1]}" =~ \<LOOPBACK,UP,LOWER_UP\> ]] || {
		echo "lo is not up: ${lines[1]}" >&2
		return 1
	}
	assert_eq "${lines[2]}" "ping ok"
	assert_eq "${#lines[@]}" 3
}

@test "namespaces of every listed type are new" {
	sh_cmd 'for t in ipc uts net mnt pid cgroup; do echo "$t $(readlink /proc/1/ns/$t)"; done'
	run_shim
	assert_status 0
	local t inside
	while read -r t inside; do
		[ -n "$inside" ] || { echo "no link for $t" >&2; return 1; }
		if [ "$inside" = "$(readlink "/proc/self/ns/$t")" ]; then
			echo "$t namespace is the host's: $inside" >&2
			return 1
		fi
	done <<<"$output"
	assert_eq "$(wc -l <<<"$output")" 6
}

@test "a namespace type not listed is the host's (network and ipc here)" {
	del_namespace network
	del_namespace ipc
	sh_cmd 'readlink /proc/1/ns/net; readlink /proc/1/ns/ipc; readlink /proc/1/ns/uts'
	run_shim
	assert_status 0
	local lines
	mapfile -t lines <<<"$output"
	assert_eq "${lines[0]}" "$(readlink /proc/self/ns/net)" "net"
	assert_eq "${lines[1]}" "$(readlink /proc/self/ns/ipc)" "ipc"
	[ "${lines[2]}" != "$(readlink /proc/self/ns/uts)" ]
}

@test "the host's mounts are not visible inside" {
	mkdir "$T/marker"
	mount -t tmpfs "shim-marker-$TAG" "$T/marker"
	register_mount "$T/marker"
	echo secret >"$T/marker/file"
	# A config without masked/readonly paths: exactly the mounts it lists.
	cfg 'del(.linux.maskedPaths, .linux.readonlyPaths)'
	sh_cmd 'cat /proc/self/mountinfo'
	run_shim
	assert_status 0
	assert_not_contains "$output" "shim-marker-$TAG"
	assert_not_contains "$output" "$T"
	local mps
	mps=$(awk '{ print $5 }' <<<"$output" | tr '\n' ' ')
	assert_eq "$mps" "/ /proc /dev /dev/pts /dev/shm /dev/mqueue /sys /sys/fs/cgroup /tmp " "mount points"
}

@test "the ipc namespace is separate: the host's SysV segments are not visible" {
	local shmid
	shmid=$(ipcmk -M 4096 | awk '{ print $NF }')
	[ -n "$shmid" ]
	sh_cmd 'readlink /proc/1/ns/ipc; cat /proc/sysvipc/shm | wc -l'
	run_shim
	ipcrm -m "$shmid"
	assert_status 0
	local lines
	mapfile -t lines <<<"$output"
	[ "${lines[0]}" != "$(readlink /proc/self/ns/ipc)" ]
	# only the header line: none of the host's segments
	assert_eq "${lines[1]}" 1
}

@test "joins an existing uts namespace by path" {
	touch "$T/uts"
	unshare --uts="$T/uts" hostname joined-by-path
	register_mount "$T/uts"
	cfg --arg p "$T/uts" 'del(.hostname) | (.linux.namespaces[] | select(.type == "uts")) += {path: $p}'
	sh_cmd 'hostname; readlink /proc/self/ns/uts'
	run_shim
	assert_status 0
	local lines
	mapfile -t lines <<<"$output"
	assert_eq "${lines[0]}" "joined-by-path"
	assert_eq "${lines[1]}" "uts:[$(stat -L -c %i "$T/uts")]"
}

@test "joins an existing network namespace by path, and leaves its lo alone" {
	touch "$T/net"
	unshare --net="$T/net" true
	register_mount "$T/net"
	cfg --arg p "$T/net" '(.linux.namespaces[] | select(.type == "network")) += {path: $p}'
	sh_cmd 'readlink /proc/self/ns/net; ip -o link show lo'
	run_shim
	assert_status 0
	local lines
	mapfile -t lines <<<"$output"
	assert_eq "${lines[0]}" "net:[$(stat -L -c %i "$T/net")]"
	# A joined namespace is someone else's: lo stays as it was (down).
	[[ "${lines[1]}" != *",UP"* ]]
}

@test "a namespace path that does not exist is an error naming it" {
	cfg --arg p "$T/nope" '(.linux.namespaces[] | select(.type == "uts")) += {path: $p}'
	run_shim
	assert_error "linux.namespaces[3].path \`$T/nope\`: No such file or directory"
}

# Two different ones are refused: hostile_configs.tsv.
@test "the same namespace listed twice is taken once, with a warning, as runc 1.2 does" {
	# ipc twice without a path: one new ipc namespace, not an error.
	cfg '.linux.namespaces += [{type: "ipc"}]'
	sh_cmd 'readlink /proc/self/ns/ipc'
	run_shim
	assert_status 0
	[ "$output" != "$(readlink /proc/self/ns/ipc)" ]
	assert_eq "$stderr" "shim: warning: config.json: linux.namespaces[$(jq '.linux.namespaces | length - 1' "$BUNDLE/config.json")].type: namespace \`ipc\` given twice, the same as linux.namespaces[$(jq '.linux.namespaces | map(.type) | index("ipc")' "$BUNDLE/config.json")]: taken once"
	# The host's network namespace joined twice by one path: joined once.
	cfg '.linux.namespaces |= map(select(.type != "network" and .type != "ipc"))
		+ [{type: "network", path: "/proc/'"$$"'/ns/net"}, {type: "network", path: "/proc/'"$$"'/ns/net"}]'
	sh_cmd 'readlink /proc/self/ns/net'
	run_shim
	assert_status 0
	assert_eq "$output" "$(readlink /proc/$$/ns/net)"
	assert_contains "$stderr" "namespace \`network\` given twice, the same as"
}
