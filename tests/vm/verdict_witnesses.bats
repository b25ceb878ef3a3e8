#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Never a confident wrong verdict: the cases where the counters
# alone mislead, and the kernel's own OOM report (/dev/kmsg) as a second
# witness.  memory_localevents (a cgroup2 mount option: memory.events counts
# only the cgroup's own events), a kernel-log line forged by a process, a
# kill -9 under runc (the cgroup is removed before the hook's last read),
# the victim named from the kernel log, and an ancestor's kill after an OOM
# event in a nested cgroup.  Run inside the VM, on every kernel.

load helpers
load hook_helpers

PARENT=$CGROOT/shimtest-witness

setup() {
  require_cgroup2_memory
  REMOUNTED=
  RTROOT=$BATS_TEST_TMPDIR/rt
  IDS=()
  BG_PID=
}

teardown() {
  local rc=0 id
  if [ -n "$BG_PID" ]; then
    kill -9 "$BG_PID" 2>/dev/null || true
    wait "$BG_PID" 2>/dev/null || true
  fi
  for id in "${IDS[@]}"; do
    "$RT" --root "$RTROOT" delete --force "$id" >/dev/null 2>&1 || true
  done
  # The hierarchy as tests/vm/init mounted it, whatever the test did: the
  # device is named so that mount(8) does not merge in the options of the
  # mount table (memory_localevents would stay).
  if [ -n "$REMOUNTED" ]; then
    mount -t cgroup2 -o remount,nsdelegate,memory_recursiveprot cgroup2 "$CGROOT" || rc=1
  fi
  if grep -E "^[^ ]+ [^ ]+ [^ ]+ / $CGROOT .*memory_localevents" /proc/self/mountinfo >&2; then
    echo "cgroup2 still mounted with memory_localevents" >&2
    rc=1
  fi
  if [ -d "$PARENT" ]; then
    rmdir "$PARENT" || rc=1
  fi
  assert_no_watchers || rc=1
  return $rc
}

# The cgroup2 mount with memory_localevents, as some hosts and Docker set-ups
# have it; teardown mounts it back.
remount_localevents() {
  REMOUNTED=1
  mount -o remount,memory_localevents "$CGROOT"
  grep -qE "^[^ ]+ [^ ]+ [^ ]+ / $CGROOT .*memory_localevents" /proc/self/mountinfo
}

# A parent cgroup with a 48 MiB limit (the container's own is 64 MiB).
make_parent() {
  mkdir "$PARENT"
  echo 50331648 >"$PARENT/memory.max"
  echo 0 >"$PARENT/memory.swap.max"
}

# The container's own cgroup namespace, with a writable cgroup2 mount so
# that it can make cgroups below its own.
writable_cgroup='.mounts |= map(if .destination == "/sys/fs/cgroup" then .options = ["nosuid","noexec","nodev"] else . end)'

# init moves itself into a nested cgroup and becomes the memory hog there:
# the OOM kill (by whichever limit) hits init in $cg/sub, and the kernel
# counts it in sub's memory.events, not in the container's local ones.
init_in_nested='cg=/sys/fs/cgroup
mkdir $cg/init && echo $$ > $cg/init/cgroup.procs
echo +memory > $cg/cgroup.subtree_control
mkdir $cg/sub
echo $$ > $cg/sub/cgroup.procs
exec /bin/memhog -s 8'

# The same, into a nested cgroup with its own 16 MiB limit: that limit
# OOM-kills init there.
init_in_small_nested='cg=/sys/fs/cgroup
mkdir $cg/init && echo $$ > $cg/init/cgroup.procs
echo +memory > $cg/cgroup.subtree_control
mkdir $cg/sub
echo 16777216 > $cg/sub/memory.max
echo 0 > $cg/sub/memory.swap.max
echo $$ > $cg/sub/cgroup.procs
exec /bin/memhog -s 4'

