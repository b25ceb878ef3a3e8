#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# tests/integration/verdict_matrix_v1.sh [CASE...]
#
# tests/vm/verdict_matrix.sh's demonstration on this host, a hybrid (or pure
# v1) one: the container's memory limit lives in the cgroup v1 memory
# hierarchy.  The verdict for each kind of death, printed by `shim run
# --json` and by `shim-oom-hook show --json` under runc (Debian's, with the
# hook registered in config.json as config/oci-hooks.json has it).  crun
# refuses such a host: the preamble shows it once.  Run as root after make:
#
#   bash tests/integration/verdict_matrix_v1.sh [CASE...] > matrix_v1.out
#
# One block per case: its name and what happens, then one line per runtime
# with the runtime's exit status and the verdict (jq -c).  Case names are
# the VM script's where the scenario is the same; a scenario v1 cannot have
# says why on a "(v1: ...)" line, then shows what happens instead.  CASE
# names a subset (default: all, in order).  Bundles, state and verdicts live
# in a temporary directory; every cgroup the runs leave in any hierarchy is
# reported on a "(left behind: ...)" line and removed.  Not a test: it
# asserts nothing, it shows.
# jq filters and in-container scripts are single-quoted on purpose.
# shellcheck disable=SC2016
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
SHIM=$ROOT/shim
HOOK=$ROOT/shim-oom-hook
ROOTFS=$ROOT/examples/rootfs
PARENT_NAME=shimtest-matrix

