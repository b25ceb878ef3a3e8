#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# `shim features`: the runtime-spec features document (JSON).  `shim spec`:
# a default config.json, which `shim run` can use, never overwriting one.

load helpers
load lifecycle_helpers

@test "features: valid JSON with ociVersionMin/Max and all six hook stages" {
	run --separate-stderr shim features
	assert_status 0
	assert_eq "$stderr" ""
	jq -e . <<<"$output" >/dev/null
	assert_eq "$(jq -r .ociVersionMin <<<"$output")" 1.0.0
	assert_eq "$(jq -r .ociVersionMax <<<"$output")" 1.2.0
	assert_eq "$(jq -c '.hooks | sort' <<<"$output")" \
		'["createContainer","createRuntime","poststart","poststop","prestart","startContainer"]'
	assert_eq "$(jq '.hooks | length' <<<"$output")" 6
}

@test "features: ociVersionMax is the version state reports" {
	sh_cmd 'exec sleep 1000'
	ct_create_ok
	assert_eq "$(shim features | jq -r .ociVersionMax)" "$(ct_field ociVersion)"
	ct_cleanup
}

@test "features: linux namespaces, cgroup v2, the verdict annotations" {
	run --separate-stderr shim features
	assert_status 0
	assert_eq "$(jq -c '.linux.namespaces | sort' <<<"$output")" '["cgroup","ipc","mount","network","pid","user","uts"]'
	assert_eq "$(jq -r .linux.cgroup.v2 <<<"$output")" true
	jq -e '.mountOptions | index("ro") != null and index("bind") != null' <<<"$output" >/dev/null
	assert_eq "$(jq -r '.annotations["io.github.shim.verdict.annotations"]' <<<"$output")" \
		"io.github.shim.verdict io.github.shim.oom-killed io.github.shim.reason"
}

@test "features: seccomp and capabilities as config.json may use them" {
	run --separate-stderr shim features
	assert_status 0
	assert_eq "$(jq -r .linux.seccomp.enabled <<<"$output")" true
	jq -e '.linux.seccomp.actions | index("SCMP_ACT_NOTIFY") != null and index("SCMP_ACT_ERRNO") != null' <<<"$output" >/dev/null
	jq -e '.linux.seccomp.operators | index("SCMP_CMP_MASKED_EQ") != null' <<<"$output" >/dev/null
	jq -e '.linux.seccomp.archs | index("SCMP_ARCH_X86_64") != null' <<<"$output" >/dev/null
	jq -e '.linux.capabilities | index("CAP_SYS_ADMIN") != null and index("CAP_CHOWN") != null' <<<"$output" >/dev/null
	# Every capability features lists is one config.json may grant.
	cfg --argjson c "$(jq -c .linux.capabilities <<<"$output")" '.process.capabilities = {bounding: $c}'
	run_shim
	assert_status 0
}

@test "features takes no arguments" {
	run --separate-stderr shim features extra
	assert_error 'features: takes no arguments'
}

@test "spec writes a config.json" {
	mkdir "$T/new"
	run --separate-stderr shim spec --bundle "$T/new"
	assert_status 0
	assert_eq "$output" ""
	jq -e . "$T/new/config.json" >/dev/null
	assert_eq "$(jq -r .ociVersion "$T/new/config.json")" 1.0.2
	assert_eq "$(jq -r .root.path "$T/new/config.json")" rootfs
	assert_eq "$(jq -c .process.args "$T/new/config.json")" '["sh"]'
	assert_eq "$(jq -r '.linux.namespaces | map(.type) | sort | join(" ")' "$T/new/config.json")" \
		"cgroup ipc mount network pid uts"
}

@test "spec without --bundle writes to the current directory" {
	mkdir "$T/cwd"
	(cd "$T/cwd" && "$SHIM_BIN" spec)
	jq -e .process "$T/cwd/config.json" >/dev/null
}

@test "spec refuses to overwrite a config.json" {
	mkdir "$T/new"
	echo '{"mine": true}' >"$T/new/config.json"
	run --separate-stderr shim spec --bundle "$T/new"
	assert_error "\`$T/new/config.json\`: File exists"
	assert_eq "$(cat "$T/new/config.json")" '{"mine": true}'
	# and its own
	rm "$T/new/config.json"
	shim spec --bundle "$T/new"
	cp "$T/new/config.json" "$T/first.json"
	run --separate-stderr shim spec --bundle "$T/new"
	assert_status 1
	cmp "$T/first.json" "$T/new/config.json"
}

@test "spec into a directory that does not exist fails" {
	run --separate-stderr shim spec --bundle "$T/nowhere"
	assert_error "bundle \`$T/nowhere\`: No such file or directory"
}

@test "the spec's config.json runs, with its root path adjusted" {
	local b=$T/from-spec
	mkdir "$b"
	shim spec --bundle "$b"
	# The default is an interactive sh on a terminal: a command instead,
	# the example rootfs, and the test's tag in the environment.
	jq --arg root "$ROOTFS" --arg tag "SHIM_TEST_TAG=$TAG" \
		'.root.path = $root | .process.terminal = false | .process.env += [$tag]
		 | .process.args = ["/bin/sh", "-c", "echo \"from spec on $(hostname), pid $$\""]' \
		"$b/config.json" >"$b/config.json.new"
	mv "$b/config.json.new" "$b/config.json"
	BUNDLE=$b
	run --separate-stderr shim run --bundle "$b" "$ID"
	assert_status 0
	assert_eq "$output" "from spec on shim, pid 1"
	[ ! -e "$STATE/$ID" ]
}

@test "the spec's config.json runs with create and start too" {
	local b=$T/from-spec
	mkdir "$b"
	shim spec --bundle "$b"
	jq --arg root "$ROOTFS" --arg tag "SHIM_TEST_TAG=$TAG" \
		'.root.path = $root | .process.terminal = false | .process.env += [$tag]
		 | .process.args = ["/bin/sleep", "1000"]' "$b/config.json" >"$b/config.json.new"
	mv "$b/config.json.new" "$b/config.json"
	BUNDLE=$b
	ct_up
	assert_eq "$(ct_status)" running
	assert_eq "$(ct_field bundle)" "$(realpath "$b")"
	ct_cleanup
}