# kmsg_kill ID: "PID COMM" of the kernel log's oom-kill record of a victim
# in container ID's cgroup (the last one), or nothing.
kmsg_kill() {
  dmesg | sed -n "s|.*oom-kill:.*task_memcg=\([^,]*/$1\)\(/[^,]*\)\{0,1\},task=\([^,]*\),pid=\([0-9]*\),.*|\4 \3|p" | tail -n 1
}

# start_bg ID: `shim run --json` of $BUNDLE in the background (output in
# $BATS_TEST_TMPDIR/out), until init is shim's child and printed "ready".
start_bg() {
  "$SHIM" --root "$BATS_TEST_TMPDIR/state" run --json --bundle "$BUNDLE" "$1" \
    >"$BATS_TEST_TMPDIR/out" 2>&1 &
  BG_PID=$!
  INIT=
  local i
  for i in $(seq 1 400); do
    INIT=$(pgrep -P "$BG_PID" || true)
    [ -n "$INIT" ] && grep -q ready "$BATS_TEST_TMPDIR/out" && return 0
    sleep 0.05
  done
  echo "container $1 never got ready:" >&2
  cat "$BATS_TEST_TMPDIR/out" >&2
  return 1
}

# wait_bg: the status of the background shim, and its verdict line.
wait_bg() {
  status=0
  wait "$BG_PID" || status=$?
  BG_PID=
  verdict=$(grep '^{"reason"' "$BATS_TEST_TMPDIR/out" | tail -n 1)
  echo "verdict: $verdict"
}

@test "memory_localevents: the container's limit OOM-kills init in a nested cgroup: never Killed from outside" {
  remount_localevents
  make_bundle memhog "$writable_cgroup" '.linux.resources.unified = {"memory.oom.group": "0"}' \
    "$(args_filter /bin/sh -c "$init_in_nested")"
  run_shim le-own
  echo "$output"
  [ "$status" -eq 137 ]
  # The scenario itself: the kernel OOM-killed init in the nested cgroup.
  [[ "$(kmsg_kill le-own)" == *" memhog" ]]
  dmesg | grep -q "oom_memcg=/shim/le-own,task_memcg=/shim/le-own/sub,"
  # The verdict: the counters see no kill of the container's own; the
  # kernel log does.  Never "killed from outside, no OOM kill": true (the
  # kernel log as a witness) or null (unknown, the message says why).
  [ "$(v .killed_by)" != outside ]
  [ "$(v .oom_killed)" != false ]
  assert_no_leftovers le-own
}

@test "init OOM-killed by a nested cgroup's own limit is never called killed from outside" {
  # init moves itself into a nested cgroup with a 16 MiB limit and outgrows
  # it: the kernel kills init there.  Nothing outside sent a signal.
  make_bundle memhog "$writable_cgroup" "$(args_filter /bin/sh -c "$init_in_small_nested")"
  run_shim nested-init
  echo "$output"
  [ "$status" -eq 137 ]
  dmesg | grep -q "oom_memcg=/shim/nested-init/sub,task_memcg=/shim/nested-init/sub,task=memhog,"
  [ "$(v .killed_by)" != outside ]
  [ "$(v .oom_killed)" != false ]
  assert_no_leftovers nested-init
}

@test "memory_localevents: a parent cgroup's limit OOM-kills init in a nested cgroup: never Killed from outside" {
  remount_localevents
  make_parent
  make_bundle memhog "$writable_cgroup" '.linux.resources.unified = {"memory.oom.group": "0"}' \
    '.linux.cgroupsPath = "/shimtest-witness/le-parent"' \
    "$(args_filter /bin/sh -c "$init_in_nested")"
  run_shim le-parent
  echo "$output"
  [ "$status" -eq 137 ]
  dmesg | grep -q "oom_memcg=/shimtest-witness,task_memcg=/shimtest-witness/le-parent/sub,task=memhog,"
  [ "$(v .killed_by)" != outside ]
  [ "$(v .oom_killed)" != false ]
  [ ! -e "$PARENT/le-parent" ]
}