die() { echo "verdict_matrix_v1: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root"
MEMCG=$(awk '$(NF-2) == "cgroup" && ("," $NF ",") ~ /,memory,/ { print $5; exit }' /proc/self/mountinfo)
[ -n "$MEMCG" ] || die "no cgroup v1 memory hierarchy here (a cgroup v2 host: tests/vm/verdict_matrix.sh)"
# Every cgroup hierarchy a runtime makes the container's cgroup in.
mapfile -t HIERARCHIES < <(awk '$(NF-2) == "cgroup" || $(NF-2) == "cgroup2" { print $5 }' /proc/self/mountinfo)
for b in "$SHIM" "$HOOK" "$ROOTFS/bin/memhog"; do
  [ -e "$b" ] || die "$b is missing: make first"
done
command -v jq >/dev/null || die "jq is missing"
command -v runc >/dev/null || die "runc is missing"

T=$(mktemp -d /tmp/verdict-matrix-v1.XXXXXX)
VDIR=$T/verdicts
cleanup() {
  local d
  for d in "${HIERARCHIES[@]}"; do
    [ ! -d "$d/$PARENT_NAME" ] || find "$d/$PARENT_NAME" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT

# wait_for_text FILE TEXT: until FILE contains TEXT (20 s).
wait_for_text() {
  for _ in $(seq 1 200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# argv_filter WORD...: a jq filter setting process.args to exactly these.
argv_filter() {
  printf '.process.args = %s' "$(jq -n -c '$ARGS.positional' --args -- "$@")"
}

compact() {
  local line
  while IFS= read -r line; do
    printf '%s\n' "$line" | jq -c . 2>/dev/null || printf '%s\n' "$line"
  done
}

# --- the cases ---------------------------------------------------------------
# Each: NAME, a line saying what happens, the example config it starts from,
# how it ends (fg: by itself; kill9: kill -9 of init from outside once it
# printed "ready"; rtkill: the runtime's own `kill ID KILL` once ready;
# forge: a forged user-facility OOM report naming it in /dev/kmsg, then
# kill -9), flags (parent: in /shimtest-matrix, whose v1 memory cgroup has
# a 48 MiB limit; allow: also under `shim --allow-unenforced-limits`), a
# "(v1: ...)" note or "", then jq filters on config.json.
#
# The container sees the v1 memory hierarchy nowhere (shim mounts the
# unified one at /sys/fs/cgroup), so the nested cases bind the host's memory
# hierarchy at /tmp/memcg (after /tmp's tmpfs: the shared rootfs stays
# untouched) and tell the workload its cgroup in $CGPATH.  v1 has no
# "no internal processes" rule: init needs no leaf of its own.
memcg_bind='.mounts += [{"destination": "/tmp/memcg", "type": "bind", "source": $memcg, "options": ["bind", "rw"]}]'
ready_sleep=$(argv_filter /bin/sh -c 'echo ready; exec sleep 600')
nested_prologue='cg=/tmp/memcg$CGPATH
mkdir $cg/sub'
# A nested 16 MiB cgroup (memsw too where the kernel accounts swap), memhog
# in it, its status told.
nested_hog="$nested_prologue
echo 16777216 > \$cg/sub/memory.limit_in_bytes
[ ! -e \$cg/sub/memory.memsw.limit_in_bytes ] || echo 16777216 > \$cg/sub/memory.memsw.limit_in_bytes
sh -c \"echo \\\$\\\$ > \$cg/sub/cgroup.procs; exec /bin/memhog -s 4\"
echo \"nested status \$?\""
init_in_nested="$nested_prologue
echo \$\$ > \$cg/sub/cgroup.procs
exec /bin/memhog -s 8"
oom_group_0='.linux.resources.unified = {"memory.oom.group": "0"}'
# The two lines of a kernel OOM report about the memory cgroup $CG (a v1
# path), as a process writes them (so with the user facility).
forge_lines='printf "<0>oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=%s,task_memcg=%s,task=memhog,pid=%s,uid=0\n" "$CG" "$CG" "$P" >/dev/kmsg
printf "<0>Memory cgroup out of memory: Killed process %s (memhog) total-vm:1000kB, anon-rss:65536kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:0\n" "$P" >/dev/kmsg'
# /dev/kmsg given to the container (the device and the devices cgroup rule).
kmsg_device='.linux.devices += [{"path": "/dev/kmsg", "type": "c", "major": 1, "minor": 11, "fileMode": 384, "uid": 0, "gid": 0}]
  | .linux.resources.devices += [{"allow": true, "type": "c", "major": 1, "minor": 11, "access": "rw"}]'

CASES=()
declare -A DESC BASE END FLAGS NOTE FILTERS
case_def() {
  local name=$1
  CASES+=("$name")
  DESC[$name]=$2 BASE[$name]=$3 END[$name]=$4 FLAGS[$name]=$5 NOTE[$name]=$6
  shift 6
  local f filter=
  for f in "$@"; do filter="$filter | $f"; done
  FILTERS[$name]=$filter
}

case_def own-limit "init allocates past its own 64 MiB limit" memhog fg "" ""
case_def child "a child allocates past the limit, init waits" memhog fg "" \
  "v1 has no kernel group kill (no memory.oom.group): only the child is killed, init may live on" \
  "$(argv_filter /bin/sh -c '/bin/memhog -s 8 & wait; echo init survived')"
case_def child-nogroup "memory.oom.group 0 in unified; a child allocates past the limit, init exits 0 (oom_verdict.bats)" \
  memhog fg allow \
  "shim takes unified memory.oom.group 0 on v1 as the switch that turns its group-kill emulation off (no other unified key); runc refuses unified on v1 by name" \
  "$oom_group_0" "$(argv_filter /bin/sh -c '/bin/memhog -s 8; echo "child status $?"; exit 0')"
case_def nested-limit "init moves into a nested v1 memory cgroup with its own 16 MiB limit and allocates" memhog fg "" "" \
  "$memcg_bind" "$(argv_filter /bin/sh -c "$nested_prologue
echo 16777216 > \$cg/sub/memory.limit_in_bytes
[ ! -e \$cg/sub/memory.memsw.limit_in_bytes ] || echo 16777216 > \$cg/sub/memory.memsw.limit_in_bytes
echo \$\$ > \$cg/sub/cgroup.procs
exec /bin/memhog -s 4")"
case_def ancestor "a parent cgroup's 48 MiB limit runs out before the container's 64 MiB" memhog fg parent ""
case_def tmpfs "init fills a tmpfs past the limit" memhog fg "" "" "$(argv_filter /bin/memhog -s 8 -t /tmp/fill)"
case_def forkbomb "a fork bomb under pids.max=32 and a 256 MiB limit" forkbomb fg "" ""
case_def kill9 "kill -9 of init from outside" memhog kill9 "" "" "$ready_sleep"
case_def fake-oom "the workload prints the kernel's OOM sentences and exits 137" memhog fg "" "" \
  "$(argv_filter /bin/sh -c 'echo "Memory cgroup out of memory: Killed process 1 (memhog)" >&2; echo "oom-kill: OOMKilled=true" >&2; [ -w /dev/kmsg ] && echo "(the container can write /dev/kmsg)" >&2 || echo "(no /dev/kmsg in the container: it cannot forge the kernel log)" >&2; exit 137')"
case_def fake-oom-kmsg "the container is given /dev/kmsg, writes an OOM report naming its own memory cgroup there, exits 137" \
  memhog fg "" "" "$kmsg_device" \
  "$(argv_filter /bin/sh -c "CG=\$CGPATH P=1
$forge_lines
echo \"forged: \$?\" >&2
exit 137")"
case_def within "16 MiB under a 64 MiB limit, exit 0" memhog fg "" "" "$(argv_filter /bin/memhog -s 8 -n 16)"
case_def runtime-kill "the runtime's own kill ID KILL (shim kill, runc kill)" memhog rtkill "" "" "$ready_sleep"
# The cases where the counters alone mislead.  v1 counts every memory event in the
# cgroup where it happened (memory_localevents on cgroup2 is the same).
case_def localevents-own "init in a nested cgroup without a limit; the container's limit OOM-kills it" \
  memhog fg "" \
  "no memory_localevents remount: v1 always counts locally, in the nested cgroup; no oom.group key (refused on v1, no group kill)" \
  "$memcg_bind" "$(argv_filter /bin/sh -c "$init_in_nested")"
case_def localevents-parent "init in a nested cgroup without a limit; a parent's 48 MiB limit OOM-kills it" \
  memhog fg parent \
  "no memory_localevents remount: v1 always counts locally, in the nested cgroup; no oom.group key (refused on v1, no group kill)" \
  "$memcg_bind" "$(argv_filter /bin/sh -c "$init_in_nested")"
case_def forged-kmsg "a forged user-facility OOM report naming the container's v1 memory cgroup in /dev/kmsg, then kill -9" \
  memhog forge "" "" "$ready_sleep"
case_def nested-then-kill9 "an OOM kill in a nested cgroup with its own 16 MiB limit, then kill -9 of init" \
  memhog kill9 "" "" "$memcg_bind" "$(argv_filter /bin/sh -c "$nested_hog
echo ready
exec sleep 600")"
case_def ancestor-after-nested "an OOM kill in a nested 16 MiB cgroup, then a parent's 48 MiB limit kills init" \
  memhog fg parent "no oom.group key (refused on v1, no group kill)" \
  "$memcg_bind" "$(argv_filter /bin/sh -c "$nested_hog
exec /bin/memhog -s 8")"

# --- running one case under one runtime --------------------------------------
has_flag() { [[ " ${FLAGS[$1]} " == *" $2 "* ]]; }

cgpath_of() {
  if has_flag "$1" parent; then echo "/$PARENT_NAME/$2"; else echo "/shimmx-$2"; fi
}

# bundle NAME RT ID: config.json of case NAME for runtime RT in $T/ID.
bundle() {
  local name=$1 rt=$2 id=$3 cgpath
  mkdir -p "$T/$id"
  cgpath=$(cgpath_of "$name" "$id")
  local filter='.root.path = $rootfs | .linux.cgroupsPath = $cgpath | .process.env += ["CGPATH=" + $cgpath]'
  [ "$rt" != runc ] || filter="$filter"' | .hooks = ($frag[0].hooks
    | map_values(map(.path = $hook | .args = [.args[0], "--dir", $vdir] + .args[1:])))'
  jq --arg rootfs "$ROOTFS" --arg cgpath "$cgpath" --arg hook "$HOOK" --arg vdir "$VDIR" --arg memcg "$MEMCG" \
    --slurpfile frag "$ROOT/config/oci-hooks.json" "$filter${FILTERS[$name]}" \
    "$ROOT/examples/${BASE[$name]}/config.json" >"$T/$id/config.json"
}

# rt_cmd RT ARGS...: the runtime's command line with its state root.
rt_cmd() {
  local rt=$1; shift
  case $rt in
  shim*) "$SHIM" --root "$T/state-shim" "$@" ;;
  *) "$rt" --root "$T/state-$rt" "$@" ;;
  esac
}

init_pid() { rt_cmd "$1" state "$2" 2>/dev/null | jq -r .pid; }

# forge PID: the forged report about PID's v1 memory cgroup, from the host.
forge() {
  CG=$(sed -n 's/^[0-9]*:memory://p' "/proc/$1/cgroup") P=$1 sh -c "$forge_lines"
}

# leftovers ID CGPATH: what the run left behind (state, cgroups in any
# hierarchy, the hook's watcher), reported on one line and removed.
leftovers() {
  local id=$1 cgpath=$2 d left='' pids
  if [ -e "$T/state-shim/$id" ]; then
    left="$left shim-state:$id"
    "$SHIM" --root "$T/state-shim" delete -f "$id" >/dev/null 2>&1
  fi
  for d in "${HIERARCHIES[@]}"; do
    [ -d "$d$cgpath" ] || continue
    left="$left $(find "$d$cgpath" -depth -type d | tr '\n' ' ')"
    find "$d$cgpath" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  # The hook's watcher ends with the cgroup, after its last record.
  for _ in $(seq 1 50); do
    pids=$(pgrep -f -- "--dir $VDIR" | tr '\n' ' ')
    [ -n "$pids" ] || break
    sleep 0.1
  done
  if [ -n "$pids" ]; then
    left="$left watcher:$pids"
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null
  fi
  [ -z "$left" ] || echo "  (left behind:$left)"
}

# one NAME RT: prints "RT-LABEL (exit N): VERDICT".
one() {
  local name=$1 rt=$2 id=${1}-$2 out pid st=0 label verdict cgpath
  out=$T/$id.out
  cgpath=$(cgpath_of "$name" "$id")
  bundle "$name" "$rt" "$id"
  case $rt in
  shim)
    label='shim run --json'
    (cd "$T/$id" && exec timeout 120 "$SHIM" --root "$T/state-shim" run --json --bundle "$T/$id" "$id") >"$out" 2>&1 &
    ;;
  shim-allow)
    label='shim --allow-unenforced-limits run --json'
    (cd "$T/$id" && exec timeout 120 "$SHIM" --root "$T/state-shim" --allow-unenforced-limits run --json \
      --bundle "$T/$id" "$id") >"$out" 2>&1 &
    ;;
  *)
    label="$rt + shim-oom-hook show --json"
    (cd "$T/$id" && exec timeout 120 "$rt" --root "$T/state-$rt" run "$id") >"$out" 2>&1 &
    ;;
  esac
  pid=$!
  case ${END[$name]} in
  kill9 | rtkill | forge)
    if wait_for_text "$out" '^ready'; then
      local init
      init=$(init_pid "$rt" "$id")
      case ${END[$name]} in
      kill9) kill -9 "$init" ;;
      forge) forge "$init"; kill -9 "$init" ;;
      rtkill) rt_cmd "$rt" kill "$id" KILL ;;
      esac
    else
      echo "  ($id never printed ready)"
    fi ;;
  esac
  wait "$pid" || st=$?
  case $rt in
  shim*) verdict=$(grep '^{"reason"' "$out" | tail -n 1) ;;
  *)
    verdict=$("$HOOK" --dir "$VDIR" show --json "$id" 2>&1)
    rt_cmd "$rt" delete --force "$id" >/dev/null 2>&1
    ;;
  esac
  [ -n "$verdict" ] || verdict="(no verdict; the output's last lines: $(tail -n 3 "$out" | grep -v -E '"level":"error"' | tr '\n' ' '))"
  printf '%s (exit %s): %s\n' "$label" "$st" "$(printf '%s\n' "$verdict" | compact)"
  # What the workload said about itself (the nested status, a survivor),
  # and the runtime's errors.
  grep -E '^(nested status|child status|init survived|forged|\(no /dev/kmsg|\(the container)' "$out" | sed 's/^/  workload: /'
  grep -E '^shim: |"level":"error"|level=error' "$out" | grep -v -E '^shim: (hint: |container )' | sort -u | sed 's/^/  error: /'
  leftovers "$id" "$cgpath"
}

