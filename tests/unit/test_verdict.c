/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict rules, one row per row of docs/DESIGN.md's measured table and per
 * rule; the size formatter; two golden JSON lines. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cgroup/cgroup_files.h"
#include "tap.h"
#include "common/util.h"
#include "verdict/verdict.h"

#include "verdict_fixture.h"

#define WIT(w) ((w) | 0x100u) /* witnesses expected; 0: not checked */

struct row
{
  const char *name;
  /* input */
  struct cnt bl, bt, fl, ft; /* baseline local/tree, final local/tree */
  enum snaps snaps;
  enum st_kind st;
  int st_val; /* exit code or signal */
  uint64_t sent;
  bool not_enforced;
  const char *unavail;
  uint64_t oom_anon, oom_shmem; /* memory.stat at the OOM; 0 0: no at_oom snapshot */
  /* expected */
  enum verdict_reason reason;
  enum verdict_tri oom_killed;
  bool have_oom;
  enum verdict_scope scope;
  int kills, nested;
  enum verdict_tri group;
  enum verdict_killed_by by;
  const char *msg[3]; /* substrings of the message */
  const char *hint;   /* substring of the hint; NULL: no hint */
  /* input added with the kernel-log witness (zero: as before) */
  enum km_kind km;
  bool localevents;     /* the snapshots say memory_localevents */
  bool oom_group;       /* the snapshots say memory.oom.group=1 */
  bool recreated;       /* the final snapshot has another cgroup id */
  enum anc_kind anc;
  bool signals_unknown;
  bool signals_unseen;  /* the hook: signals_unknown because none are seen */
  unsigned wit;         /* WIT(VERDICT_WITNESS_*) */
  int init_pid;         /* 0: not known (the kernel log's victim is 4121) */
  bool km_short;        /* the log names one kill, fewer than the counters */
  int km_relisted;      /* kills counted twice: a group's victim listed again */
  const char *status_why; /* why init's status is not known (NULL: not said) */
};

#define NUL VERDICT_NULL
#define T VERDICT_TRUE
#define F VERDICT_FALSE
#define CONT VERDICT_SCOPE_CONTAINER
#define ANC VERDICT_SCOPE_ANCESTOR
#define NOSCOPE VERDICT_SCOPE_NONE
#define RT VERDICT_BY_RUNTIME
#define OUT VERDICT_BY_OUTSIDE
#define NOBY VERDICT_BY_NONE
#define KILLED_BY_RT VERDICT_SIGBIT (SIGKILL)

