#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/run.sh [--quick] [--runs N] [--out DIR] [--runtimes "shim runc crun"]
#              [--counts "1 10 100 1000"] [--baseline DIR]
#
# Times shim against Debian's runc and crun (each where it works on this
# host) and against the floor (bench/floor.c: clone3 into the same
# namespaces, pivot_root, execve): the same bundle (examples/rootfs,
# /bin/true, the namespaces of `runc spec`, a 64 MiB memory limit) for all.
#
#   run       `RUNTIME run ID` of /bin/true
#   nolimit   the same without linux.resources: no memory limit, so no
#             memory controller work (on cgroup v1, no memory cgroup)
#   lifecycle create, start, wait for init, delete
#   exec      `RUNTIME exec ID /bin/true` into a running container
#   hook      runc's and crun's `run` with shim-oom-hook at prestart and
#             poststop, each run through bench/hooktime, which logs the
#             hook's own time (what the runtime waits for); the difference
#             to `run` is also shown, but a runtime's own spread hides a
#             millisecond there
#
# Runtimes interleave (a different order each round) so that a slow spell
# of the machine falls on all of them.  Also measured: the peak RSS of the
# runtime process, the smallest memory limit under which /bin/true still
# starts, and the time per container at 1, 10, 100, 1000 sequential and 2,
# 4, 8 concurrent containers.  Prints a table (min, median, max, and the
# median's ratio to crun's, runc's and the floor's) and writes, under
# --out (default bench/out): table.txt, the raw timings, latency.png and
# scaling.png (gnuplot, when installed).
#
# --counts replaces the sequential counts (under the VM's emulation, 1000
# containers per runtime take most of an hour: "1 10 100" there).
#
# --baseline DIR: a built tree of an earlier shim, timed in the same rounds
# as runtime "base" (its shim, and its shim-oom-hook as scenario
# "hookbase"), so that a change is measured against its parent under the
# same load: `git worktree add /tmp/base HEAD~ && make -C /tmp/base`.
#
# Root, after `make`.  Timings are never a test: `make test` only checks
# that this runs (--quick).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
runs=20 quick=0 out=$here/out base=""
runtimes="shim runc crun"
counts="1 10 100 1000" jobs_list="2 4 8"
limits="256K 512K 1M 2M 4M 8M 16M 32M 64M"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 runs=3 counts="1 4" jobs_list="2" limits="4M 64M" ;;
	--runs) runs=$2; shift ;;
	--out) out=$2; shift ;;
	--runtimes) runtimes=$2; shift ;;
	--counts) counts=$2; shift ;;
	--baseline) base=$(cd "$2" && pwd); shift ;;
	*) echo "usage: bench/run.sh [--quick] [--runs N] [--out DIR] [--runtimes LIST] [--counts LIST] [--baseline DIR]" >&2; exit 2 ;;
	esac
	shift
done

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root"
[ -x "$repo/shim" ] && [ -x "$repo/examples/rootfs/bin/busybox" ] || die "build first: make"
[ -x "$here/timeit" ] && [ -x "$here/floor" ] && [ -x "$here/hooktime" ] ||
	die "build first: make bench/timeit bench/floor bench/hooktime"
if [ -n "$base" ]; then
	[ -x "$base/shim" ] && [ -x "$base/shim-oom-hook" ] || die "--baseline $base: build it first (make)"
	runtimes="$runtimes base"
