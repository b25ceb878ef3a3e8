#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Help and version, as runc: `shim help`, `shim --help`, `shim -h` list the
# commands; `shim help CMD`, `shim CMD --help`, `shim CMD -h` print the
# command's usage with every option it takes; all on stdout, exit 0.  An
# unknown command is an error that points at `shim help`, and `shim help
# NOSUCH` says there is no such topic.  Every command name of runc's has a
# help: checkpoint and restore too, which say they are not supported.
# `shim --version` and `shim -v` print runc's three lines (version, commit,
# spec).

load helpers

COMMANDS=(run create start state kill delete exec list ps events pause resume update features spec checkpoint restore)

# options_in_source CMD: the long options of CMD's getopt_long table in
# cli/cmd_*.c (--help is CMD_HELP_OPTION, not listed there).
options_in_source() {
	awk -v want="$1" '
		/^cmd_[a-z_]+ \(/ { cmd = $1; sub(/^cmd_/, "", cmd) }
		/^parse_run_opts \(/ { cmd = "run" }
		/static const struct option opts\[\]/ { in_opts = 1; next }
		in_opts && /^  };/ { in_opts = 0 }
		in_opts && cmd == want && match($0, /\{ "[a-z-]+"/) { print substr($0, RSTART + 3, RLENGTH - 4) }
	' "$REPO"/cli/cmd_*.c
}

# options_in_help TEXT: the long options a help text lists, one a line.
options_in_help() {
	grep -oE '^  (-[a-z], |    )--[a-z-]+' <<<"$1" | sed 's/.*--//'
}

@test "shim help, shim --help, shim -h: the same list of every command, on stdout" {
	run --separate-stderr shim help
	assert_status 0
	assert_eq "$stderr" ""
	local top=$output c
	for c in "${COMMANDS[@]}"; do
		grep -qE "^  $c +[a-z]" <<<"$top" || {
			echo "command $c is not listed" >&2
			false
		}
	done
	assert_contains "$top" '`shim help COMMAND`'
	run --separate-stderr shim --help
	assert_status 0
	assert_eq "$output" "$top" "shim --help"
	run --separate-stderr shim -h
	assert_status 0
	assert_eq "$output" "$top" "shim -h"
	assert_eq "$stderr" ""
	# runc's alias
	run --separate-stderr shim h
	assert_status 0
	assert_eq "$output" "$top" "shim h"
}

@test "every command: shim help CMD, CMD --help and CMD -h print its usage on stdout, exit 0" {
	local c help
	for c in "${COMMANDS[@]}"; do
		run --separate-stderr shim help "$c"
		assert_status 0
		assert_eq "$stderr" "" "stderr of shim help $c"
		help=$output
		assert_eq "${help%%$'\n'*}" "shim $c: $(grep -E "^  $c " <<<"$(shim help)" | sed -E "s/^  $c +//")" \
			"first line of shim help $c"
		assert_contains "$help" "usage: shim $c"
		assert_contains "$help" "  -h, --help "
		run --separate-stderr shim "$c" --help
		assert_status 0
		assert_eq "$output" "$help" "shim $c --help"
		assert_eq "$stderr" "" "stderr of shim $c --help"
		run --separate-stderr shim "$c" -h
		assert_status 0
		assert_eq "$output" "$help" "shim $c -h"
	done
	[ ! -e "$STATE" ] || [ -z "$(ls -A "$STATE")" ]
}

@test "every command's help lists each option of its getopt table once, and each listed option is taken" {
	local c o help listed want ph arg
	for c in "${COMMANDS[@]}"; do
		help=$(shim help "$c")
		listed=$(options_in_help "$help" | sort)
		want=$(
			options_in_source "$c"
			echo help
		)
		want=$(sort -u <<<"$want")
		assert_eq "$listed" "$want" "options in the help of $c (left) and in its getopt table (right)"
		# Each option the help lists is parsed (an unknown one, or a bad
		# value, would be an error before --help): OPTION [VALUE] --help
		# prints the help.
		while read -r o; do
			[ "$o" = help ] && continue
			ph=$(sed -nE "s/^  (-[a-z], |    )--$o ([^ ]+) .*/\2/p" <<<"$help")
			case $ph in
			'') arg=() ;;
			SIZE) arg=(1M) ;;
			BYTES | N | GID) arg=(1) ;;
			DURATION) arg=(1s) ;;
			'table|json') arg=(json) ;;
			KEY=VALUE) arg=(A=1) ;;
			*) arg=(x) ;;
			esac
			run --separate-stderr shim "$c" "--$o" "${arg[@]}" --help
			assert_status 0
			assert_eq "$output" "$help" "shim $c --$o ${arg[*]} --help"
		done <<<"$listed"
	done
}