/* The rows before the kernel-log witness leave its fields out (zero). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct row rows[] = {
  /* ---- docs/DESIGN.md's measured table ---- */
  { "table 1: own limit, processes in C, oom.group=1", Z, Z, { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 58 * MIB, 1 * MIB, VERDICT_OOM_KILLED, T, true, CONT, 3, 0,
    T, NOBY,
    { "container c1 was OOM-killed: it hit its 64 MiB memory limit (peak 64 MiB, 3 processes "
      "killed as a group; the container held 58 MiB anonymous memory)" },
    "give it more memory: linux.resources.memory.limit in config.json, or --memory 128M" },
  { "table 2: own limit, processes in nested leaves, oom.group=1", Z, Z, { 1, 0, 1 }, { 1, 5, 1 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 5, 0, T,
    NOBY, { "was OOM-killed: it hit its 64 MiB memory limit", "5 processes killed as a group" },
    "--memory 128M" },
  { "table 3: a parent's limit, processes in nested leaves", Z, Z, Z, { 0, 4, 0 }, S_BOTH, ST_SIG,
    SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, ANC, 4, 0, NUL, NOBY,
    { "was OOM-killed: it hit the memory limit of its parent cgroup /shim, not its own 64 MiB limit",
      "4 processes killed" },
    "raise the memory limit of the parent cgroup", .km = K_ANC, .init_pid = 4121 },
  /* A parent's kill goes one by one unless the parent's oom.group is 1:
   * without the log naming init, init may have outlived it. */
  { "table 3 without the kernel log: init may have outlived a parent's kill", Z, Z, Z, { 0, 4, 0 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, ANC, 4, 0, NUL, NOBY,
    { "whether by the OOM killer is unknown: 4 processes in it were OOM-killed one by one",
      "init may have been one of them or killed after them", "the kernel log was not read" },
    "raise the memory limit of the parent cgroup" },
  { "table 3, the kernel log names another victim: init killed from outside", Z, Z, Z, { 0, 1, 0 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, true, ANC, 1, 0, NUL, OUT,
    { "was killed by SIGKILL from outside the runtime (not an OOM kill: the kernel log names the 1 "
      "process the OOM killer took in it, and init (host pid 7) is not that one)" },
    "raise the memory limit of the parent cgroup", .km = K_ANC, .init_pid = 7 },
  { "table 4: only a nested limit, then kill -9 from outside", Z, Z, Z, { 1, 2, 1 }, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, true, NOSCOPE, 0, 2, F, OUT,
    { "container c1 was killed by SIGKILL from outside the runtime (not an OOM kill: the 2 OOM "
      "kills counted were in nested cgroups with their own limits)" },
    NULL, .km = K_NESTED, .wit = WIT (VERDICT_WITNESS_COUNTERS | VERDICT_WITNESS_KMSG),
    .init_pid = 1 },
  /* Without init's pid the log's victims cannot clear init: it may have
   * lived in the nested cgroup (systemd as init moves itself there). */
  { "table 4, init's pid not known: kill -9 may have been a nested OOM kill of init", Z, Z, Z,
    { 1, 2, 1 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, NOSCOPE, 0,
    2, F, NOBY,
    { "container c1 was killed by SIGKILL; whether by the OOM killer is unknown: 2 processes in "
      "nested cgroups were OOM-killed and init may have been one of them",
      "init's pid was not known" },
    NULL, .km = K_NESTED },
  { "table 4, the kernel log unreadable: the kills may have been a parent's, or init's", Z, Z,
    Z, { 1, 2, 1 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, NOSCOPE,
    0, 2, F, NOBY, { "may have been a nested cgroup's or a parent's", "the kernel log could not be read" }, NULL,
    .km = K_DENIED, .init_pid = 1 },
  { "table 4: only a nested limit, init exits 0", Z, Z, Z, { 1, 2, 1 }, S_BOTH, ST_EXIT, 0, 0,
    false, NULL, 0, 0, VERDICT_EXITED, F, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 exited with code 0; 2 processes in nested cgroups were OOM-killed" }, NULL,
    .km = K_NESTED },
  { "table 4 without the kernel log, init exits 0: whose kills is not said", Z, Z, Z, { 1, 2, 1 },
    S_BOTH, ST_EXIT, 0, 0, false, NULL, 0, 0, VERDICT_EXITED, F, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 exited with code 0; 2 processes below it were OOM-killed, for a nested "
      "cgroup's limit or a parent's" },
    NULL },
  { "table 5: oom.group=0, a child killed, init exits 0", Z, Z, { 1, 1, 0 }, { 1, 1, 0 }, S_BOTH,
    ST_EXIT, 0, 0, false, NULL, 0, 0, VERDICT_EXITED, F, true, CONT, 1, 0, F, NOBY,
    { "container c1 exited with code 0; a process in the container was OOM-killed (kills 1) "
      "while init survived" },
    "give it more memory" },
  /* ---- rules ---- */
  { "oom.group=0, init itself OOM-killed", Z, Z, { 1, 2, 0 }, { 1, 2, 0 }, S_BOTH, ST_SIG,
    SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 2, 0, F, NOBY,
    { "it hit its 64 MiB memory limit (peak 64 MiB, 2 processes killed)" }, "--memory 128M",
    .km = K_OWN, .init_pid = 4121 },
  { "oom.group=0, kills one by one, no kernel log: init may have been killed after them", Z, Z,
    { 1, 2, 0 }, { 1, 2, 0 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL,
    true, CONT, 2, 0, F, NOBY,
    { "whether by the OOM killer is unknown: 2 processes in it were OOM-killed one by one" },
    "--memory 128M" },
  /* The case: a child OOM-killed alone, then init SIGKILLed by an
   * admin or a manager's stop timeout. */
  { "oom.group=0, a child OOM-killed, then kill -9 of init from outside", Z, Z, { 1, 1, 0 },
    { 1, 1, 0 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, true, CONT, 1, 0,
    F, OUT,
    { "container c1 was killed by SIGKILL from outside the runtime (not an OOM kill: the kernel log "
      "names the 1 process the OOM killer took in it, and init (host pid 7) is not that one)" },
    "--memory 128M", .km = K_OWN, .init_pid = 7 },
  { "kill -9 from outside", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0,
    VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, OUT,
    { "container c1 was killed by SIGKILL from outside the runtime (not an OOM kill: no OOM kill "
      "was counted in its cgroup)" },
    NULL },
  { "shim kill SIGKILL", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL, KILLED_BY_RT, false, NULL, 0, 0,
    VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, RT,
    { "was killed by SIGKILL sent by the runtime (not an OOM kill" }, NULL },
  { "nested kills, then shim kill", Z, Z, Z, { 1, 1, 1 }, S_BOTH, ST_SIG, SIGKILL, KILLED_BY_RT,
    false, NULL, 0, 0, VERDICT_KILLED, F, true, NOSCOPE, 0, 1, F, RT,
    { "sent by the runtime",
      "(not an OOM kill: the one OOM kill counted was in a nested cgroup with its own limit)" }, NULL,
    .km = K_NESTED },
  { "shim kill after a child was OOM-killed one by one", Z, Z, { 1, 1, 0 }, { 1, 1, 0 }, S_BOTH,
    ST_SIG, SIGKILL, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 1, 0, F,
    RT, { "whether by the runtime or the OOM killer is unknown", "not as a group" },
    "give it more memory" },
  { "shim kill and a group OOM kill, the kernel log names init", Z, Z, { 1, 3, 1 }, { 1, 3, 1 },
    S_BOTH, ST_SIG, SIGKILL, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 3,
    0, T, NOBY, { "was OOM-killed", "; the runtime had also sent SIGKILL" }, "--memory 128M",
    .km = K_OWN, .init_pid = 4121 },
  /* A group kill skips a task with oom_score_adj -1000 and one already
   * exiting: without the log, either signal may have ended init. */
  { "shim kill and a group OOM kill, no kernel log: null", Z, Z, { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH,
    ST_SIG, SIGKILL, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 3, 0, T, RT,
    { "whether by the runtime or the OOM killer is unknown",
      "as a group (which skips a task with oom_score_adj -1000)" },
    "--memory 128M" },
  { "a group OOM kill that skipped init, then shim kill: the kernel log clears init", Z, Z,
    { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH, ST_SIG, SIGKILL, KILLED_BY_RT, false, NULL, 0, 0,
    VERDICT_KILLED, F, true, CONT, 3, 0, T, RT,
    { "was killed by SIGKILL sent by the runtime (not an OOM kill: the kernel log names the 3 "
      "processes the OOM killer took in it, and init (host pid 7) is not one of them)" },
    "--memory 128M", .km = K_OWN, .init_pid = 7 },
  /* Measured on 6.18: a group kill that skipped init (oom_score_adj
   * -1000) counted oom_kill 2 for its one victim, listed twice. */
  { "a group kill counts its victim twice: the log still clears init", Z, Z, { 1, 2, 1 },
    { 1, 2, 1 }, S_BOTH, ST_SIG, SIGKILL, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, F, true,
    CONT, 2, 0, T, RT, { "sent by the runtime (not an OOM kill", "init (host pid 7) is not that one" },
    "--memory 128M", .km = K_OWN, .init_pid = 7, .km_relisted = 1 },
  /* The kernel counts and logs each kill together: a log with fewer
   * records than the counters missed some, and cannot clear init. */
  { "the kernel log names fewer kills than counted: it does not clear init", Z, Z, { 1, 3, 0 },
    { 1, 3, 0 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 3, 0,
    F, NOBY, { "whether by the OOM killer is unknown", "init's pid was not known" }, "--memory 128M",
    .km = K_OWN, .init_pid = 7, .km_short = true },
  { "a group OOM kill that skipped init (oom_score_adj -1000), then kill -9 from outside", Z, Z,
    { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, true,
    CONT, 3, 0, T, OUT, { "from outside the runtime (not an OOM kill", "init (host pid 7) is not" },
    "--memory 128M", .km = K_OWN, .init_pid = 7 },
  { "exit 137 from a normal exit, counters unchanged", Z, Z, Z, Z, S_BOTH, ST_EXIT, 137, 0, false,
    NULL, 0, 0, VERDICT_EXITED, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "container c1 exited with code 137" }, NULL },
  { "exit 137, counters unavailable", Z, Z, Z, Z, S_NONE, ST_EXIT, 137, 0, false,
    "cgroup already removed", 0, 0, VERDICT_EXITED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "exited with code 137; whether anything in it was OOM-killed is unknown: cgroup already "
      "removed" },
    NULL },
  { "SIGKILL, counters unavailable", Z, Z, Z, Z, S_NONE, ST_SIG, SIGKILL, 0, false,
    "cgroup already removed", 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "container c1 was killed by SIGKILL; whether by the OOM killer is unknown: cgroup already "
      "removed" },
    NULL },
  { "shim kill, counters unavailable", Z, Z, Z, Z, S_NONE, ST_SIG, SIGKILL, KILLED_BY_RT, false,
    NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, RT,
    { "killed by SIGKILL sent by the runtime; whether by the OOM killer is unknown: no cgroup "
      "snapshot was taken" },
    NULL },
  { "pre-existing counters are not blamed", { 2, 5, 2 }, { 3, 9, 2 }, { 2, 5, 2 }, { 3, 9, 2 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL,
    OUT, { "from outside the runtime", "no OOM kill was counted" }, NULL },
  { "pre-existing counters, then a real group kill", { 2, 5, 2 }, { 3, 9, 2 }, { 3, 8, 3 },
    { 4, 12, 3 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true,
    CONT, 3, 0, T, NOBY, { "3 processes killed as a group" }, "give it more memory" },
  { "no baseline, non-zero counters: may predate the container", Z, Z, { 1, 1, 1 }, { 1, 1, 1 },
    S_NO_BASE, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0,
    NUL, NOBY, { "no baseline was taken at create" }, NULL },
  { "no baseline, zero counters: still no OOM kill", Z, Z, Z, Z, S_NO_BASE, ST_SIG, SIGKILL, 0,
    false, NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, OUT,
    { "no OOM kill was counted" }, NULL },
  { "counters went down: another cgroup", { 5, 5, 5 }, { 5, 5, 5 }, Z, Z, S_BOTH, ST_SIG, SIGKILL,
    0, false, NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "the OOM counters went down since create" }, NULL },
  { "limit not enforced, no counters", Z, Z, Z, Z, S_NO_EVENTS, ST_SIG, SIGKILL, 0, true, NULL, 0,
    0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "whether by the OOM killer is unknown: memory limit not enforced" }, NULL },
  { "limit not enforced, counters there anyway", Z, Z, { 1, 2, 1 }, { 1, 2, 1 }, S_BOTH, ST_SIG,
    SIGKILL, 0, true, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 2, 0, T, NOBY,
    { "was OOM-killed" }, "give it more memory" },
  { "no memory controller", Z, Z, Z, Z, S_NO_EVENTS, ST_EXIT, 1, 0, false, "no memory controller",
    0, 0, VERDICT_EXITED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "exited with code 1; whether anything in it was OOM-killed is unknown: no memory "
      "controller" },
    NULL },
  { "SIGTERM from shim kill", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGTERM, VERDICT_SIGBIT (SIGTERM), false,
    NULL, 0, 0, VERDICT_SIGNALED, F, false, NOSCOPE, 0, 0, NUL, RT,
    { "container c1 was terminated by signal SIGTERM sent by the runtime" }, NULL },
  { "SIGSEGV", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGSEGV, VERDICT_SIGBIT (SIGTERM), false, NULL, 0, 0,
    VERDICT_SIGNALED, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "container c1 was terminated by signal SIGSEGV" }, NULL },
  /* Before 5.17 nothing counts a group kill: with memory.oom.group 0 the
   * kills went one by one, and only the kernel log names init. */
  { "kernel before 5.17, oom.group=0, no kernel log: null", Z, Z, { 1, 2, ABSENT }, { 1, 2, ABSENT },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 2, 0, NUL, NOBY,
    { "whether by the OOM killer is unknown: 2 processes in it were OOM-killed one by one, not as "
      "a group (its memory.oom.group was 0)" },
    "give it more memory" },
  { "kernel before 5.17, oom.group=0, the kernel log names init", Z, Z, { 1, 2, ABSENT },
    { 1, 2, ABSENT }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true,
    CONT, 2, 0, NUL, NOBY, { "2 processes killed)" }, "give it more memory", .km = K_OWN,
    .init_pid = 4121 },
  { "kernel before 5.17, victims in nested leaves, oom.group=0, no kernel log: null", Z, Z,
    { 1, 0, ABSENT }, { 1, 3, ABSENT }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED,
    NUL, true, CONT, 3, 0, NUL, NOBY, { "whether by the OOM killer is unknown" },
    "give it more memory" },
  { "own limit and nested limits both ran out", Z, Z, { 1, 0, 0 }, { 2, 3, 1 }, S_BOTH, ST_SIG,
    SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 0, 3, F, NOBY,
    { "whether by the OOM killer is unknown: its own memory limit ran out while nested cgroups ran "
      "out of theirs" },
    NULL },
  { "kernel before 5.2, no kills in the tree", Z, Z, Z, { 1, 0, ABSENT }, S_NO_LOCAL, ST_SIG,
    SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, OUT,
    { "no OOM kill was counted" }, NULL },
  { "kernel before 5.2, kills in the tree", Z, Z, Z, { 1, 2, ABSENT }, S_NO_LOCAL, ST_SIG, SIGKILL,
    0, false, NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "no memory.events.local" }, NULL },
  { "at_oom stands in for a missing final; shmem filled memory", Z, Z, { 1, 2, 1 }, { 1, 2, 1 },
    S_AT_OOM, ST_SIG, SIGKILL, 0, false, NULL, 4 * MIB, 60 * MIB, VERDICT_OOM_KILLED, T, true,
    CONT, 2, 0, T, NOBY, { "; the container held mostly tmpfs / shared memory: 60 MiB shmem)" },
    "give it more memory" },
  /* ---- the hook: no wait status ---- */
  { "hook: group kill", Z, Z, { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0,
    VERDICT_OOM_KILLED, T, true, CONT, 3, 0, T, NOBY,
    { "container c1 was OOM-killed (its exit status was not known here): it hit its 64 MiB" },
    "--memory 128M" },
  { "hook: ancestor kill, the kernel log names init", Z, Z, Z, { 0, 2, 0 }, S_BOTH, ST_NONE, 0, 0,
    false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, ANC, 2, 0, NUL, NOBY,
    { "(its exit status was not known here): it hit the memory limit of its parent cgroup /shim" },
    "parent cgroup /shim", .km = K_ANC, .init_pid = 4121 },
  /* A parent's OOM kill goes one by one unless a cgroup with
   * memory.oom.group=1 holds the victim: init may have outlived it. */
  { "hook: ancestor kill, no kernel log: null", Z, Z, Z, { 0, 2, 0 }, S_BOTH, ST_NONE, 0, 0, false,
    NULL, 0, 0, VERDICT_UNKNOWN, NUL, true, ANC, 2, 0, NUL, NOBY,
    { "container c1 stopped; 2 processes in it were OOM-killed one by one, not as a group, and "
      "without init's exit status it is unknown whether init was one of them" },
    "parent cgroup" },
  { "hook: one-by-one kill, init may have survived", Z, Z, { 1, 1, 0 }, { 1, 1, 0 }, S_BOTH,
    ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_UNKNOWN, NUL, true, CONT, 1, 0, F, NOBY,
    { "1 process in it was OOM-killed one by one, not as a group (its memory.oom.group was 0)",
      "unknown whether init was one of them" },
    "give it more memory" },
  { "hook: no kill", Z, Z, Z, Z, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_UNKNOWN, F,
    false, NOSCOPE, 0, 0, NUL, NOBY,
    { "container c1 stopped with no OOM kill counted in its cgroup (its exit status was not "
      "known here)" },
    NULL },
  /* The evidence layer says why the status is not known: each story that
   * says it was not known says why. */
  { "no status, and why: OOM-killed", Z, Z, { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH, ST_NONE, 0, 0, false,
    NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 3, 0, T, NOBY,
    { "container c1 was OOM-killed (its exit status was not known: init was reaped first): it hit" },
    "--memory 128M", .status_why = "init was reaped first" },
  { "no status, and why: no kill", Z, Z, Z, Z, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0,
    VERDICT_UNKNOWN, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "container c1 stopped with no OOM kill counted in its cgroup (its exit status was not "
      "known: init was reaped first)" },
    NULL, .status_why = "init was reaped first" },
  { "no status, and why: nested kills, init's pid not known", Z, Z, Z, { 1, 2, 1 }, S_BOTH,
    ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_UNKNOWN, NUL, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 stopped; its exit status was not known: init was reaped first and whether it "
      "was OOM-killed is unknown" },
    NULL, .km = K_NESTED, .status_why = "init was reaped first" },
  { "hook: nested kills only", Z, Z, Z, { 1, 2, 1 }, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0,
    VERDICT_UNKNOWN, F, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 stopped with no OOM kill of its own (its exit status was not known here); "
      "the 2 OOM kills counted were in nested cgroups with their own limits" },
    NULL, .km = K_NESTED, .init_pid = 1 },
  { "hook: nested kills, init's pid not known", Z, Z, Z, { 1, 2, 1 }, S_BOTH, ST_NONE, 0, 0, false,
    NULL, 0, 0, VERDICT_UNKNOWN, NUL, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 stopped; its exit status was not known here and whether it was OOM-killed is "
      "unknown: 2 processes in nested cgroups were OOM-killed and init may have been one of them" },
    NULL, .km = K_NESTED },
  { "hook: the kernel log names init as a nested cgroup's victim", Z, Z, Z, { 1, 2, 1 }, S_BOTH,
    ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 was OOM-killed: its init (host pid 4121) lived in the nested cgroup `leaf`" },
    "raise memory.max of the nested cgroup `leaf`", .km = K_NESTED, .init_pid = 4121 },
  /* The kernel log names init as the victim of C's own limit: init died of
   * it, though not as a group (the localevents-own case of the VM's
   * matrix, where the hook said null). */
  { "hook: one-by-one kill, the kernel log names init as the victim", Z, Z, { 1, 1, 0 }, { 1, 1, 0 },
    S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 1, 0, F, NOBY,
    { "container c1 was OOM-killed (its exit status was not known here): it hit its 64 MiB",
      "the kernel killed `python3` (host pid 4121" },
    "give it more memory", .km = K_OWN, .init_pid = 4121, .signals_unknown = true, .signals_unseen = true },
  { "hook: one-by-one kill, the kernel log names another victim", Z, Z, { 1, 1, 0 }, { 1, 1, 0 },
    S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_UNKNOWN, F, true, CONT, 1, 0, F, NOBY,
    { "container c1 stopped, not OOM-killed: the kernel log names the 1 process the OOM killer "
      "took in it, and init (host pid 7) is not that one (its exit status was not known here)" },
    "give it more memory", .km = K_OWN, .init_pid = 7,
    .signals_unknown = true, .signals_unseen = true },
  /* A kernel that keeps init's status for its pidfd (6.15+; measured on
   * 6.18): the hook has the status but not the runtime's signals, so
   * `runc kill ID KILL` is no kill "from outside". */
  { "hook with init's status: SIGKILL, no OOM kill: from the runtime or outside", Z, Z, Z, Z, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "was killed by SIGKILL from the runtime or outside it (a hook does not see the runtime's "
      "signals) (not an OOM kill" },
    NULL, .signals_unknown = true, .signals_unseen = true },
  { "hook with init's status: one-by-one kill, the kernel log names init", Z, Z, { 1, 1, 0 },
    { 1, 1, 0 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 1,
    0, F, NOBY, { "was OOM-killed: it hit its 64 MiB memory limit" }, "give it more memory",
    .km = K_OWN, .init_pid = 4121, .signals_unknown = true, .signals_unseen = true },
  { "hook with init's status: one-by-one kill, no kernel log: null", Z, Z, { 1, 1, 0 }, { 1, 1, 0 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 1, 0, F, NOBY,
    { "whether by the OOM killer is unknown" }, "give it more memory", .signals_unknown = true,
    .signals_unseen = true },
  { "no status, runtime SIGKILL, no OOM kill", Z, Z, Z, Z, S_BOTH, ST_NONE, 0, KILLED_BY_RT, false,
    NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, RT,
    { "container c1 was stopped by the runtime's SIGKILL, with no OOM kill counted in its cgroup" },
    NULL },
  { "no status, runtime SIGKILL, nested kills only", Z, Z, Z, { 1, 2, 1 }, S_BOTH, ST_NONE, 0,
    KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, F, true, NOSCOPE, 0, 2, F, RT,
    { "stopped by the runtime's SIGKILL, with no OOM kill of its own; the 2 OOM kills counted were "
      "in nested cgroups" },
    NULL, .km = K_NESTED },
  { "no status, runtime SIGKILL after a group OOM kill, the kernel log names init", Z, Z, { 1, 3, 1 },
    { 1, 3, 1 }, S_BOTH, ST_NONE, 0, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true,
    CONT, 3, 0, T, NOBY, { "container c1 was OOM-killed (its exit status was not known here)" },
    "--memory 128M", .km = K_OWN, .init_pid = 4121 },
  { "no status, runtime SIGKILL and a group OOM kill, no kernel log: null", Z, Z, { 1, 3, 1 },
    { 1, 3, 1 }, S_BOTH, ST_NONE, 0, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT,
    3, 0, T, RT,
    { "stopped by the runtime's SIGKILL; processes in it were also OOM-killed as a group (which "
      "skips a task with oom_score_adj -1000), so either may have ended init" },
    "--memory 128M" },
  { "no status, runtime SIGKILL; the group OOM kill skipped init", Z, Z, { 1, 3, 1 }, { 1, 3, 1 },
    S_BOTH, ST_NONE, 0, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, F, true, CONT, 3, 0, T, RT,
    { "container c1 was stopped by the runtime's SIGKILL, not OOM-killed: the kernel log names the 3 "
      "processes the OOM killer took in it, and init (host pid 7) is not one of them" },
    "--memory 128M", .km = K_OWN, .init_pid = 7 },
  { "no status, runtime SIGKILL, counters unavailable", Z, Z, Z, Z, S_NONE, ST_NONE, 0, KILLED_BY_RT,
    false, "cgroup already removed", 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, RT,
    { "stopped by the runtime's SIGKILL; whether it was also OOM-killed is unknown: cgroup already "
      "removed" },
    NULL },
  { "no status, runtime SIGTERM only: not a kill claim", Z, Z, Z, Z, S_BOTH, ST_NONE, 0,
    VERDICT_SIGBIT (SIGTERM), false, NULL, 0, 0, VERDICT_UNKNOWN, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "stopped with no OOM kill counted in its cgroup" }, NULL },
  { "hook: counters unavailable", Z, Z, Z, Z, S_NONE, ST_NONE, 0, 0, false,
    "cgroup already removed", 0, 0, VERDICT_UNKNOWN, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "whether it was OOM-killed is unknown: cgroup already removed" }, NULL },

  /* ---- where the counters alone mislead ---- */
  /* memory_localevents: memory.events is C's own; a parent's OOM that
   * killed processes in C's nested cgroups shows nowhere (measured on 6.1
   * and 6.12: came back Killed/outside/false). */
  { "localevents, no kernel log: a kill -9 is not proof of no OOM kill", Z, Z, Z, Z, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "whether by the OOM killer is unknown: the cgroup2 mount has memory_localevents",
      "the kernel log was not read" },
    NULL, .localevents = true, .wit = WIT (0) },
  { "localevents, the kernel log names a parent's kill", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL, 0,
    false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, ANC, 1, 0, NUL, NOBY,
    { "it hit the memory limit of its parent cgroup /shim",
      "; the kernel killed `python3` (host pid 4121, holding 498 MiB anonymous memory of its own)" },
    "parent cgroup", .km = K_ANC, .localevents = true,
    .wit = WIT (VERDICT_WITNESS_COUNTERS | VERDICT_WITNESS_KMSG), .init_pid = 4121 },
  { "localevents, the kernel log has no kill: no OOM kill", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL, 0,
    false, NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, OUT,
    { "from outside the runtime" }, NULL, .km = K_EMPTY, .localevents = true,
    .wit = WIT (VERDICT_WITNESS_COUNTERS | VERDICT_WITNESS_KMSG) },
  { "localevents, hook, no kernel log", Z, Z, Z, Z, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0,
    VERDICT_UNKNOWN, NUL, false, NOSCOPE, 0, 0, NUL, NOBY, { "memory_localevents" }, NULL,
    .localevents = true },
  /* The own_limit clause only before 5.17. */
  { "own limit, tree kills, no group kill on a kernel that counts them", Z, Z, { 1, 0, 0 },
    { 1, 1, 0 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT,
    0, 1, F, NOBY,
    { "whether by the OOM killer is unknown: its own memory limit ran out and 1 process in nested "
      "cgroups was OOM-killed one by one" },
    NULL },
  { "own limit, tree kills, the kernel log says its own limit killed", Z, Z, { 1, 0, 0 },
    { 1, 1, 0 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT,
    1, 0, F, NOBY, { "it hit its 64 MiB memory limit", "the kernel killed `python3`" },
    "give it more memory", .km = K_OWN, .init_pid = 4121 },
  /* An ancestor's kill plus an OOM event in a nested cgroup. */
  { "tree kills with a nested OOM event, no kernel log: null", Z, Z, Z, { 1, 1, 0 }, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, NOSCOPE, 0, 1, F, NOBY,
    { "the 1 OOM kill counted below it may have been a nested cgroup's or a parent's" }, NULL },
  { "tree kills with a nested OOM event, the kernel log says a parent's", Z, Z, Z, { 1, 1, 0 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, ANC, 1, 0, NUL,
    NOBY, { "it hit the memory limit of its parent cgroup /shim" }, "parent cgroup /shim", .km = K_ANC, .init_pid = 4121 },
  { "tree kills with a nested OOM event, the kernel log says the host's", Z, Z, Z, { 1, 1, 0 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, ANC, 1, 0, NUL,
    NOBY, { "a parent cgroup's or the host's memory ran out" }, "parent cgroup", .km = K_HOST, .init_pid = 4121 },
  { "table 4 without the kernel log: null", Z, Z, Z, { 1, 2, 1 }, S_BOTH, ST_SIG, SIGKILL, 0,
    false, NULL, 0, 0, VERDICT_KILLED, NUL, true, NOSCOPE, 0, 2, F, NOBY,
    { "may have been a nested cgroup's or a parent's" }, NULL },
  { "hook: nested-looking kills without the kernel log: null", Z, Z, Z, { 1, 2, 1 }, S_BOTH,
    ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_UNKNOWN, NUL, true, NOSCOPE, 0, 2, F, NOBY,
    { "container c1 stopped; whether it was OOM-killed is unknown: the 2 OOM kills counted" },
    NULL },
  { "no status, runtime SIGKILL, nested-looking kills, no kernel log", Z, Z, Z, { 1, 2, 1 },
    S_BOTH, ST_NONE, 0, KILLED_BY_RT, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, NOSCOPE, 0, 2,
    F, RT, { "whether it was also OOM-killed is unknown: the 2 OOM kills counted below it" },
    NULL },
  /* An unreadable record of signals is not "nothing sent". */
  { "signals unknown, SIGKILL, no OOM kill: not \"outside\"", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL,
    0, false, NULL, 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "from the runtime or outside it (the record of the runtime's signals is unreadable" }, NULL,
    .signals_unknown = true },
  { "signals unknown, SIGKILL, one-by-one kill: null", Z, Z, { 1, 1, 0 }, { 1, 1, 0 }, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, CONT, 1, 0, F, NOBY,
    { "the record of the runtime's signals is unreadable" }, "give it more memory",
    .signals_unknown = true },
  { "signals unknown, group kill: still OOMKilled", Z, Z, { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 3, 0, T, NOBY,
    { "was OOM-killed" }, "give it more memory", .signals_unknown = true },
  /* memory.oom.group=1 before 5.17; a recreated cgroup. */
  { "hook, 5.x, oom.group=1 and a local kill: the group went", Z, Z, { 1, 2, ABSENT },
    { 1, 2, ABSENT }, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT,
    2, 0, T, NOBY, { "2 processes killed as a group" }, "give it more memory",
    .oom_group = true },
  { "hook, 5.x, oom.group=0 and a local kill: init may have survived", Z, Z, { 1, 2, ABSENT },
    { 1, 2, ABSENT }, S_BOTH, ST_NONE, 0, 0, false, NULL, 0, 0, VERDICT_UNKNOWN, NUL, true, CONT,
    2, 0, NUL, NOBY, { "not as a group" }, "give it more memory" },
  { "the cgroup was recreated under the same path", { 1, 1, 1 }, { 1, 1, 1 }, { 2, 2, 2 },
    { 2, 2, 2 }, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, false,
    NOSCOPE, 0, 0, NUL, NOBY, { "removed and made again under the same path" }, NULL,
    .recreated = true },
  /* The surviving ancestor. */
  { "hook, cgroup gone, the ancestor counted no kill: false", Z, Z, Z, Z, S_NO_FINAL, ST_NONE, 0,
    0, false, "the container's cgroup was removed before the watcher could read its last counters",
    0, 0, VERDICT_UNKNOWN, F, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "container c1 stopped with no OOM kill counted in its parent cgroup, which outlived it" },
    NULL, .anc = A_SAME, .wit = WIT (VERDICT_WITNESS_ANCESTOR) },
  { "SIGKILL, cgroup gone, the ancestor counted no kill: outside", Z, Z, Z, Z, S_NO_FINAL, ST_SIG,
    SIGKILL, 0, false, "cgroup already removed", 0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0,
    NUL, OUT, { "no OOM kill was counted in its parent cgroup" }, NULL, .anc = A_SAME },
  { "hook, cgroup gone, the ancestor counted a kill: null", Z, Z, Z, Z, S_NO_FINAL, ST_NONE, 0, 0,
    false, "cgroup already removed", 0, 0, VERDICT_UNKNOWN, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "cgroup already removed" }, NULL, .anc = A_CHANGED },
  /* Under memory_localevents the parent counts only its own kills. */
  { "hook, cgroup gone, the ancestor counted no kill, memory_localevents: null", Z, Z, Z, Z,
    S_NO_FINAL, ST_NONE, 0, 0, false, "cgroup already removed", 0, 0, VERDICT_UNKNOWN, NUL, false,
    NOSCOPE, 0, 0, NUL, NOBY, { "cgroup already removed" }, NULL, .anc = A_SAME_LOCALEVENTS },
  { "hook, cgroup gone, the ancestor counted no kill, memory_localevents not known: null", Z, Z, Z,
    Z, S_NO_FINAL, ST_NONE, 0, 0, false, "cgroup already removed", 0, 0, VERDICT_UNKNOWN, NUL,
    false, NOSCOPE, 0, 0, NUL, NOBY, { "cgroup already removed" }, NULL,
    .anc = A_SAME_LE_UNKNOWN },
  { "hook, cgroup gone, the ancestor counted a kill, the kernel log none: false", Z, Z, Z, Z,
    S_NO_FINAL, ST_NONE, 0, 0, false, "cgroup already removed", 0, 0, VERDICT_UNKNOWN, F, false,
    NOSCOPE, 0, 0, NUL, NOBY, { "stopped with no OOM kill" }, NULL, .km = K_EMPTY,
    .anc = A_CHANGED, .wit = WIT (VERDICT_WITNESS_KMSG) },
  { "hook, ancestor says none, the kernel log a kill: null, both said", Z, Z, Z, Z, S_NO_FINAL,
    ST_NONE, 0, 0, false, "cgroup already removed", 0, 0, VERDICT_UNKNOWN, NUL, false, NOSCOPE, 0,
    0, NUL, NOBY,
    { "the cgroup's counters of its parent cgroup count no OOM kill below it, but the kernel log "
      "reports 1 OOM kill (`python3`, host pid 4121) by its own limit" },
    NULL, .km = K_OWN, .anc = A_SAME },
  /* The kernel log as the second witness. */
  { "counters lost, the kernel log proves an own-limit kill", Z, Z, Z, Z, S_NO_FINAL, ST_SIG, SIGKILL,
    0, false, "cgroup already removed", 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 1, 0, NUL, NOBY,
    { "it hit its 64 MiB memory limit (1 process killed)",
      "; the kernel killed `python3` (host pid 4121, holding 498 MiB anonymous memory of its own)" },
    "give it more memory", .km = K_OWN, .wit = WIT (VERDICT_WITNESS_KMSG), .init_pid = 4121 },
  { "hook, counters lost, oom.group=1, the kernel log proves a kill", Z, Z, Z, Z, S_NO_FINAL, ST_NONE,
    0, 0, false, "cgroup already removed", 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 1, 0, T, NOBY,
    { "was OOM-killed (its exit status was not known here)" }, "give it more memory",
    .km = K_OWN, .oom_group = true },
  { "counters and the kernel log agree", Z, Z, { 1, 3, 1 }, { 1, 3, 1 }, S_BOTH, ST_SIG, SIGKILL,
    0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 3, 0, T, NOBY,
    { "3 processes killed as a group", "; the kernel killed `python3` (host pid 4121, holding 498 MiB "
                                        "anonymous memory of its own)" },
    "give it more memory", .km = K_OWN, .init_pid = 4121,
    .wit = WIT (VERDICT_WITNESS_COUNTERS | VERDICT_WITNESS_KMSG) },
  { "counters say a kill, the kernel log none: null, both said", Z, Z, { 1, 3, 1 }, { 1, 3, 1 },
    S_BOTH, ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL,
    NOBY,
    { "the cgroup's counters count 3 OOM kills of its own, but the kernel log reports no OOM kill "
      "in it" },
    NULL, .km = K_EMPTY, .wit = WIT (VERDICT_WITNESS_COUNTERS | VERDICT_WITNESS_KMSG) },
  { "counters say none, the kernel log a kill: null", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL, 0, false,
    NULL, 0, 0, VERDICT_KILLED, NUL, false, NOSCOPE, 0, 0, NUL, NOBY,
    { "the cgroup's counters count no OOM kill in its cgroup, but the kernel log reports 1 OOM "
      "kill (`python3`, host pid 4121) by its own limit" },
    NULL, .km = K_OWN },
  { "the kernel log settles own-limit versus nested kills", Z, Z, { 1, 0, 0 }, { 2, 3, 1 }, S_BOTH,
    ST_SIG, SIGKILL, 0, false, NULL, 0, 0, VERDICT_OOM_KILLED, T, true, CONT, 1, 0, F, NOBY,
    { "it hit its 64 MiB memory limit" }, "give it more memory", .km = K_OWN, .init_pid = 4121, .km_short = true },
  { "lost records: the counters decide alone", Z, Z, Z, Z, S_BOTH, ST_SIG, SIGKILL, 0, false, NULL,
    0, 0, VERDICT_KILLED, F, false, NOSCOPE, 0, 0, NUL, OUT, { "from outside the runtime" }, NULL,
    .km = K_LOST, .wit = WIT (VERDICT_WITNESS_COUNTERS) },
  { "no access to the kernel log: the counters decide alone", Z, Z, Z, { 1, 2, 1 }, S_BOTH, ST_SIG,
    SIGKILL, 0, false, NULL, 0, 0, VERDICT_KILLED, NUL, true, NOSCOPE, 0, 2, F, NOBY,
    { "the kernel log could not be read" }, NULL, .km = K_DENIED },
};

/* The parent's memory.events at arming and at the end. */
static void
make_ancestor (struct cg_snapshot *a, struct cg_snapshot *b, enum anc_kind kind)
{
  make_snap (a, (struct cnt) Z, (struct cnt){ 2, 5, 0 }, S_BOTH);
  make_snap (b, (struct cnt) Z, (struct cnt){ 2, kind == A_CHANGED ? 6 : 5, 0 }, S_BOTH);
  if (kind == A_SAME_LE_UNKNOWN)
    return;
  a->have |= CG_SNAP_LOCALEVENTS;
  b->have |= CG_SNAP_LOCALEVENTS;
  a->localevents = b->localevents = kind == A_SAME_LOCALEVENTS;
}

/* What verdict_oom_killed said for the last row compute_row computed. */
static enum verdict_tri rules_alone;

static void
compute_row (const struct row *r, struct verdict *v)
{
  struct cg_snapshot base, fin, oom, abase, afin;
  struct kmsg_evidence km;
  struct verdict_input in = {
    .container_id = "c1",
    .memory_limit_enforced = !r->not_enforced,
    .unavailable_reason = r->unavail,
    .signals_sent = r->sent,
    .signals_unknown = r->signals_unknown,
    .signals_unseen = r->signals_unseen,
    .init_pid = r->init_pid,
    .status_unknown_reason = r->status_why,
  };

  make_snap (&base, r->bl, r->bt, r->snaps);
  make_snap (&fin, r->fl, r->ft, r->snaps);
  make_snap (&oom, r->fl, r->ft, r->snaps);
  for (struct cg_snapshot *s = &base; s; s = s == &base ? &fin : s == &fin ? &oom : NULL)
    {
      s->have |= CG_SNAP_LOCALEVENTS | CG_SNAP_OOM_GROUP | CG_SNAP_ID;
      s->localevents = r->localevents;
      s->oom_group = r->oom_group;
      s->cgroup_id = s != &base && r->recreated ? 42 : 41;
      /* With memory_localevents the tree counters are the local ones. */
      if (r->localevents)
        s->events = s->events_local;
    }
  if (r->km != K_NONE)
    {
      /* The log names every kill the counters count, unless the row
       * says records were missed. */
      make_kmsg_n (&km, r->km, r->km_short ? 1 : r->ft.kill - r->bt.kill - r->km_relisted);
      km.relisted = (uint64_t) r->km_relisted;
      in.kmsg = &km;
#ifndef OLD_RULES
      in.kmsg_cgroup = "/shim/c1";
#endif
    }
  if (r->anc != A_NONE)
    {
      make_ancestor (&abase, &afin, r->anc);
      in.ancestor_baseline = &abase;
      in.ancestor_final = &afin;
    }
  if (r->snaps != S_NO_BASE && r->snaps != S_NONE)
    in.baseline = &base;
  if (r->snaps != S_NONE && r->snaps != S_AT_OOM && r->snaps != S_NO_FINAL)
    in.final = &fin;
  if (r->oom_anon || r->oom_shmem || r->snaps == S_AT_OOM)
    {
      oom.have |= CG_SNAP_STAT;
      oom.stat.have = CG_STAT_ANON | CG_STAT_FILE | CG_STAT_SHMEM | CG_STAT_KERNEL;
      oom.stat.anon = r->oom_anon;
      oom.stat.shmem = r->oom_shmem;
      oom.stat.file = r->oom_shmem + MIB;
      oom.stat.kernel = MIB;
      in.at_oom = &oom;
    }
  switch (r->st)
    {
    case ST_NONE:
      break;
    case ST_EXIT:
      in.have_status = true;
      in.status = (r->st_val & 0xff) << 8; /* W_EXITCODE */
      break;
    case ST_SIG:
      in.have_status = true;
      in.status = r->st_val; /* as waitpid reports a death by signal */
      break;
    }
  verdict_compute (&in, v);
  rules_alone = verdict_oom_killed (&in);
}

static void
test_rows (void)
{
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      const struct row *r = &rows[i];
      struct verdict v;

      compute_row (r, &v);
      is_str (verdict_reason_name (v.reason), verdict_reason_name (r->reason), "%s: reason",
              r->name);
      is_int (v.oom_killed, r->oom_killed, "%s: oom_killed", r->name);
      is_int (rules_alone, v.oom_killed, "%s: the rules alone say the same", r->name);
      ok (r->oom_killed != VERDICT_NULL || v.unknown_reason[0] != '\0',
          "%s: a null oom_killed has a reason", r->name);
      is_int (v.have_oom, r->have_oom, "%s: oom object present", r->name);
      is_int (v.oom.scope, r->scope, "%s: scope", r->name);
      is_int (v.oom.kills, r->kills, "%s: kills", r->name);
      is_int (v.oom.nested_kills, r->nested, "%s: nested_kills", r->name);
      if (r->have_oom)
        is_int (v.oom.group_kill, r->group, "%s: group_kill", r->name);
      is_int (v.killed_by, r->by, "%s: killed_by", r->name);
      is_int (v.memory_limit_enforced, !r->not_enforced, "%s: memory_limit_enforced", r->name);
      for (int m = 0; m < 3 && r->msg[m]; m++)
        has_str (v.message, r->msg[m], "%s: message says \"%s\"", r->name, r->msg[m]);
      if (r->hint)
        has_str (v.hint, r->hint, "%s: hint", r->name);
      else
        is_str (v.hint, "", "%s: no hint", r->name);
#ifndef OLD_RULES
      if (r->wit)
        is_int (v.witnesses, r->wit & 0xff, "%s: witnesses", r->name);
#endif
      if (r->st == ST_NONE)
        ok (!v.have_exit_code && v.signal == 0, "%s: no exit code or signal without a status",
            r->name);
      else if (r->st == ST_EXIT)
        ok (v.have_exit_code && v.exit_code == r->st_val && v.signal == 0, "%s: exit code %d",
            r->name, r->st_val);
      else
        ok (v.have_exit_code && v.exit_code == 128 + r->st_val && v.signal == r->st_val,
            "%s: exit code 128 + signal", r->name);
    }
}

static void
test_sizes (void)
{
  static const struct
  {
    uint64_t bytes;
    const char *want;
  } cases[] = {
    { 0, "0 B" },
    { 1023, "1023 B" },
    { 1024, "1 KiB" },
    { 1536, "1.5 KiB" },
    { 64 * MIB, "64 MiB" },
    { 64 * MIB + 1, "64 MiB" },
    { 1048575, "1 MiB" }, /* 1023.999 KiB rounds up into the next unit */
    { 3 * GIB / 2, "1.5 GiB" },
    { 100000000, "95.4 MiB" },
    { UINT64_MAX, "16 EiB" },
  };
  char buf[32];

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      verdict_format_size (cases[i].bytes, buf, sizeof buf);
      is_str (buf, cases[i].want, "size %llu", (unsigned long long) cases[i].bytes);
    }
}

