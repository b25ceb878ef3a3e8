# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2016
#
# Shared by tests/integration/*.bats (`load helpers`).  Each test gets:
#
#   $BUNDLE  a throw-away copy of examples/hello (or another example, see
#            make_bundle), root.path set to the absolute examples/rootfs,
#            edited with `cfg` / `set_args` / `sh_cmd` / `add_mount` (jq);
#   $STATE   the --root of every `shim` call (per test, under $T);
#   $ID      a container id unique to this test and this run;
#   $T       the test's own temporary directory.
#
# and a teardown that FAILS the test when anything is left behind: a state
# dir under $STATE, a mount that was not in /proc/self/mountinfo before the
# test (under the places a container could leak one), a process of the test
# (found by a tag in its environment), a cgroup named after $ID.
#
# Needs (Debian 12): bats, jq, coreutils (env --default-signal, timeout),
# util-linux (mount, umount, mountpoint, unshare, setpriv, ipcmk, ipcrm),
# grep, mawk or gawk; the container side is examples/rootfs (busybox).
# Run as root, after `make`: `bats tests/integration/`.

bats_require_minimum_version 1.5.0

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SHIM_BIN=${SHIM_BIN:-$REPO/shim}
ROOTFS=$REPO/examples/rootfs
# The verdict history of every shim and shim-oom-hook a test runs is the
# test's own (never /var/lib/shim), and no metrics unless a test asks.
export SHIM_HISTORY_DIR=$BATS_TEST_TMPDIR/history
unset SHIM_METRICS_DIR

setup() {
	shim_setup
}

teardown() {
	shim_teardown
}

shim_setup() {
	if [ ! -x "$SHIM_BIN" ] || [ ! -x "$ROOTFS/bin/busybox" ]; then
		echo "build first: make (needs $SHIM_BIN and $ROOTFS)" >&2
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "the integration tests run as root" >&2
		return 1
	fi
	T=$BATS_TEST_TMPDIR
	STATE=$T/state
	ID=it-$$-$BATS_TEST_NUMBER
	# Every process a test starts through `shim` carries this in its
	# environment, the container's processes too (make_bundle adds it to
	# process.env): that is how teardown finds leftovers.
	TAG=shim-it-$$-$BATS_TEST_NUMBER-$RANDOM$RANDOM
	CLEANUP_MOUNTS=()
	cp /proc/self/mountinfo "$T/.mountinfo.before"
	make_bundle hello
}

# make_bundle [EXAMPLE]: $BUNDLE from examples/EXAMPLE/config.json (hello).
make_bundle() {
	BUNDLE=$T/bundle
	mkdir -p "$BUNDLE"
	jq --arg root "$ROOTFS" --arg tag "SHIM_TEST_TAG=$TAG" \
		'.root.path = $root | .process.env += [$tag]' \
		"$REPO/examples/${1:-hello}/config.json" >"$BUNDLE/config.json"
}

# cfg [JQ OPTIONS...] FILTER: edit $BUNDLE/config.json in place, e.g.
#   cfg --arg h box '.hostname = $h'
cfg() {
	local f=$BUNDLE/config.json
	jq "$@" "$f" >"$f.new" && mv "$f.new" "$f"
}

# json_array ARG...: the arguments as a JSON array of strings.  (jq's own
# --args would take a "-c" among them for one of its options.)
json_array() {
	local -a named=()
	local a i=0
	for a; do
		named+=(--arg "$i" "$a")
		i=$((i + 1))
	done
	jq -nc "${named[@]}" '[$ARGS.named | to_entries[]] | sort_by(.key | tonumber) | map(.value)'
}

# set_args ARG...: process.args.
set_args() {
	cfg --argjson a "$(json_array "$@")" '.process.args = $a'
}

# sh_cmd SCRIPT: process.args = /bin/sh -c SCRIPT.
sh_cmd() {
	set_args /bin/sh -c "$1"
}

# add_mount DEST TYPE SOURCE [OPTION...]: append to mounts[].
add_mount() {
	local dest=$1 type=$2 src=$3
	shift 3
	cfg --arg d "$dest" --arg t "$type" --arg s "$src" --argjson o "$(json_array "$@")" \
		'.mounts += [{destination: $d, type: $t, source: $s, options: $o}]'
}

# del_namespace TYPE: drop linux.namespaces[] of that type.
del_namespace() {
	cfg --arg t "$1" 'del(.linux.namespaces[] | select(.type == $t))'
}

# shim ARGS...: the runtime, with this test's --root and tag.
shim() {
	env SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" "$@"
}

# run_shim [shim run options...]: `shim run --bundle $BUNDLE ... $ID` under
# bats' run, stderr kept apart in $stderr.
run_shim() {
	run --separate-stderr shim run --bundle "$BUNDLE" "$@" "$ID"
}

