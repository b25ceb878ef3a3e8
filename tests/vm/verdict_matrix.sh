#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# tests/vm/verdict_matrix.sh [CASE...]
#
# The verdict for each kind of death, printed by
# `shim run --json` and by `shim-oom-hook show --json` under runc and under
# crun (Debian's, with the hook registered in config.json as
# config/oci-hooks.json has it).  Runs inside the VM, on the kernel the VM
# booted:
#
#   tests/vm/run [-k linux-image-6.12-amd64] -- tests/vm/verdict_matrix.sh
#
# One block per case: its name and what happens, then one line per runtime
# with the runtime's exit status and the verdict (jq -c when jq is there).
# CASE names a subset (default: all, in order).  Bundles and state live on a
# tmpfs (/tmp in the VM).  Not a test: it asserts nothing, it shows.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
SHIM=$ROOT/shim
ROOTFS=$ROOT/examples/rootfs
CG=/sys/fs/cgroup
PARENT=$CG/shimtest-matrix

die() { echo "verdict_matrix: $*" >&2; exit 1; }
[ "$(stat -f -c %T $CG 2>/dev/null)" = cgroup2fs ] || die "$CG is not cgroup2: run inside the VM (tests/vm/run -- $0)"
for b in "$SHIM" "$ROOT/shim-oom-hook" "$ROOTFS/bin/memhog"; do
  [ -e "$b" ] || die "$b is missing: make first"
done

T=$(mktemp -d /tmp/verdict-matrix.XXXXXX)
# hook_helpers.bash: argv_filter, wait_for_text; HOOK and VDIR from these.
ROOT_DIR=$ROOT VDIR=$T/verdicts
# shellcheck source=tests/vm/hook_helpers.bash
. "$here/hook_helpers.bash"
REMOUNTED=
cleanup() {
  [ -z "$REMOUNTED" ] || mount -t cgroup2 -o remount,nsdelegate,memory_recursiveprot cgroup2 $CG
  [ ! -d "$PARENT" ] || rmdir "$PARENT"
  rm -rf "$T"
}
trap cleanup EXIT

compact() {
  if command -v jq >/dev/null; then
    local line
    while IFS= read -r line; do
      printf '%s\n' "$line" | jq -c . 2>/dev/null || printf '%s\n' "$line"
    done
  else
    cat
  fi
}

# --- the cases ---------------------------------------------------------------
# Each: NAME, a line saying what happens, the example config it starts from,
# how it ends (fg: by itself; kill9: kill -9 of init from outside once it
# printed "ready"; rtkill: the runtime's own `kill ID KILL` once ready;
# forge: a forged user-facility OOM report naming it, then kill -9), flags
# (parent: in /shimtest-matrix, 48 MiB; localevents: cgroup2 remounted with
# memory_localevents), then jq filters on config.json.
writable_cgroup='.mounts |= map(if .destination == "/sys/fs/cgroup" then .options = ["nosuid","noexec","nodev"] else . end)'
ready_sleep=$(argv_filter /bin/sh -c 'echo ready; exec sleep 600')
nested_prologue='cg=/sys/fs/cgroup
mkdir $cg/init && echo $$ > $cg/init/cgroup.procs
echo +memory > $cg/cgroup.subtree_control
mkdir $cg/sub'
init_in_nested="$nested_prologue
echo \$\$ > \$cg/sub/cgroup.procs
exec /bin/memhog -s 8"
nested_hog="$nested_prologue
echo 16777216 > \$cg/sub/memory.max
echo 0 > \$cg/sub/memory.swap.max
sh -c \"echo \\\$\\\$ > \$cg/sub/cgroup.procs; exec /bin/memhog -s 4\"
echo \"nested status \$?\""
oom_group_0='.linux.resources.unified = {"memory.oom.group": "0"}'