/* The --memory suggestion: double the limit, whole GiB when exact. */
static void
test_hint_sizes (void)
{
  static const struct
  {
    uint64_t limit;
    const char *want;
  } cases[] = {
    { 64 * MIB, "--memory 128M" },
    { 512 * MIB, "--memory 1G" },
    { 3 * GIB / 2, "--memory 3G" },
    { 100000000, "--memory 191M" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct cg_snapshot base, fin;
      struct verdict v;
      struct verdict_input in = { .container_id = "c", .memory_limit_enforced = true,
                                  .baseline = &base, .final = &fin, .have_status = true,
                                  .status = SIGKILL };

      make_snap (&base, (struct cnt) Z, (struct cnt) Z, S_BOTH);
      make_snap (&fin, (struct cnt){ 1, 1, 1 }, (struct cnt){ 1, 1, 1 }, S_BOTH);
      fin.memory_max = cases[i].limit;
      verdict_compute (&in, &v);
      has_str (v.hint, cases[i].want, "hint for a %llu-byte limit",
               (unsigned long long) cases[i].limit);
    }
}

static void
test_json (void)
{
  static const char *const golden_oom
      = "{\"reason\":\"OOMKilled\",\"exit_code\":137,\"signal\":\"SIGKILL\",\"oom_killed\":true,"
        "\"oom\":{\"scope\":\"container\",\"kills\":3,\"group_kill\":true,\"group_kill_by\":\"kernel\","
        "\"nested_kills\":0,"
        "\"oom_memcg\":null,\"max_events\":0,\"victims\":null},"
        "\"memory_limit\":67108864,\"memory_peak\":67108864,\"memory_limit_enforced\":true,"
        "\"pids_limit\":null,\"pids_max_events\":null,\"killed_by\":null,\"message\":\"container c1 was OOM-killed: it hit its 64 MiB memory "
        "limit (peak 64 MiB, 3 processes killed as a group; the container held 58 MiB anonymous memory)\","
        "\"hint\":\"give it more memory: linux.resources.memory.limit in config.json, or "
        "--memory 128M\",\"witnesses\":[\"counters\"],\"provisional\":false}";
  static const char *const golden_unknown
      = "{\"reason\":\"Killed\",\"exit_code\":137,\"signal\":\"SIGKILL\",\"oom_killed\":null,"
        "\"oom\":null,\"memory_limit\":null,\"memory_peak\":null,\"memory_limit_enforced\":true,"
        "\"pids_limit\":null,\"pids_max_events\":null,\"killed_by\":null,\"message\":\"container c1 was killed by SIGKILL; whether by the OOM "
        "killer is unknown: cgroup already removed\",\"hint\":null,\"witnesses\":[],\"provisional\":false}";
  /* The names the kernel log adds. */
  static const char *const golden_kmsg
      = "{\"reason\":\"OOMKilled\",\"exit_code\":137,\"signal\":\"SIGKILL\",\"oom_killed\":true,"
        "\"oom\":{\"scope\":\"container\",\"kills\":3,\"group_kill\":true,\"group_kill_by\":\"kernel\","
        "\"nested_kills\":0,"
        "\"oom_memcg\":\".\",\"max_events\":0,\"victims\":[{\"pid\":4121,\"command\":\"python3\","
        "\"anon_rss\":522190848,\"file_rss\":1048576,\"shmem_rss\":0,\"cgroup\":\"leaf\"},"
        /* the group's other members: the log has no task_memcg for them */
        "{\"pid\":4122,\"command\":\"sh\",\"anon_rss\":522190848,\"file_rss\":1048576,"
        "\"shmem_rss\":0,\"cgroup\":null},{\"pid\":4123,\"command\":\"sh\",\"anon_rss\":522190848,"
        "\"file_rss\":1048576,\"shmem_rss\":0,\"cgroup\":null}]},"
        "\"memory_limit\":67108864,\"memory_peak\":67108864,\"memory_limit_enforced\":true,"
        "\"pids_limit\":null,\"pids_max_events\":null,\"killed_by\":null,\"message\":\"container c1 was OOM-killed: it hit its 64 MiB memory "
        "limit (peak 64 MiB, 3 processes killed as a group); the kernel killed `python3` (host pid 4121, "
        "holding 498 MiB anonymous memory of its own) and 2 more\",\"hint\":\"give it more memory: linux.resources.memory.limit in "
        "config.json, or --memory 128M\",\"witnesses\":[\"counters\",\"kmsg\"],\"provisional\":false}";
  const struct row *oom_row = NULL, *gone_row = NULL, *kmsg_row = NULL;
  struct verdict v;

  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      if (strncmp (rows[i].name, "table 1:", 8) == 0)
        oom_row = &rows[i];
      if (strcmp (rows[i].name, "SIGKILL, counters unavailable") == 0)
        gone_row = &rows[i];
      if (strcmp (rows[i].name, "counters and the kernel log agree") == 0)
        kmsg_row = &rows[i];
    }
  if (oom_row == NULL || gone_row == NULL || kmsg_row == NULL)
    abort ();

  {
    cleanup_error shim_error_t err = NULL;
    cleanup_free char *json = NULL;
    compute_row (oom_row, &v);
    ok (verdict_to_json (&v, &json, &err) == 0, "JSON: OOMKilled generates");
    is_str (json, golden_oom, "JSON: OOMKilled golden line");
  }
  {
    cleanup_error shim_error_t err = NULL;
    cleanup_free char *json = NULL;
    compute_row (gone_row, &v);
    ok (verdict_to_json (&v, &json, &err) == 0, "JSON: unknown generates");
    is_str (json, golden_unknown, "JSON: counters unavailable golden line");
  }
  {
    cleanup_error shim_error_t err = NULL;
    cleanup_free char *json = NULL;
    compute_row (kmsg_row, &v);
    ok (verdict_to_json (&v, &json, &err) == 0, "JSON: with the kernel log generates");
    is_str (json, golden_kmsg, "JSON: victims, oom_memcg, witnesses golden line");
  }
  /* A verdict read while the watcher may still write its last record. */
  {
    cleanup_error shim_error_t err = NULL;
    cleanup_free char *json = NULL;
    struct verdict_input in = { .container_id = "c1", .have_status = true, .status = 3 << 8,
                                .provisional = true };
    verdict_compute (&in, &v);
    ok (v.provisional, "provisional: kept in the verdict");
    ok (strstr (v.message, "(provisional: the watcher had not written its last record)") != NULL,
        "provisional: said in the message (%s)", v.message);
    ok (verdict_to_json (&v, &json, &err) == 0 && strstr (json, "\"provisional\":true}") != NULL,
        "provisional: JSON \"provisional\": true");
  }
}