# A directory of the host shared with the container at /tmp/share (the
# bundles mount a tmpfs on /tmp, so nothing is created in the shared
# rootfs), holding a fifo the container writes to once it is ready.
share_dir() {
	mkdir -p "$T/share"
	[ -p "$T/share/ready" ] || mkfifo "$T/share/ready"
	add_mount /tmp/share bind "$T/share" rbind
}

# start_bg [shim run options...]: shim run in the background; $SHIM_PID.
# Its stdout and stderr go to $T/out and $T/err.  bats' fd 3 is closed, or
# bats would wait for the container.  START_ENV: options for env(1) first.
start_bg() {
	# Not through the shim function: $! must be the runtime itself (env
	# execs it), not a subshell around it.
	env ${START_ENV[@]+"${START_ENV[@]}"} SHIM_TEST_TAG="$TAG" "$SHIM_BIN" --root "$STATE" \
		run --bundle "$BUNDLE" "$@" "$ID" \
		>"$T/out" 2>"$T/err" 3>&- &
	SHIM_PID=$!
}

# wait_ready: until the container wrote to /tmp/share/ready (bounded).
wait_ready() {
	local line
	line=$(timeout 20 cat "$T/share/ready") || {
		echo "the container did not get ready; stderr:" >&2
		cat "$T/err" >&2
		return 1
	}
	[ "$line" = ready ]
}

# wait_shim: wait for the background shim; its exit status in $status.
wait_shim() {
	status=0
	wait "$SHIM_PID" || status=$?
}

# wait_gone PID...: until each process has exited (gone, or a zombie that
# is not ours to reap), at most 10 s.
wait_gone() {
	local p i state
	for p; do
		for ((i = 0; i < 200; i++)); do
			state=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) || break
			[ "$state" = Z ] && break
			sleep 0.05
		done
	done
}

# register_mount PATH: unmounted (recursively, lazily) in teardown.
register_mount() {
	CLEANUP_MOUNTS+=("$1")
}

# The processes whose environment holds $TAG (one grep for all of /proc;
# the tag is in grep's arguments, not in its environment).
tagged_pids() {
	grep -lsaF "SHIM_TEST_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null |
		awk -F/ '{ print $3 }' | grep -vx "$$" || true
}

# The cgroup2 mount point (/sys/fs/cgroup or /sys/fs/cgroup/unified).
cgroup2_mount() {
	awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}

# The cgroup v1 hierarchies' mount points (a hybrid or a v1 host), one a
# line: /sys/fs/cgroup/memory, /sys/fs/cgroup/pids, ...
cgroup_v1_mounts() {
	awk '$(NF-2) == "cgroup" { print $5 }' /proc/self/mountinfo
}

# cgroup_v1_mount CTRL: the mount point of the v1 hierarchy carrying
# controller CTRL (co-mounted ones too: cpu in cpu,cpuacct), or nothing.
cgroup_v1_mount() {
	awk -v c="$1" '$(NF-2) == "cgroup" && ("," $NF ",") ~ ("," c ",") { print $5; exit }' /proc/self/mountinfo
}

# require_cgroup_v1_memory: skip the test where there is no cgroup v1
# memory hierarchy (a cgroup v2 host: tests/vm covers it).
require_cgroup_v1_memory() {
	[ -n "$(cgroup_v1_mount memory)" ] || skip "no cgroup v1 memory hierarchy on this host (cgroup v2: tests/vm)"
}

# has_memory_cgroup: a container gets a memory cgroup whose counters the
# verdict reads: cgroup2 with the memory controller, or a cgroup v1 memory
# hierarchy (a hybrid or v1 host).
has_memory_cgroup() {
	local cg
	cg=$(cgroup2_mount)
	{ [ -n "$cg" ] && grep -qw memory "$cg/cgroup.controllers"; } || [ -n "$(cgroup_v1_mount memory)" ]
}

# cgroup_v1_dir CTRL [ID]: the container's directory in that hierarchy
# (/sys/fs/cgroup/memory/shim/ID) when it exists; fails otherwise.
cgroup_v1_dir() {
	local d
	d=$(cgroup_v1_mount "$1")
	[ -n "$d" ] && [ -d "$d/shim/${2:-$ID}" ] && echo "$d/shim/${2:-$ID}"
}

# cgroup_dirs [ID]: the container's directory in every hierarchy it has one
# in, one a line, the cgroup2 one first (/sys/fs/cgroup/unified/shim/ID,
# /sys/fs/cgroup/memory/shim/ID, ...).
cgroup_dirs() {
	local m
	while IFS= read -r m; do
		if [ -d "$m/shim/${1:-$ID}" ]; then
			echo "$m/shim/${1:-$ID}"
		fi
	done < <(cgroup2_mount; cgroup_v1_mounts)
}