@test "a forged user-facility oom-kill line in the kernel log is ignored: kill -9 stays Killed from outside" {
  make_bundle memhog "$(args_filter /bin/sh -c 'echo ready; exec sleep 600')"
  start_bg forged
  local cg
  cg=$(sed -n 's/^0:://p' "/proc/$INIT/cgroup")
  [ "$cg" = /shim/forged ]
  # What a process can write: /dev/kmsg gives it a user facility even for
  # <0> (the kernel turns facility 0 into LOG_USER).
  printf '<0>oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=%s,task_memcg=%s,task=sleep,pid=%s,uid=0\n' \
    "$cg" "$cg" "$INIT" >/dev/kmsg
  printf '<0>Memory cgroup out of memory: Killed process %s (sleep) total-vm:1000kB, anon-rss:65536kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:0\n' \
    "$INIT" >/dev/kmsg
  # The forged lines are in the log, with the user facility.
  dmesg -x | grep -q "^user *:emerg *: .*oom-kill:constraint=CONSTRAINT_MEMCG,.*task_memcg=$cg,"
  dmesg -x | grep -q "^user *:emerg *: .*Memory cgroup out of memory: Killed process $INIT (sleep)"
  kill -9 "$INIT"
  wait_bg
  [ "$status" -eq 137 ]
  [ "$(v .reason)" = Killed ]
  [ "$(v .killed_by)" = outside ]
  [ "$(v .oom_killed)" = false ]
  assert_no_leftovers forged
}

# A kill -9 under a runtime with the hook registered: the hook decides "no
# OOM kill", under runc too, where the cgroup is gone before the last read
# (the nearest surviving ancestor's unchanged oom_kill proves it).
hook_kill9() {
  RT=$1
  local id=wk-$RT-kill pid st=0
  hook_bundle "$BATS_TEST_TMPDIR/$id" "$id" "$(argv_filter /bin/sh -c 'echo ready; exec sleep 600')"
  IDS+=("$id")
  (cd "$BATS_TEST_TMPDIR/$id" && exec "$RT" --root "$RTROOT" run "$id") \
    >"$BATS_TEST_TMPDIR/$id.out" 2>&1 &
  pid=$!
  wait_for_text "$BATS_TEST_TMPDIR/$id.out" ready
  kill -9 "$("$RT" --root "$RTROOT" state "$id" | jq -r .pid)"
  wait "$pid" || st=$?
  [ "$st" -eq 137 ]
  run "$HOOK" --dir "$VDIR" show --json "$id"
  echo "$output"
  [ "$status" -eq 0 ]
  verdict=$output
  [ "$(v .oom_killed)" = false ]
  [ "$(v .reason)" != OOMKilled ]
  [ ! -e "$BATS_TEST_TMPDIR/$id/oom" ]
}

@test "runc: shim-oom-hook show --json of a kill -9 says oom_killed false" {
  hook_kill9 runc
}

@test "crun: shim-oom-hook show --json of a kill -9 says oom_killed false" {
  hook_kill9 crun
}

