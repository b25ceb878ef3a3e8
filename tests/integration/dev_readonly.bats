#!/usr/bin/env bats
# A /dev mount with `ro`: the container starts, its nodes and the mounts
# under /dev are there, and /dev itself cannot be written (the option is
# applied after the nodes are made, as runc does).

load helpers

@test "ro on the /dev tmpfs: nodes and submounts made, /dev read-only, /dev/shm still writable" {
	cfg '(.mounts[] | select(.destination == "/dev") | .options) += ["ro"]'
	sh_cmd 'ls -d /dev/null /dev/zero /dev/tty /dev/ptmx /dev/pts /dev/shm /dev/mqueue | tr "\n" " "; echo
		echo x >/dev/null && echo null-ok
		awk "\$5 == \"/dev\" { split(\$6, o, \",\"); print o[1] }" /proc/self/mountinfo
		touch /dev/new; touch /dev/shm/new && echo shm-ok'
	run_shim
	assert_status 0
	assert_eq "$output" "/dev/mqueue /dev/null /dev/ptmx /dev/pts /dev/shm /dev/tty /dev/zero 
null-ok
ro
shm-ok"
	assert_contains "$stderr" "touch: /dev/new: Read-only file system"
}
