#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# A config.json field that is not in the runtime spec is ignored, as runc
# ignores it, never an error: a warning names its JSON path and the closest
# known name.

load helpers

@test "a misspelt field: the container runs, a warning names it and the known name" {
	set_args /bin/true
	cfg '.linux.resources.memroy = {limit: 67108864}'
	run_shim
	assert_status 0
	assert_eq "$stderr" 'shim: warning: config.json: linux.resources.memroy: not in the runtime spec, ignored (did you mean `memory`?)'
}

@test "run --json: the warning is in the line's warnings" {
	set_args /bin/true
	cfg '.proccess = {}'
	run_shim --json
	assert_status 0
	assert_eq "$(jq -c .warnings <<<"$stderr")" '["config.json: proccess: not in the runtime spec, ignored (did you mean `process`?)"]'
	assert_eq "$(jq -r .reason <<<"$stderr")" Exited
}
