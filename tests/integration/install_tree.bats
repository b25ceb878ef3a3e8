#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Installed like a system package: `make install` into a DESTDIR puts every
# file where it belongs with BINDIR substituted, the man pages render, the
# completion completes, `make uninstall` leaves nothing; `make dist` makes a
# tarball that builds, with Debian's hardening flags, without git.
# (No container is run: helpers' teardown has nothing to find.)

load helpers

make_() {
	make -s -C "$REPO" "$@"
}

@test "make install DESTDIR PREFIX=/usr: every file, BINDIR substituted; uninstall leaves no file" {
	local d=$T/dest
	make_ install DESTDIR="$d" PREFIX=/usr
	local want=(
		usr/bin/shim usr/bin/shim-oom-hook usr/bin/containerd-shim-shim-v2
		usr/share/man/man8/shim.8 usr/share/man/man8/shim-oom-hook.8
		usr/share/man/man7/shim-verdict.7
		usr/share/bash-completion/completions/shim
		usr/share/bash-completion/completions/shim-oom-hook
		usr/share/containers/oci/hooks.d/shim-oom-hook.json
		usr/share/doc/shim/examples/podman/containers.conf
		usr/share/doc/shim/examples/containerd/config.toml
		usr/share/doc/shim/examples/docker/daemon.json
		usr/share/doc/shim/examples/config/oci-hooks.json
		usr/share/doc/shim/examples/kubernetes/runtimeclass.yaml
		usr/share/doc/shim/README.md usr/share/doc/shim/CHANGELOG.md
		usr/share/doc/shim/LICENSE
	)
	local f missing=0
	for f in "${want[@]}"; do
		[ -f "$d/$f" ] || { echo "not installed: $f"; missing=1; }
	done
	[ $missing -eq 0 ]
	# Nothing else was installed.
	[ "$(cd "$d" && find . -type f | wc -l)" -eq "${#want[@]}" ]
	[ -x "$d/usr/bin/shim" ] && [ -x "$d/usr/bin/shim-oom-hook" ] && [ -x "$d/usr/bin/containerd-shim-shim-v2" ]
	"$d/usr/bin/shim" --version | grep -q '^shim version '
	# The snippets name the installed binaries, not /usr/local/bin.
	run grep -rl /usr/local/bin "$d/usr/share/doc/shim/examples" "$d/usr/share/containers"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qF '"path": "/usr/bin/shim-oom-hook"' "$d/usr/share/containers/oci/hooks.d/shim-oom-hook.json"
	grep -qF 'BinaryName = "/usr/bin/shim"' "$d/usr/share/doc/shim/examples/containerd/config.toml"
	jq -e . "$d/usr/share/containers/oci/hooks.d/shim-oom-hook.json" >/dev/null

	make_ uninstall DESTDIR="$d" PREFIX=/usr
	run find "$d" -mindepth 1 ! -type d
	echo "$output"
	[ -z "$output" ]
}

@test "the man pages render without a warning" {
	local p
	for p in "$REPO"/docs/man/shim.8 "$REPO"/docs/man/shim-oom-hook.8 "$REPO"/docs/man/shim-verdict.7; do
		[ -f "$p" ]
		run --separate-stderr env MANWIDTH=80 man --warnings -l "$p"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ] || { echo "$p: $stderr"; false; }
		[ "${#lines[@]}" -gt 20 ]
	done
	# shim(8) names every command of the command table.
	local c
	for c in $(shim_commands); do
		grep -q "^\*$c\*" "$REPO/docs/man/shim.8.scd" || { echo "shim.8 lacks $c"; false; }
	done
}

# The command names, from `shim help`.
shim_commands() {
	"$SHIM_BIN" help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'
}

# complete WORDS...: what the completion offers for the last word.
complete_() {
	bash -c 'source "$1"; shift; fn=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $fn; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$@"
}