@test "the kernel log names the victim of an OOM kill in the verdict: command and pid" {
  make_bundle memhog
  run_shim victim
  echo "$output"
  [ "$status" -eq 137 ]
  local kill pid comm
  kill=$(kmsg_kill victim)
  pid=${kill% *}
  comm=${kill#* }
  [ "$comm" = memhog ]
  [ -n "$pid" ]
  [ "$(v .reason)" = OOMKilled ]
  # The victims named from the kernel log, the cgroup whose limit ran out.
  [ "$(v '.oom.victims[0].command')" = memhog ]
  [ "$(v '.oom.victims[0].pid')" = "$pid" ]
  [ "$(v '.oom.victims[0].anon_rss')" -gt 0 ]
  [ "$(v '.oom.oom_memcg')" = . ]
  [[ "$(v .witnesses)" == *kmsg* ]]
  [[ "$(v .message)" == *"\`memhog\` (host pid $pid"* ]]
  assert_no_leftovers victim
}

@test "runc: the hook's verdict of an OOM kill names the victim from the kernel log" {
  RT=runc
  local id=wk-runc-victim st=0
  hook_bundle "$BATS_TEST_TMPDIR/$id" "$id"
  IDS+=("$id")
  (cd "$BATS_TEST_TMPDIR/$id" && exec "$RT" --root "$RTROOT" run "$id") \
    >"$BATS_TEST_TMPDIR/$id.out" 2>&1 || st=$?
  [ "$st" -eq 137 ]
  local kill
  kill=$(kmsg_kill "shimhook-$id")
  [ "${kill#* }" = memhog ]
  show_verdict "$id"
  [ "$(hv "$id" .oom_killed)" = true ]
  [ "$(hv "$id" '.oom.victims[0].command')" = memhog ]
  [ "$(hv "$id" '.oom.victims[0].pid')" = "${kill% *}" ]
}

@test "runc: init OOM-killed by a nested cgroup's own limit, named by the kernel log: the hook says OOMKilled" {
  # The hook has no exit status; the kernel log names init (the pid the
  # state gave at arming) as the victim of the nested cgroup's limit, and an
  # OOM kill is a SIGKILL.
  RT=runc
  local id=wk-runc-nested-init st=0
  hook_bundle "$BATS_TEST_TMPDIR/$id" "$id" "$writable_cgroup" "$(argv_filter /bin/sh -c "$init_in_small_nested")"
  IDS+=("$id")
  (cd "$BATS_TEST_TMPDIR/$id" && exec "$RT" --root "$RTROOT" run "$id") \
    >"$BATS_TEST_TMPDIR/$id.out" 2>&1 || st=$?
  [ "$st" -eq 137 ]
  dmesg | grep -q "oom_memcg=/shimhook-$id/sub,task_memcg=/shimhook-$id/sub,task=memhog,"
  show_verdict "$id"
  [ "$(hv "$id" .reason)" = OOMKilled ]
  [ "$(hv "$id" .oom_killed)" = true ]
  [ "$(hv "$id" .oom.oom_memcg)" = sub ]
}

@test "an ancestor's OOM kill after an OOM event in a nested cgroup: never a confident false" {
  make_parent
  # First a nested cgroup's own 16 MiB limit kills a hog there (an OOM
  # event in the container's tree), then init itself outgrows the parent's
  # 48 MiB: the parent's OOM kills init.
  local script='cg=/sys/fs/cgroup
    mkdir $cg/init && echo $$ > $cg/init/cgroup.procs
    echo +memory > $cg/cgroup.subtree_control
    mkdir $cg/sub
    echo 16777216 > $cg/sub/memory.max
    echo 0 > $cg/sub/memory.swap.max
    sh -c "echo \$\$ > $cg/sub/cgroup.procs; exec /bin/memhog -s 4"
    echo "nested status $?"
    exec /bin/memhog -s 8'
  make_bundle memhog "$writable_cgroup" '.linux.resources.unified = {"memory.oom.group": "0"}' \
    '.linux.cgroupsPath = "/shimtest-witness/anc-nested"' \
    "$(args_filter /bin/sh -c "$script")"
  run_shim anc-nested
  echo "$output"
  [ "$status" -eq 137 ]
  [[ "$output" == *"nested status 137"* ]]
  dmesg | grep -q "oom_memcg=/shimtest-witness/anc-nested/sub,task_memcg=/shimtest-witness/anc-nested/sub,"
  dmesg | grep -q "oom_memcg=/shimtest-witness,task_memcg=/shimtest-witness/anc-nested/init,task=memhog,"
  # null (the witnesses disagree or cannot tell) or true (the kernel log
  # says the parent's limit killed init): never "no OOM kill".
  [ "$(v .oom_killed)" != false ]
  if [ "$(v .oom_killed)" = true ]; then
    [ "$(v .oom.scope)" = ancestor ]
    [[ "$(v .witnesses)" == *kmsg* ]]
  fi
  [ ! -e "$PARENT/anc-nested" ]
}
