#!/usr/bin/env bats
# process.apparmorProfile and process.selinuxLabel: applied where the host
# has the LSM, a clear error naming the field where it has not, never
# skipped in silence.  This host has neither; the error path is tested,
# and skipped (with the reason) on a host that has the LSM.

load helpers

@test "apparmorProfile on a host without AppArmor is an error naming the field" {
	if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]; then
		skip "AppArmor is enabled on this host"
	fi
	cfg '.process.apparmorProfile = "shim-test"'
	run_shim
	assert_error "process.apparmorProfile: AppArmor is not enabled on this host, the profile \`shim-test\` cannot be applied"
}

@test "selinuxLabel on a host without SELinux is an error naming the field" {
	if [ "$(stat -f -c %t /sys/fs/selinux 2>/dev/null)" = f97cff8c ]; then
		skip "SELinux is enabled on this host"
	fi
	cfg '.process.selinuxLabel = "system_u:system_r:container_t:s0"'
	run_shim
	assert_error "process.selinuxLabel: SELinux is not enabled on this host, the label \`system_u:system_r:container_t:s0\` cannot be applied"
}

@test "an empty apparmorProfile or selinuxLabel means none: the container runs" {
	cfg '.process.apparmorProfile = "" | .process.selinuxLabel = ""'
	run_shim
	assert_status 0
	assert_contains "$output" "Hello from a shim container"
}