fi
# shimlike RT: shim, or the baseline's.
shimlike() { [ "$1" = shim ] || [ "$1" = base ]; }
mkdir -p "$out"
rm -f "$out"/*.dat "$out"/*.png "$out"/table.txt "$out"/latency.xtics

# State, bundles and roots on a tmpfs (/run): the VM's 9p root cannot hold
# sockets or device nodes, and a disk would time the disk.
work=$(mktemp -d /run/shim-bench.XXXXXX)
declare -A bin extra
cleanup() {
	local rt id
	for rt in "${!bin[@]}"; do
		[ "$rt" = floor ] && continue
		for id in $("${bin[$rt]}" --root "$work/root-$rt" list -q 2>/dev/null); do
			"${bin[$rt]}" --root "$work/root-$rt" delete -f "$id" >/dev/null 2>&1 || true
		done
	done
	rm -rf "$work"
}
trap cleanup EXIT

# bundle NAME JQ-FILTER: the base bundle (examples/hello with /bin/true,
# the rootfs by absolute path, a 64 MiB limit) edited by JQ-FILTER.
bundle() {
	mkdir -p "$work/$1"
	jq --arg root "$repo/examples/rootfs" '
		.process.args = ["/bin/true"] | .process.terminal = false
		| .root.path = $root
		| .linux.resources.memory.limit = 67108864' \
		"$repo/examples/hello/config.json" | jq "$2" >"$work/$1/config.json"
}
bundle base .
bundle nolimit 'del(.linux.resources)'
bundle sleeper '.process.args = ["/bin/sleep", "100000"]'
# hooked NAME HOOK DIR: the base bundle with HOOK at prestart and poststop,
# each through hooktime, which logs its time to $work/NAME.hooktime.
hooked() {
	bundle "$1" .
	jq --arg t "$here/hooktime" --arg log "$work/$1.hooktime" --arg hook "$2" --arg dir "$3" '
		.hooks.prestart = [{path: $t, args: ["hooktime", $log, $hook, "shim-oom-hook", "--dir", $dir, "prestart"]}]
		| .hooks.poststop = [{path: $t, args: ["hooktime", $log, $hook, "shim-oom-hook", "--dir", $dir, "poststop"]}]' \
		"$work/base/config.json" >"$work/$1/config.json"
}
hooked hooked "$repo/shim-oom-hook" "$work/hookdir"
[ -z "$base" ] || hooked hooked-base "$base/shim-oom-hook" "$work/hookdir-base"

bin[floor]=$here/floor
T() { "$here/timeit" -l "$work/log" "$@"; }

# Which runtimes work here, with the same bundle.  shim on a host where it
# cannot enforce the memory limit gets --allow-unenforced-limits (said in
# the table).
avail=()
for rt in $runtimes; do
	case $rt in
	shim) b=$repo/shim ;;
	base) b=$base/shim ;;
	*) b=$(command -v "$rt" || true) ;;
	esac
	[ -n "$b" ] || { log "$rt: not installed"; continue; }
	bin[$rt]=$b
	extra[$rt]=""
	if ! "$b" --root "$work/root-$rt" run -b "$work/base" bench-probe >"$work/probe.log" 2>&1; then
		if shimlike "$rt" && "$b" --root "$work/root-$rt" run --allow-unenforced-limits -b "$work/base" bench-probe >/dev/null 2>&1; then
			extra[$rt]=--allow-unenforced-limits
			log "$rt: the memory limit is not enforced on this host (--allow-unenforced-limits)"
		else
			log "$rt: does not run here: $(head -n 1 "$work/probe.log")"
			unset "bin[$rt]"
			continue
		fi
	fi
	avail+=("$rt")
done
[ ${#avail[@]} -gt 0 ] || die "no runtime works here"
log "runtimes: ${avail[*]} (+ the floor); $runs rounds"

# cmd RT VERB: the runtime's command line for VERB, with its own --root.
cmd() {
	local rt=$1 verb=$2
	local r=(--root "$work/root-$rt")
	case $verb in
	run) echo "${bin[$rt]} ${r[*]} run ${extra[$rt]} -b $work/base {}" ;;
	nolimit) echo "${bin[$rt]} ${r[*]} run -b $work/nolimit {}" ;;
	hook) echo "${bin[$rt]} ${r[*]} run -b $work/hooked {}" ;;
	hookbase) echo "${bin[$rt]} ${r[*]} run -b $work/hooked-base {}" ;;
	lifecycle)
		local c=${extra[$rt]}
		shimlike "$rt" || c=""
		echo "${bin[$rt]} ${r[*]} create $c -b $work/base --pid-file $work/pid-{} {} ::: ${bin[$rt]} ${r[*]} start {} ::: @wait $work/pid-{} ::: ${bin[$rt]} ${r[*]} delete {}" ;;
	esac
}

# record SCENARIO RT TIMEIT-OUTPUT...: append "ns rss rc" lines.
record() {
	local f=$out/$1-$2.dat
	awk '$1 == "run" { print $3, $4, $5, $6 }' >>"$f"
}

round_order() {
	# A different order each round: rotate by the round number.
	local r=$1 n=${#avail[@]} i
	for ((i = 0; i < n; i++)); do echo "${avail[$(((i + r) % n))]}"; done
}

# --- latency: run, lifecycle, hook ---------------------------------------------
for ((round = 0; round < runs; round++)); do
	# shellcheck disable=SC2046
	T -p "bench-floor-$round" -- "${bin[floor]}" "$repo/examples/rootfs" | record run floor
	for rt in $(round_order "$round"); do
		# shellcheck disable=SC2046
		T -p "bench-r$round-$rt" -- $(cmd "$rt" run) | record run "$rt"
		# shellcheck disable=SC2046
		T -p "bench-n$round-$rt" -- $(cmd "$rt" nolimit) | record nolimit "$rt"
		# shellcheck disable=SC2046
		T -p "bench-l$round-$rt" -- $(cmd "$rt" lifecycle) | record lifecycle "$rt"
		if ! shimlike "$rt"; then
			# shellcheck disable=SC2046
			T -p "bench-h$round-$rt" -- $(cmd "$rt" hook) | record hook "$rt"
			if [ -n "$base" ]; then
				# shellcheck disable=SC2046
				T -p "bench-hb$round-$rt" -- $(cmd "$rt" hookbase) | record hookbase "$rt"
			fi
		fi
	done
done

# --- instruction counts (callgrind) ----------------------------------------------
# Repeatable where times are not.  Only for what valgrind can follow:
# Debian 12's valgrind (3.19) has no clone3 and cannot execveat a memfd,
# so create, run and exec are measured by their cpu column instead.
# instructions.txt: COMMAND INSTRUCTIONS, for shim's commands on the
# running exec container.
: >"$out/instructions.txt"
# instructions RT: shim's (or the baseline's, named COMMAND@base).
instructions() {
	local rt=$1 tree=$repo suffix="" what
	[ "$rt" = base ] && tree=$base suffix=@base
	command -v valgrind >/dev/null || { log "valgrind not installed: no instruction counts"; return 0; }
	# An ASan build does not run under valgrind.
	valgrind -q --tool=none "${bin[$rt]}" --version >/dev/null 2>&1 ||
		{ log "valgrind cannot run ${bin[$rt]} (an ASan build?): no instruction counts"; return 0; }
	while IFS='|' read -r what; do
		# shellcheck disable=SC2086
		valgrind --tool=callgrind --callgrind-out-file=/dev/null $what 2>"$work/callgrind.log" >/dev/null </dev/null ||
			{ log "callgrind: $what failed"; continue; }
		awk -v w="$what" -v r="$tree/" -v s="$suffix" '/Collected :/ {
				gsub(r, "", w); sub(/--root [^ ]* /, "", w); sub(/ /, s " ", w); print w, $NF }' \
			"$work/callgrind.log" >>"$out/instructions.txt"
	done <<EOF
${bin[$rt]} --version
${bin[$rt]} --root $work/root-$rt state bench-execbox
${bin[$rt]} --root $work/root-$rt list
${bin[$rt]} --root $work/root-$rt ps bench-execbox
$tree/shim-oom-hook --version
EOF
}

# --- exec into a running container ----------------------------------------------
for rt in "${avail[@]}"; do
	c=${extra[$rt]}
	shimlike "$rt" || c=""
	"${bin[$rt]}" --root "$work/root-$rt" create $c -b "$work/sleeper" bench-execbox >/dev/null 2>&1 &&
		"${bin[$rt]}" --root "$work/root-$rt" start bench-execbox >/dev/null 2>&1 ||
		{ log "$rt: could not start the exec container"; continue; }
	T -c "$runs" -p "bench-e-$rt" -- "${bin[$rt]}" --root "$work/root-$rt" exec bench-execbox /bin/true | record exec "$rt"
	if shimlike "$rt"; then instructions "$rt"; fi
	"${bin[$rt]}" --root "$work/root-$rt" delete -f bench-execbox >/dev/null 2>&1 || log "$rt: delete -f bench-execbox failed"
done

# --- the smallest memory limit under which /bin/true starts ---------------------
: >"$out/minmem.txt"
for rt in "${avail[@]}"; do
	found=-
	for l in $limits; do
		bytes=$(numfmt --from=iec "$l")
		bundle "mem-$l" ".linux.resources.memory.limit = $bytes | .linux.resources.memory.swap = $bytes"
		if "${bin[$rt]}" --root "$work/root-$rt" run ${extra[$rt]:+"${extra[$rt]}"} -b "$work/mem-$l" "bench-mem-$l" >/dev/null 2>&1; then
			found=$l
			break
		fi
	done
	shimlike "$rt" && [ -n "${extra[$rt]}" ] && found="$found (not enforced here)"
	echo "$rt $found" >>"$out/minmem.txt"
done

# stats FILE: min median max (ms) peak-rss (KiB) failures, and the
# median CPU time (ms: user and system, of the runtime and what it reaped).
# The times are the successful runs' only: a runtime that failed every run
# (crun refuses a hybrid host) has none, and no ratio is taken to it.
stats() {
	local cpu
	cpu=$(awk '$3 == 0 { print $4 }' "$1" | sort -n | awk '
		{ c[++n] = $1 }
		END { if (n == 0) print "-"; else printf "%.2f\n", (n % 2 ? c[(n + 1) / 2] : (c[n / 2] + c[n / 2 + 1]) / 2) / 1e6 }')
	sort -n "$1" | awk -v cpu="$cpu" '
		{ if ($2 > rss) rss = $2; if ($3 != 0) { bad++; next } t[++n] = $1 }
		END {
			if (n == 0) { printf "- - - %d %d -\n", rss, bad; exit }
			m = n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
			printf "%.2f %.2f %.2f %d %d %s\n", t[1] / 1e6, m / 1e6, t[n] / 1e6, rss, bad, cpu
		}'
}
median_of() { [ -s "$out/$1-$2.dat" ] && stats "$out/$1-$2.dat" | awk '{ print $2 }' || echo -; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }

# --- time per container against the number of containers -------------------------
# scaling.dat: RUNTIME seq|par N median min max (ms per container).  A
# sequential point's samples are its containers' own times, five at least
# (N=1 is run five times); a concurrent point's are five rounds of
# JOBS*8 containers, each the round's wall time per container.
: >"$out/scaling.dat"
point() {
	sort -n | awk -v rt="$1" -v kind="$2" -v n="$3" '
		{ t[++k] = $1 }
		END {
			if (k == 0) exit
			m = k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2
			printf "%s %s %d %.3f %.3f %.3f\n", rt, kind, n, m / 1e6, t[1] / 1e6, t[k] / 1e6
		}' >>"$out/scaling.dat"
}
samples=$((quick ? 2 : 5))
for rt in floor "${avail[@]}"; do
	# A runtime whose every run failed has no time per container either.
	[ "$rt" = floor ] || [ "$(median_of run "$rt")" != - ] || { log "$rt: every run failed: left out"; continue; }
	if [ "$rt" = floor ]; then
		c=("${bin[floor]}" "$repo/examples/rootfs")
	else
		# shellcheck disable=SC2207
		c=($(cmd "$rt" run))
	fi
	for n in $counts; do
		reps=$(((samples + n - 1) / n))
		for ((i = 0; i < reps; i++)); do
			T -c "$n" -p "bench-s$n-$i-$rt" -- "${c[@]}" | awk '$1 == "run" && $5 == 0 { print $3 }'
		done | point "$rt" seq "$n"
	done
	for j in $jobs_list; do
		n=$((j * (quick ? 2 : 8)))
		for ((i = 0; i < samples; i++)); do
			T -c "$n" -j "$j" -p "bench-c$j-$i-$rt" -- "${c[@]}" | awk '$1 == "total" { printf "%d\n", $2 / $3 }'
		done | point "$rt" par "$j"
	done
done

# hook_times WHO < HOOKTIME-LOG: the medians of the hook's own times, at
# prestart, at poststop, and of both for one container (the N-th prestart
# with the N-th poststop: containers run one at a time).
hook_times() {
	awk -v w="$1" '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		$1 == "prestart" { p[++np] = $2 / 1e6; bad += $3 != 0 }
		$1 == "poststop" { q[++nq] = $2 / 1e6; bad += $3 != 0 }
		END {
			n = np < nq ? np : nq
			for (i = 1; i <= n; i++) s[i] = p[i] + q[i]
			printf "# %s runs %.2f ms per container (prestart %.2f, poststop %.2f; medians of %d, %d failed)\n",
				w, median(s, n), median(p, np), median(q, nq), n, bad
		}'
}

# --- the table ---------------------------------------------------------------------

{
	echo "# $(uname -r), $(nproc) CPUs, $runs rounds; times in ms; rss: peak KiB of the runtime process"
	[ -n "${extra[shim]:-}" ] && echo "# shim ran with --allow-unenforced-limits: the memory limit is not enforced on this host"
	echo "# cpu: median ms of user and system time, the runtime's and what it reaped (load disturbs it less)"
	printf '%-10s %-6s %8s %8s %8s %7s %8s %6s %7s %7s %7s\n' scenario runtime min median max cpu rss fail x_crun x_runc x_floor
	for sc in run nolimit lifecycle exec hook hookbase; do
		for rt in floor "${avail[@]}"; do
			[ -s "$out/$sc-$rt.dat" ] || continue
			read -r mn md mx rss bad cpu < <(stats "$out/$sc-$rt.dat")
			printf '%-10s %-6s %8s %8s %8s %7s %8s %6s %7s %7s %7s\n' "$sc" "$rt" "$mn" "$md" "$mx" "$cpu" "$rss" "$bad" \
				"$(ratio "$md" "$(median_of "$sc" crun)")" "$(ratio "$md" "$(median_of "$sc" runc)")" \
				"$(ratio "$md" "$(median_of run floor)")"
		done
	done
	for rt in runc crun; do
		for sc in hook hookbase; do
			h=$(median_of "$sc" "$rt") r=$(median_of run "$rt")
			w="shim-oom-hook"
			[ "$sc" = hook ] || w="the baseline's shim-oom-hook"
			[ "$h" != - ] && [ "$r" != - ] &&
				awk -v rt="$rt" -v h="$h" -v r="$r" -v w="$w" \
					'BEGIN { printf "# %s adds %.2f ms to %s run (median %.2f -> %.2f)\n", w, h - r, rt, r, h }'
		done
	done
	for b in hooked hooked-base; do
		[ -s "$work/$b.hooktime" ] || continue
		w="shim-oom-hook"
		[ "$b" = hooked ] || w="the baseline's shim-oom-hook"
		hook_times "$w" <"$work/$b.hooktime"
	done
	echo
	if [ -s "$out/instructions.txt" ]; then
		echo "# instructions (callgrind) of shim's commands that valgrind can follow"
		cat "$out/instructions.txt"
		echo
	fi
	echo "# the smallest memory limit under which /bin/true starts"
	cat "$out/minmem.txt"
	echo
	echo "# ms per container: sequential (seq N) and concurrent (par JOBS): median min max"
	cat "$out/scaling.dat"
} | tee "$out/table.txt"

# --- the plots ---------------------------------------------------------------------
# latency.png: per scenario, one bar per runtime in its own colour (median,
# min-max), the floor's run as a line.  scaling.png: ms per container
# against the count, one line per runtime (median, min-max).
if command -v gnuplot >/dev/null; then
	rts=$(for rt in "${avail[@]}"; do echo "$rt"; done)
	nrt=$(wc -l <<<"$rts")
	sci=0
	: >"$out/latency.xtics"
	for sc in run nolimit lifecycle exec hook hookbase; do
		[ "$sc" != hookbase ] || [ -n "$base" ] || continue
		k=0
		for rt in $rts; do
			if [ -s "$out/$sc-$rt.dat" ]; then
				read -r mn md mx _ _ _ < <(stats "$out/$sc-$rt.dat")
				[ "$md" = - ] || echo "$(awk -v s="$sci" -v k="$k" -v n="$nrt" 'BEGIN { print s + (k - (n - 1) / 2) * 0.8 / n }') $md $mn $mx" >>"$out/latency-$rt.plot.dat"
			fi
			k=$((k + 1))
		done
		printf '"%s" %d, ' "$sc" "$sci" >>"$out/latency.xtics"
		sci=$((sci + 1))
	done
	floor_md=$(median_of run floor)
	plots=""
	for rt in $rts; do
		[ -s "$out/latency-$rt.plot.dat" ] || continue
		plots+="\"$out/latency-$rt.plot.dat\" using 1:2 with boxes title \"$rt\", \"\" using 1:2:3:4 with yerrorbars notitle lc rgb \"black\" pt 0, "
	done
	[ "$floor_md" = - ] || plots+="$floor_md with lines lw 2 dt 2 title \"floor (run)\", "
	gnuplot <<EOF
set terminal pngcairo size 1000,500 noenhanced
set output "$out/latency.png"
set title "container latency: median, min-max; $(uname -r), $runs rounds"
set ylabel "ms"
set style fill solid 0.6
set boxwidth $(awk -v n="$nrt" 'BEGIN { print 0.8 / n }')
set xtics ($(sed 's/, $//' "$out/latency.xtics"))
set xrange [-0.6:$sci - 0.4]
set yrange [0:*]
set key top left
plot ${plots%, }
EOF
	plots=""
	for rt in $(awk '{ print $1 }' "$out/scaling.dat" | uniq); do
		awk -v rt="$rt" '$1 == rt && $2 == "seq" { print $3, $4, $5, $6 }' "$out/scaling.dat" >"$out/scaling-$rt.plot.dat"
		plots+="\"$out/scaling-$rt.plot.dat\" using 1:2:3:4 with yerrorlines title \"$rt\", "
	done
	gnuplot <<EOF
set terminal pngcairo size 800,500 noenhanced
set output "$out/scaling.png"
set title "ms per container against the number of containers (sequential): median, min-max"
set xlabel "containers"
set ylabel "ms per container"
set logscale x
set yrange [0:*]
set key top right
plot ${plots%, }
EOF
	log "plots: $out/latency.png $out/scaling.png"
else
	log "gnuplot not installed: no plots (apt-get install gnuplot-nox)"
fi