/* A container that hit its pids limit says so, whatever the
 * reason (a fork bomb's init exits 1), from pids.events max counted from
 * the baseline; JSON pids_max_events and pids_limit, null when unknown. */
static void
test_pids (void)
{
  static const struct
  {
    const char *name;
    unsigned have; /* CG_SNAP_PIDS_* bits of both snapshots */
    uint64_t base, fin, max;
    bool base_snap;
    const char *said; /* NULL: nothing about pids */
    const char *json;
  } prow[] = {
    { "fork bomb: exited 1 at its pids limit", CG_SNAP_PIDS_EVENTS | CG_SNAP_PIDS_MAX, 2, 7, 10, true,
      "container c1 exited with code 1; it hit its pids limit of 10 (5 forks refused)",
      "\"pids_limit\":10,\"pids_max_events\":5," },
    { "one fork refused, the limit unknown", CG_SNAP_PIDS_EVENTS, 0, 1, 0, true,
      "container c1 exited with code 1; it hit its pids limit (1 fork refused)",
      "\"pids_limit\":null,\"pids_max_events\":1," },
    { "no fork refused: nothing said", CG_SNAP_PIDS_EVENTS | CG_SNAP_PIDS_MAX, 3, 3, 10, true, NULL,
      "\"pids_limit\":10,\"pids_max_events\":0," },
    { "no pids controller: null", 0, 0, 0, 0, true, NULL, "\"pids_limit\":null,\"pids_max_events\":null," },
    { "no baseline: the count is unknown", CG_SNAP_PIDS_EVENTS, 0, 4, 0, false, NULL,
      "\"pids_limit\":null,\"pids_max_events\":null," },
  };

  for (size_t i = 0; i < sizeof prow / sizeof prow[0]; i++)
    {
      cleanup_error shim_error_t err = NULL;
      cleanup_free char *json = NULL;
      struct cg_snapshot base, fin;
      struct verdict v;
      struct verdict_input in = { .container_id = "c1", .memory_limit_enforced = true, .have_status = true,
                                  .status = 1 << 8 };

      make_snap (&base, (struct cnt) Z, (struct cnt) Z, S_BOTH);
      make_snap (&fin, (struct cnt) Z, (struct cnt) Z, S_BOTH);
      base.have |= prow[i].have;
      fin.have |= prow[i].have;
      base.pids_max_events = prow[i].base;
      fin.pids_max_events = prow[i].fin;
      base.pids_max = fin.pids_max = prow[i].max;
      in.baseline = prow[i].base_snap ? &base : NULL;
      in.final = &fin;
      verdict_compute (&in, &v);
      if (prow[i].said)
        is_str (v.message, prow[i].said, "pids: %s: message", prow[i].name);
      else
        ok (strstr (v.message, "pids") == NULL, "pids: %s: no word of it (%s)", prow[i].name, v.message);
      is_str (verdict_reason_name (v.reason), "Exited", "pids: %s: reason", prow[i].name);
      ok (verdict_to_json (&v, &json, &err) == 0 && strstr (json, prow[i].json) != NULL, "pids: %s: JSON has %s",
          prow[i].name, prow[i].json);
    }
}

int
main (void)
{
  test_pids ();
  test_rows ();
  test_sizes ();
  test_hint_sizes ();
  test_json ();
  return done_testing ();
}