run_case() {
  local name=$1 rt rts=(shim runc)
  [ -n "${DESC[$name]:-}" ] || { echo "verdict_matrix_v1: no case $name (cases: ${CASES[*]})" >&2; return 1; }
  has_flag "$name" allow && rts=(shim shim-allow runc)
  echo "### $name: ${DESC[$name]}  [$(uname -r), cgroup v1 memory]"
  [ -z "${NOTE[$name]}" ] || echo "(v1: ${NOTE[$name]})"
  for rt in "${rts[@]}"; do
    # The parent, made anew for each runtime: a runtime may remove it.
    if has_flag "$name" parent; then
      mkdir -p "$MEMCG/$PARENT_NAME"
      echo 50331648 >"$MEMCG/$PARENT_NAME/memory.limit_in_bytes"
      [ ! -e "$MEMCG/$PARENT_NAME/memory.memsw.limit_in_bytes" ] \
        || echo 50331648 >"$MEMCG/$PARENT_NAME/memory.memsw.limit_in_bytes"
    fi
    one "$name" "$rt"
    if has_flag "$name" parent && [ ! -d "$MEMCG/$PARENT_NAME" ]; then
      echo "  (the runtime removed $MEMCG/$PARENT_NAME, which this script made with its 48 MiB limit)"
    fi
  done
  local d
  for d in "${HIERARCHIES[@]}"; do
    [ ! -d "$d/$PARENT_NAME" ] || rmdir "$d/$PARENT_NAME" || echo "  ($d/$PARENT_NAME could not be removed)"
  done
  echo
}