@test "--help among the options, before the id, is the command's help; after the id it is not" {
	run --separate-stderr shim create --bundle "$BUNDLE" --help "$ID"
	assert_status 0
	assert_eq "$output" "$(shim help create)"
	[ ! -e "$STATE/$ID" ]
	run --separate-stderr shim kill --all --help "$ID" KILL
	assert_status 0
	assert_eq "$output" "$(shim help kill)"
	# after the id: the container's command line (here: no such container)
	run --separate-stderr shim exec "$ID" /bin/sh --help
	assert_error_status 255 "container \`$ID\` does not exist"
	run --separate-stderr shim state "$ID" --help
	assert_error 'state: exactly one container id is required'
}

@test "shim help NOSUCH and shim NOSUCH: an error naming it, pointing at shim help" {
	local how want
	for how in "help frobnicate" "frobnicate"; do
		want="shim: unknown command \`frobnicate\`"
		[ "$how" = frobnicate ] || want="shim: no help topic for \`frobnicate\`"
		# shellcheck disable=SC2086
		run --separate-stderr shim $how
		assert_status 1
		assert_eq "$output" "" "stdout of shim $how"
		assert_eq "${stderr%%$'\n'*}" "$want" "shim $how"
		assert_contains "$stderr" '`shim help`'
	done
}

@test "checkpoint and restore, with runc's options: not supported by shim, said so; nothing changes" {
	local c
	for c in checkpoint restore; do
		run --separate-stderr shim "$c" --image-path "$T/img" --leave-running "$ID"
		assert_error "$c: not supported by shim (it has no checkpoint/restore); nothing was done"
	done
	[ ! -e "$T/img" ]
	[ ! -e "$STATE" ] || [ -z "$(ls -A "$STATE")" ]
}

@test "shim --version and shim -v: version, commit and spec lines, as runc's" {
	run --separate-stderr shim --version
	assert_status 0
	assert_eq "$stderr" ""
	local lines
	mapfile -t lines <<<"$output"
	assert_eq "${#lines[@]}" 3 "lines"
	[[ "${lines[0]}" =~ ^shim\ version\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[[ "${lines[1]}" =~ ^commit:\ [^\ ]+$ ]]
	assert_eq "${lines[2]}" "spec: $(shim features | jq -r .ociVersionMax)"
	# The commit is the checkout's (`git describe` ends with the short hash).
	if [ -e "$REPO/.git" ]; then
		assert_contains "${lines[1]}" "$(git -C "$REPO" rev-parse --short HEAD)"
	else
		assert_eq "${lines[1]}" "commit: unknown"
	fi
	local version=$output
	run --separate-stderr shim -v
	assert_status 0
	assert_eq "$output" "$version" "shim -v"
	run --separate-stderr "$REPO/shim-oom-hook" --version
	assert_status 0
	assert_eq "$(sed -n 2p <<<"$output")" "${lines[1]}" "the hook's commit line"
}

@test "a new commit rebuilds only the three files that print it" {
	# make -n against a stamp of our own: with the same commit nothing that
	# prints it is rebuilt; with another one exactly those three are (the
	# two --version printers and `features`, which prints the version).
	local mk=(make -n -C "$REPO" COMMIT_STAMP="$T/commit" shim shim-oom-hook)
	"${mk[@]}" SHIM_COMMIT=c1 >/dev/null
	touch -d '2000-01-01' "$T/commit"
	run "${mk[@]}" SHIM_COMMIT=c1
	assert_status 0
	assert_not_contains "$output" "-DSHIM_COMMIT"
	assert_eq "$(cat "$T/commit")" "$(make -s -C "$REPO" -f Makefile -f - print-version <<<'print-version: ; @echo $(VERSION)') c1"
	run "${mk[@]}" SHIM_COMMIT=c2
	assert_status 0
	assert_eq "$(grep -c -- '-DSHIM_COMMIT' <<<"$output")" 3 "compiles with the commit"
	assert_eq "$(grep -oE -- "-DSHIM_COMMIT='\"c2\"' .* -c -o [a-z/_]+\.o" <<<"$output" | awk '{ print $NF }' | sort | tr '\n' ' ')" \
		"cli/main.o hooks/oom_hook.o runtime/features.o "
}