@test "bash completion: commands, every command's options, container ids from --root" {
	local comp=$REPO/config/bash-completion/shim
	run complete_ "$comp" _shim shim cr
	[ "$output" = create ]
	# Every command of `shim help` is offered.
	run complete_ "$comp" _shim shim ''
	local c
	for c in $(shim_commands); do
		printf '%s\n' "$output" | grep -qx "$c" || { echo "not completed: $c"; false; }
	done
	# Every long option of each command's --help is offered.
	for c in $(shim_commands); do
		local o
		for o in $("$SHIM_BIN" "$c" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			run complete_ "$comp" _shim shim "$c" "$o"
			printf '%s\n' "$output" | grep -qx -- "$o" || { echo "shim $c: $o not completed"; false; }
		done
	done
	# Ids from the --root given on the line.
	mkdir -p "$T/root/abc123" "$T/root/abd456"
	run complete_ "$comp" _shim shim --root "$T/root" delete ab
	[ "$(printf '%s\n' "$output" | sort | tr '\n' ' ')" = "abc123 abd456 " ]

	run complete_ "$REPO/config/bash-completion/shim-oom-hook" _shim_oom_hook shim-oom-hook po
	[ "$output" = poststop ]
}

@test "shim-oom-hook show takes a unique prefix of the id, and names an ambiguous one" {
	local v=$T/verdicts full=0123456789abcdef0123456789abcdef
	mkdir -p "$v/$full" "$v/fedcba9876543210" "$v/fedcba98ffff"
	printf '{"verdict":{"reason":"Killed","message":"stopped by test"}}\n' >"$v/$full/verdict.json"
	run "$REPO/shim-oom-hook" --dir "$v" show 0123456789ab
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "stopped by test" ]
	run "$REPO/shim-oom-hook" --dir "$v" show --json 0123
	[ "$status" -eq 0 ]
	[ "$(jq -r .reason <<<"$output")" = Killed ]
	run "$REPO/shim-oom-hook" --dir "$v" show fedcba98
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"2 containers' ids start with \`fedcba98\`"* ]]
	run "$REPO/shim-oom-hook" --dir "$v" show 99
	[ "$status" -ne 0 ]
	[[ "$output" == *"no verdict for container 99"* ]]
}

@test "make dist: the tarball builds in a clean directory with dpkg-buildflags, static, and --version names its commit" {
	# make dist packs the committed tree: the ASan build's copy of the
	# sources has no git, and says so instead of failing.
	[ -e "$REPO/.git" ] || skip "not a git checkout (the sanitizer build's copy): make dist needs git"
	local tarball
	tarball=$(make -s -C "$REPO" dist | tail -n 1)
	mv "$REPO/$tarball" "$T/"
	mkdir "$T/src"
	tar -C "$T/src" -xzf "$T/$tarball"
	local dir=$T/src/${tarball%.tar.gz}
	[ -f "$dir/COMMIT" ]
	[ ! -e "$dir/.git" ]
	run env DEB_BUILD_MAINT_OPTIONS=hardening=+all make -C "$dir" \
		CFLAGS="$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)" \
		CPPFLAGS="$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)" \
		LDFLAGS="$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)" \
		shim shim-oom-hook
	[ "$status" -eq 0 ] || { echo "$output" | tail -n 30; false; }
	# The builder's flags were used, next to the project's own.
	[[ "$output" == *"-fstack-protector-strong"*"-D_FORTIFY_SOURCE=2"* || "$output" == *"-D_FORTIFY_SOURCE=2"*"-fstack-protector-strong"* ]]
	[[ "$output" == *"-I. "* ]]
	# shim and the hook are static PIEs: no interpreter, no shared library.
	local b
	for b in shim shim-oom-hook; do
		run readelf -lW -d "$dir/$b"
		[[ "$output" == *"Position-Independent Executable"* ]]
		[[ "$output" != *"INTERP"* ]]
		[[ "$output" != *"(NEEDED)"* ]]
	done
	run "$dir/shim" --version
	echo "$output"
	[ "${lines[1]}" = "commit: $(cat "$dir/COMMIT")" ]
	[ "$(cat "$dir/COMMIT")" != unknown ]
}

@test "the guide's picture is rendered from its committed source" {
	# The committed SVG is what `dot` makes of the committed source.
	dot -Tsvg "$REPO/docs/guide/verdict.dot" -o "$T/verdict.svg"
	diff -q "$T/verdict.svg" "$REPO/docs/guide/verdict.svg"
}