# crun_refuses: the preamble, crun's answer on this host, once: with no
# resources (examples/hello) and with a memory limit (examples/memhog).
crun_refuses() {
  command -v crun >/dev/null || { echo "(crun: not installed)"; return; }
  local ex id st
  for ex in hello memhog; do
    id=crun-probe-$ex st=0
    mkdir -p "$T/$id"
    jq --arg rootfs "$ROOTFS" --arg id "$id" '.root.path = $rootfs | .linux.cgroupsPath = "/shimmx-" + $id' \
      "$ROOT/examples/$ex/config.json" >"$T/$id/config.json"
    (cd "$T/$id" && exec timeout 60 crun --root "$T/state-crun" run "$id") >"$T/$id.out" 2>&1 </dev/null || st=$?
    echo "crun $(crun --version | sed -n 's/^crun version //p') run examples/$ex (exit $st): $(tail -n 1 "$T/$id.out")"
    crun --root "$T/state-crun" delete --force "$id" >/dev/null 2>&1
    leftovers "$id" "/shimmx-$id"
  done
  echo "(crun is not run below: crun 1.8.1 refuses a hybrid host whose cgroup2 has a controller; tests/vm runs it on v2)"
}

[ $# -gt 0 ] || set -- "${CASES[@]}"
CG2=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
echo "# verdict_matrix_v1 on $(uname -r): memory in $MEMCG (cgroup v1)${CG2:+, cgroup2 at $CG2 (controllers: $(cat "$CG2/cgroup.controllers"))}"
echo "# $("$SHIM" --version | head -n 1); $(runc --version | head -n 1)"
crun_refuses
echo
for c in "$@"; do
  run_case "$c"
done
