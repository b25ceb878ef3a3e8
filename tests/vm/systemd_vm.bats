#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
#
# The VM's systemd mode itself. These tests run INSIDE the VM booted with
# systemd as PID 1:
#
#   tests/vm/run -s -- bats tests/vm/systemd_vm.bats
#
# Anywhere else they fail (on purpose, not skip): a silent skip would hide a
# systemd mode that booted something else.

@test "systemd is PID 1 and the boot finished without a failed unit" {
	[ "$(ps -p 1 -o comm=)" = systemd ]
	# Bounded: the VM's -t bounds it too, but a hung boot should say so here.
	run timeout 120 systemctl is-system-running --wait
	echo "$output"
	[ "$output" = running ]
	run systemctl list-units --failed --plain --no-legend --no-pager
	echo "$output"
	[ -z "$output" ]
}

@test "the command runs in its own unit, on systemd's cgroup v2 hierarchy" {
	[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]
	[ "$(cat /proc/self/cgroup)" = 0::/system.slice/shim-vm-cmd.service ]
	# systemd enabled the controllers a delegated scope needs.
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control
	grep -qw pids /sys/fs/cgroup/system.slice/cgroup.subtree_control
	# Not a container: systemd read the kernel command line (the hostname
	# it set comes from systemd.hostname=).
	run systemd-detect-virt --container
	[ "$status" -ne 0 ]
	[ "$(hostname)" = shim-vm ]
}

@test "the system bus and systemd's private socket answer" {
	run timeout 30 busctl --system status
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *BusScope=system* ]]
	run timeout 30 systemctl show -p Version --value
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	[ -S /run/systemd/private ]
}