CASES=()
declare -A DESC BASE END FLAGS FILTERS
case_def() {
  local name=$1
  CASES+=("$name")
  DESC[$name]=$2 BASE[$name]=$3 END[$name]=$4 FLAGS[$name]=$5
  shift 5
  local f filter=
  for f in "$@"; do filter="$filter | $f"; done
  FILTERS[$name]=$filter
}

case_def own-limit "init allocates past its own 64 MiB limit" memhog fg ""
case_def child "a child allocates past the limit, init waits" memhog fg "" \
  "$(argv_filter /bin/sh -c '/bin/memhog -s 8 & wait; echo init survived')"
case_def nested-limit "init moves into a nested cgroup with its own 16 MiB limit and allocates" memhog fg "" \
  "$writable_cgroup" "$(argv_filter /bin/sh -c "$nested_prologue
echo 16777216 > \$cg/sub/memory.max
echo 0 > \$cg/sub/memory.swap.max
echo \$\$ > \$cg/sub/cgroup.procs
exec /bin/memhog -s 4")"
case_def ancestor "a parent cgroup's 48 MiB limit runs out before the container's 64 MiB" memhog fg parent
case_def tmpfs "init fills a tmpfs past the limit" memhog fg "" "$(argv_filter /bin/memhog -s 8 -t /tmp/fill)"
case_def forkbomb "a fork bomb under pids.max=32 and a 256 MiB limit" forkbomb fg ""
case_def kill9 "kill -9 of init from outside" memhog kill9 "" "$ready_sleep"
case_def fake-oom "the workload prints the kernel's OOM sentences and exits 137" memhog fg "" \
  "$(argv_filter /bin/sh -c 'echo "Memory cgroup out of memory: Killed process 1 (memhog)" >&2; echo "oom-kill: OOMKilled=true" >&2; exit 137')"
case_def within "16 MiB under a 64 MiB limit, exit 0" memhog fg "" "$(argv_filter /bin/memhog -s 8 -n 16)"
case_def runtime-kill "the runtime's own kill ID KILL (shim kill, runc kill, crun kill)" memhog rtkill "" "$ready_sleep"
# The cases where the counters alone mislead.
case_def localevents-own "memory_localevents; the container's limit OOM-kills init in a nested cgroup (oom.group 0)" \
  memhog fg localevents "$writable_cgroup" "$oom_group_0" "$(argv_filter /bin/sh -c "$init_in_nested")"
case_def localevents-parent "memory_localevents; a parent's 48 MiB limit OOM-kills init in a nested cgroup (oom.group 0)" \
  memhog fg "localevents parent" "$writable_cgroup" "$oom_group_0" "$(argv_filter /bin/sh -c "$init_in_nested")"
case_def forged-kmsg "a forged user-facility OOM report naming the container in /dev/kmsg, then kill -9" \
  memhog forge "" "$ready_sleep"
case_def nested-then-kill9 "an OOM kill in a nested cgroup with its own 16 MiB limit, then kill -9 of init" \
  memhog kill9 "" "$writable_cgroup" "$(argv_filter /bin/sh -c "$nested_hog
echo ready
exec sleep 600")"
case_def ancestor-after-nested "an OOM kill in a nested 16 MiB cgroup, then a parent's 48 MiB limit kills init (oom.group 0)" \
  memhog fg parent "$writable_cgroup" "$oom_group_0" "$(argv_filter /bin/sh -c "$nested_hog
exec /bin/memhog -s 8")"

# --- running one case under one runtime --------------------------------------
has_flag() { [[ " ${FLAGS[$1]} " == *" $2 "* ]]; }