# Mount lines in /proc/self/mountinfo that are new (or changed) since the
# test started and lie where a container could leak one: anywhere below the
# rootfs or the test's directory, or exactly on the host's /, /proc, /sys,
# /dev, /tmp or a destination the config names (a mount made without a
# mount namespace of its own).  Not all of /tmp: other tests may be running.
new_mounts() {
	local -a exact=(/ /proc /sys /dev /tmp)
	local d
	if [ -f "$BUNDLE/config.json" ]; then
		while IFS= read -r d; do
			[ -n "$d" ] && exact+=("$d")
		done < <(jq -r '(.mounts // [])[].destination, (.linux.maskedPaths // [])[],
			(.linux.readonlyPaths // [])[]' "$BUNDLE/config.json" 2>/dev/null)
	fi
	awk -v below="$ROOTFS"$'\n'"$T" -v exact="$(printf '%s\n' "${exact[@]}")" '
		BEGIN {
			nb = split(below, b, "\n")
			ne = split(exact, e, "\n")
			for (i = 1; i <= ne; i++) if (e[i] != "") is_exact[e[i]] = 1
		}
		NR == FNR { before[$0] = 1; next }
		!($0 in before) {
			mp = $5
			if (mp in is_exact) { print; next }
			for (i = 1; i <= nb; i++)
				if (mp == b[i] || index(mp, b[i] "/") == 1) { print; next }
		}' "$T/.mountinfo.before" /proc/self/mountinfo
}

shim_teardown() {
	local problems="" pids m cg i

	# Leftover processes: report, then kill, so the next test starts clean.
	# A watcher lets `delete` return on its last record and exits just
	# after: what is still there a second later is left behind.
	pids=$(tagged_pids)
	for ((i = 0; i < 20 && ${#pids} > 0; i++)); do
		sleep 0.05
		pids=$(tagged_pids)
	done
	if [ -n "$pids" ]; then
		problems+="processes left behind:"$'\n'
		for i in $pids; do
			problems+="  $i $(tr '\0' ' ' <"/proc/$i/cmdline" 2>/dev/null)"$'\n'
		done
		# shellcheck disable=SC2086
		kill -9 $pids 2>/dev/null || true
		wait_gone $pids
	fi

	# The test's own mounts go first, then anything new is a leak.
	for ((i = ${#CLEANUP_MOUNTS[@]} - 1; i >= 0; i--)); do
		m=${CLEANUP_MOUNTS[i]}
		while mountpoint -q "$m" 2>/dev/null; do
			umount -R "$m" 2>/dev/null || umount -l "$m" || break
		done
	done
	m=$(new_mounts)
	if [ -n "$m" ]; then
		problems+="mounts left behind:"$'\n'"$m"$'\n'
		# Undo them, innermost first (mountinfo lists parents first).
		while IFS= read -r i; do
			umount -l "$i" 2>/dev/null || true
		done < <(awk '{ print $5 }' <<<"$m" | sort -r)
	fi

	if [ -d "$STATE" ] && [ -n "$(ls -A "$STATE")" ]; then
		problems+="state left behind in $STATE: $(ls -A "$STATE" | tr '\n' ' ')"$'\n'
		rm -rf "${STATE:?}"/*
	fi

	# The test's cgroups under /shim: $ID, and $ID-a, $ID-parent, ...
	while IFS= read -r cg; do
		for i in "$cg/shim/$ID" "$cg/shim/$ID"-*; do
			[ -d "$i" ] || continue
			problems+="cgroup left behind: $(find "$i" -type d | tr '\n' ' ')"$'\n'
			find "$i" -depth -type d -exec rmdir {} + 2>/dev/null || true
		done
	done < <(cgroup2_mount; cgroup_v1_mounts)

	if [ -n "$problems" ]; then
		printf 'teardown: %s' "$problems" >&2
		return 1
	fi
}

# ---- assertions (print what was seen when they fail) ----

# assert_status N
assert_status() {
	if [ "$status" != "$1" ]; then
		echo "status: want $1, got $status" >&2
		echo "stdout: $output" >&2
		echo "stderr: ${stderr:-}" >&2
		return 1
	fi
}

# assert_eq GOT WANT [WHAT]
assert_eq() {
	if [ "$1" != "$2" ]; then
		printf '%s\n  want: %q\n  got:  %q\n' "${3:-mismatch}" "$2" "$1" >&2
		return 1
	fi
}

# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
	if [[ "$1" != *"$2"* ]]; then
		printf '%s\n  want to find: %s\n  in: %s\n' "${3:-not found}" "$2" "$1" >&2
		return 1
	fi
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
	if [[ "$1" == *"$2"* ]]; then
		printf '%s\n  did not want: %s\n  in: %s\n' "${3:-found}" "$2" "$1" >&2
		return 1
	fi
}

# assert_error MESSAGE: the run failed with exit status 1 and stderr is
# exactly "shim: MESSAGE", nothing on stdout.
assert_error() {
	assert_error_status 1 "$1"
}

# assert_error_status N MESSAGE: assert_error with exit status N (255: a
# failed exec, as runc's).
assert_error_status() {
	assert_status "$1"
	assert_eq "$stderr" "shim: $2" "stderr"
	assert_eq "$output" "" "stdout"
}