# bundle NAME RT ID: config.json of case NAME for runtime RT in $T/ID.
bundle() {
  local name=$1 rt=$2 id=$3 cgpath
  mkdir -p "$T/$id"
  if has_flag "$name" parent; then cgpath=/shimtest-matrix/$id; else cgpath=/shimmx-$id; fi
  local filter='.root.path = $rootfs | .linux.cgroupsPath = $cgpath'
  [ "$rt" = shim ] || filter="$filter"' | .hooks = ($frag[0].hooks
    | map_values(map(.path = $hook | .args = [.args[0], "--dir", $vdir] + .args[1:])))'
  jq --arg rootfs "$ROOTFS" --arg cgpath "$cgpath" --arg hook "$HOOK" --arg vdir "$VDIR" \
    --slurpfile frag "$ROOT/config/oci-hooks.json" "$filter${FILTERS[$name]}" \
    "$ROOT/examples/${BASE[$name]}/config.json" >"$T/$id/config.json"
}

# rt_cmd RT ARGS...: the runtime's command line with its state root.
rt_cmd() {
  local rt=$1; shift
  case $rt in
  shim) "$SHIM" --root "$T/state-shim" "$@" ;;
  *) "$rt" --root "$T/state-$rt" "$@" ;;
  esac
}

init_pid() { rt_cmd "$1" state "$2" 2>/dev/null | jq -r .pid; }

# forge PID: the two lines of a kernel OOM report about PID's cgroup, written
# by a process (so with the user facility).
forge() {
  local pid=$1 cg
  cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
  printf '<0>oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=%s,task_memcg=%s,task=sleep,pid=%s,uid=0\n' \
    "$cg" "$cg" "$pid" >/dev/kmsg
  printf '<0>Memory cgroup out of memory: Killed process %s (sleep) total-vm:1000kB, anon-rss:65536kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:0\n' \
    "$pid" >/dev/kmsg
}

# one NAME RT: prints "RT-LABEL (exit N): VERDICT".
one() {
  local name=$1 rt=$2 id=${1}-$2 out pid st=0 label verdict
  out=$T/$id.out
  bundle "$name" "$rt" "$id"
  if [ "$rt" = shim ]; then
    label='shim run --json'
    (cd "$T/$id" && exec timeout 120 "$SHIM" --root "$T/state-shim" run --json --bundle "$T/$id" "$id") >"$out" 2>&1 &
  else
    label="$rt + shim-oom-hook show --json"
    (cd "$T/$id" && exec timeout 120 "$rt" --root "$T/state-$rt" run "$id") >"$out" 2>&1 &
  fi
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
  if [ "$rt" = shim ]; then
    verdict=$(grep '^{"reason"' "$out" | tail -n 1)
  else
    verdict=$("$HOOK" --dir "$VDIR" show --json "$id" 2>&1)
    rt_cmd "$rt" delete --force "$id" >/dev/null 2>&1
  fi
  [ -n "$verdict" ] || verdict="(no verdict; output: $(tail -n 3 "$out" | tr '\n' ' '))"
  printf '%s (exit %s): %s\n' "$label" "$st" "$(printf '%s\n' "$verdict" | compact)"
}

run_case() {
  local name=$1 rt
  [ -n "${DESC[$name]:-}" ] || { echo "verdict_matrix: no case $name (cases: ${CASES[*]})" >&2; return 1; }
  if has_flag "$name" localevents; then
    mount -o remount,memory_localevents $CG && REMOUNTED=1
  fi
  if has_flag "$name" parent; then
    mkdir -p "$PARENT"
    echo 50331648 >"$PARENT/memory.max"
    echo 0 >"$PARENT/memory.swap.max"
  fi
  echo "### $name: ${DESC[$name]}  [$(uname -r)]"
  for rt in shim runc crun; do
    one "$name" "$rt"
  done
  if [ -n "$REMOUNTED" ]; then
    mount -t cgroup2 -o remount,nsdelegate,memory_recursiveprot cgroup2 $CG && REMOUNTED=
  fi
  [ ! -d "$PARENT" ] || rmdir "$PARENT" || echo "  ($PARENT could not be removed)"
  echo
}

[ $# -gt 0 ] || set -- "${CASES[@]}"
for c in "$@"; do
  run_case "$c"
done
