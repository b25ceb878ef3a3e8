/* SPDX-License-Identifier: Apache-2.0 */
/* The death verdict (docs/DESIGN.md "The verdict"): a pure function from cgroup
 * snapshots, init's wait status and the runtime's record of the signals it
 * sent, to what happened, plus its JSON and one human sentence.  Both `shim`
 * and `shim-oom-hook` call this; it is the only copy of the rules.
 * rules.c decides, witness.c weighs the kernel log with the counters,
 * text.c words it (message, hint, sizes), json.c writes it.
 *
 * Counters are deltas final - baseline of C's memory.events.local ("local")
 * and memory.events ("tree").  A kill belongs to the container when
 *   - local oom_group_kill or oom_kill rose, or
 *   - local oom rose, tree oom rose by exactly as much (no OOM event of a
 *     nested cgroup) and tree oom_kill rose: C's own limit, victims in nested
 *     leaves (this is the measured "nested leaves, oom.group=1" row, and it
 *     also covers kernels before 5.17 that lack oom_group_kill), or
 *   - tree oom_kill rose with no tree oom at all: an ancestor's or the host's
 *     OOM (scope "ancestor").
 * scope is "container" when local oom rose, else "ancestor".  Tree kills with
 * OOM events only in nested cgroups are nested_kills, never the container's.
 *
 * Decisions where docs/DESIGN.md is silent:
 *   - No kill is taken to have killed init unless proven: the kernel log,
 *     read whole, names every task the OOM killer took (init's pid, in the
 *     initial pid namespace, among them or not); without it, C's own
 *     counted group kill (local oom_group_kill, or memory.oom.group=1
 *     before 5.17) still says init went, though the kernel skips a task
 *     with oom_score_adj -1000.  An ancestor's kill, or kills one by one,
 *     without the log: oom_killed null (init may have been one of them or
 *     killed after them).  docs/DESIGN.md, "The rules", has the kernel's
 *     facts.
 *   - Without a wait status (the hook): init's proven OOM kill is OOMKilled,
 *     the message says the exit status was not known, exit_code and signal
 *     are null.  A kill that belongs to the container, init not proven
 *     among its victims: Unknown, oom_killed null (false when the log
 *     clears init).  No kill, or nested kills only: Unknown with oom_killed
 *     false.
 *   - Without a wait status, after `shim kill` sent SIGKILL (create/start:
 *     the runtime is not init's parent): Killed, killed_by runtime, unless
 *     the kernel log proves the OOM kill took init (then OOMKilled);
 *     oom_killed false when the counters show no OOM kill of its own, null
 *     when they are unknown or show one-by-one kills.
 *   - init died of SIGKILL, the container's kill was not a group kill, and the
 *     runtime had sent SIGKILL itself: Killed, killed_by runtime, oom_killed
 *     null, since either could have killed init (this is the case docs/DESIGN.md's
 *     promise is about; the literal rule would say OOMKilled).
 *   - C's own limit ran out while nested cgroups also had OOM events and only
 *     the tree counted kills: which kills were whose is unknown; with init
 *     dead of SIGKILL that is Killed with oom_killed null.
 *   - killed_by is set for Killed (runtime, or outside only when the counters
 *     prove no OOM kill) and for Signaled when the runtime sent that signal;
 *     OOMKilled has killed_by null (the kernel killed it).
 *   - No baseline: counters are taken from 0, which is only trusted while they
 *     are all still 0 (counters only rise); otherwise oom_killed is null.
 *   - The reason oom_killed is null goes into message (and unknown_reason);
 *     the JSON has docs/DESIGN.md's fields plus the names below.
 *   - oom is null when the counters are unknown or nothing was OOM-killed in
 *     C's tree; oom.scope is null for nested kills only; oom.group_kill is
 *     null when the kernel does not count group kills, and for ancestor kills
 *     (C's counters cannot tell whether the ancestor killed as a group).
 *
 * Decisions of the evidence pipeline (each has a unit row in
 * tests/unit/test_verdict.c that failed on the rules before it):
 *   - memory_localevents (a snapshot's `localevents`): memory.events is then
 *     C's own, so kills in nested cgroups show nowhere (measured on 6.1 and
 *     6.12: a parent's OOM that killed processes in C's nested cgroups came
 *     back Killed/outside/false).  A local oom_kill or oom_group_kill still
 *     decides; anything else is unknown: the kernel log decides, else
 *     oom_killed null, never false and never killed_by "outside".
 *   - `local oom and tree kills, no nested OOM event` is C's own kill only on
 *     kernels without oom_group_kill (before 5.17 it is the only sign of the
 *     "nested leaves, oom.group=1" row).  Where the kernel counts group
 *     kills, local {oom 1, oom_kill 0, oom_group_kill 0} with tree kills were
 *     one-by-one kills of nested leaves' processes (or a kill -9 after an OOM
 *     event that killed nothing): with init dead of SIGKILL, oom_killed null.
 *   - Tree kills with OOM events only below C ("nested kills") may also be
 *     an ancestor's kill while a nested cgroup had an OOM event: the
 *     counters cannot tell.  Exited and Signaled stay oom_killed false (init
 *     did not die of it); for a SIGKILL death, or without a wait status,
 *     the kernel log decides, else oom_killed null (measured table row 4
 *     keeps its answer when the kernel log confirms the nested kill).
 *   - memory.oom.group=1 in a snapshot (the hook sets it), on a kernel
 *     without oom_group_kill: a kill of C's own limit took the whole group
 *     (group_kill true, OOMKilled without a wait status).
 *   - A cgroup_id that differs between baseline and final: the cgroup was
 *     removed and made again under the same path; its counters are unknown.
 *   - C's final counters missing (runc removes the cgroup right after
 *     reaping): the surviving ancestor's hierarchical oom_kill unchanged from
 *     arming to the end proves nothing below it was OOM-killed: oom_killed
 *     false, witness "ancestor".  Changed: the kernel log decides, else null.
 *   - signals_unknown (the record of signals unreadable, or, for the hook,
 *     not seen at all): never "nothing sent": killed_by is never
 *     "outside", and a one-by-one OOM kill with a SIGKILL death is null, as
 *     when the runtime sent SIGKILL.  Measured on 6.18, where the hook has
 *     init's status from its pidfd: `runc kill ID KILL` was called a kill
 *     "from outside the runtime" before the hook said it cannot know.
 *   - The kernel log naming init's pid as a victim of C's own or an
 *     ancestor's limit decides that init died of the OOM kill, group kill
 *     or not (a pid is not reused while its cgroup still holds the kill's
 *     record; the watcher reads the log from arming on).
 *   - The kernel log (in->kmsg, kmsg.h) is a witness when it was read from
 *     arming (KMSG_READ) with nothing lost, no unattributed victim and no
 *     truncation, and the container's kernel path (kmsg_cgroup) is known.
 *     Its kills with task_memcg within C are sorted by oom_memcg: C itself
 *     (its own limit), within C (a nested limit), above C or none (an
 *     ancestor's or the host's).  Counters known and the log agreeing:
 *     decided, both witnesses.  Counters unknown (lost, recreated,
 *     localevents): the log decides alone, a kill or no kill, C's
 *     oom.group=1 making an own-limit kill a group kill.  Counters that left
 *     the owner open (nested-or-ancestor, own-limit-or-nested): the log
 *     names it.  Counters and log contradicting each other (a kill in one
 *     and none in the other, a kill by C's limit without an OOM event of
 *     C's): oom_killed null with both accounts in the message.  Without a
 *     usable log the counters decide alone and the message says why the log
 *     did not help where that matters.
 *   - cgroup v1 counters (a snapshot marked CG_SNAP_V1: a hybrid or v1
 *     host, read from the container's v1 memory cgroup).  They are C's own
 *     only: on v1 memcg_memory_event stops at the first cgroup, so
 *     memory.oom_control's oom_kill counts kills of tasks in C itself,
 *     whichever limit (C's, an ancestor's, the host's) ran out; there is no
 *     OOM event count, no group kill and no hierarchical count.
 *     memory.failcnt says neither whose limit a kill was for nor that C's
 *     was never hit: it rises when reclaim at C's limit succeeds (page
 *     cache), and it stayed 0 for memhog OOM-killed by C's limit with
 *     memory.memsw.limit_in_bytes equal to the limit, as shim sets it
 *     without swap (measured on 6.18); it only gives max_events, null
 *     unless it rose.  The rules:
 *       oom_kill rose: an OOM kill of a task in C (class "belongs"), one by
 *       one; the scope is null unless the kernel log names whose limit ran
 *       out.  Whether init was a victim: only the kernel log names it
 *       (init's pid known); without it, init dead of SIGKILL is Killed,
 *       oom_killed null.
 *       Without a wait status: Unknown, oom_killed null (init may have
 *       survived a one-by-one kill), even for an ancestor's kill (no group
 *       kill on v1).  The kernel log seeing no kill: they disagree, null.
 *       oom_kill unchanged: no task of C's was OOM-killed.  Tasks of nested
 *       v1 cgroups would not be counted, but a container does not get to
 *       make one: the config mounts /sys/fs/cgroup read-only (the examples,
 *       runc's spec) and shim delegates no v1 cgroup, so this is "no OOM
 *       kill": init dead of SIGKILL from outside is Killed, killed_by
 *       outside, oom_killed false.  A config that gives the container a
 *       writable v1 hierarchy could: when C's memory directory has
 *       subdirectories at a read (cgroup_v1.nested in the snapshot), the
 *       counters are unknown (VERDICT_WHY_V1_NESTED): the kernel log
 *       decides, else oom_killed null.  (A nested cgroup made and removed
 *       between two reads is not seen: the limit of this rule.)
 *     memory.oom.group emulated (in->oom_group_emulated: after the first
 *     OOM kill counted in C the runtime's monitor killed the rest,
 *     evidence/monitor.h): an OOM kill of C's is then a group kill, as the
 *     kernel's on v2: with init dead of SIGKILL, the runtime's SIGKILL or
 *     not, or without a wait status, OOMKilled.  oom.group_kill stays the
 *     kernel's counter (null on v1); oom.group_kill_by says "runtime" (and
 *     "kernel" wherever group_kill is true), and the message "the runtime
 *     then killed the 2 processes left in it, emulating memory.oom.group
 *     on cgroup v1" only when the monitor found some alive before its kill
 *     (in->oom_group_left: init alone OOM-killed leaves none).
 *   - Names (JSON, added to docs/DESIGN.md's fields): oom.oom_memcg (whose
 *     limit ran out: "." C, "a/b" nested, "/..." outside C, null host-wide
 *     or unknown), oom.max_events (delta of memory.events.local `max`: how
 *     often C's limit was reached), oom.victims (each kill in C's tree from
 *     the log: pid, command, anon_rss/file_rss/shmem_rss in bytes, cgroup
 *     as oom_memcg; null without the log), and "witnesses" (["counters",
 *     "ancestor", "kmsg"]: the evidence the decision rests on; [] when none
 *     was usable).  The message of an OOM kill names the first victim: "the
 *     kernel killed `python3` (host pid 4121, holding 498 MiB anonymous
 *     memory of its own)".
 *
 * Decisions of the sentence: every pid said is the host's and
 * says so; memory.stat's figure is "the container held ..." and the
 * victim's rss "of its own"; pids.events max (delta from the baseline,
 * JSON pids_max_events, with pids_limit) is said whatever the reason. */
#ifndef SHIM_VERDICT_H
#define SHIM_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_gen.h>

#include "cgroup/cgroup_files.h"
#include "common/error.h"
#include "verdict/kmsg.h"

enum verdict_reason
{
  VERDICT_UNKNOWN,
  VERDICT_OOM_KILLED,
  VERDICT_KILLED,
  VERDICT_SIGNALED,
  VERDICT_EXITED,
};

/* JSON true / false / null. */
enum verdict_tri
{
  VERDICT_NULL = -1,
  VERDICT_FALSE = 0,
  VERDICT_TRUE = 1,
};

enum verdict_scope
{
  VERDICT_SCOPE_NONE, /* null: nested kills only */
  VERDICT_SCOPE_CONTAINER,
  VERDICT_SCOPE_ANCESTOR,
};

/* Who killed the container's group after an OOM kill (JSON
 * oom.group_kill_by): the kernel (memory.oom.group, oom.group_kill true),
 * or the runtime emulating it on cgroup v1. */
enum verdict_group_kill_by
{
  VERDICT_GROUP_BY_NONE, /* null */
  VERDICT_GROUP_BY_KERNEL,
  VERDICT_GROUP_BY_RUNTIME,
};

enum verdict_killed_by
{
  VERDICT_BY_NONE, /* null */
  VERDICT_BY_RUNTIME,
  VERDICT_BY_OUTSIDE,
};

/* Bit of signal sig (1..64) in verdict_input.signals_sent. */
#define VERDICT_SIGBIT(sig) (1ULL << ((sig) - 1))

struct verdict_input
{
  const char *container_id;
  /* NULL when not available.  baseline: taken at create (the cgroup may
   * pre-exist with non-zero counters).  final: the latest one persisted or
   * read.  at_oom: taken when the OOM event was seen; its memory.stat tells
   * what filled memory, and its counters stand in for a missing final. */
  const struct cg_snapshot *baseline;
  const struct cg_snapshot *final;
  const struct cg_snapshot *at_oom;
  /* Why snapshots are missing ("cgroup already removed", "no memory
   * controller"); used in the message when the counters are unknown. */
  const char *unavailable_reason;
  bool memory_limit_enforced;
  /* init's status as from waitpid(); the hook never has one. */
  bool have_status;
  int status;
  /* Without it: why, as a clause ("the engine reaped init before ...");
   * NULL: not said. */
  const char *status_unknown_reason;
  /* VERDICT_SIGBIT(sig) for every signal `shim kill` sent the container. */
  uint64_t signals_sent;
  /* The record of signals could not be read: signals_sent is not
   * "nothing sent" but unknown. */
  bool signals_unknown;
  /* ... because there is none to read: an OCI hook does not see the
   * signals runc or crun sends (`runc kill`). */
  bool signals_unseen;
  /* The nearest ancestor of the container's cgroup that outlives it: its
   * memory.events at arming and at the end (NULL: not read).  An unchanged
   * hierarchical oom_kill proves nothing below it was OOM-killed, when the
   * container's own cgroup was removed before its last read. */
  const struct cg_snapshot *ancestor_baseline;
  const struct cg_snapshot *ancestor_final;
  /* The kernel log's OOM records about the container (kmsg.h), NULL when
   * no reader was armed. */
  const struct kmsg_evidence *kmsg;
  /* ... read only up to a moment before the container's end (a watcher's
   * record while it runs): a kill the counters count may still be on its
   * way to the log, so the log is no witness, for or against. */
  bool kmsg_partial;
  /* init's pid as the kernel log prints it (the initial pid namespace), 0
   * when unknown: a kernel-log victim with this pid is init itself. */
  int64_t init_pid;
  /* The container's cgroup as the kernel names it in those records (the
   * kmsg reader's cgroup: from the root of the cgroup2 hierarchy), NULL
   * when not known: the records are then not used. */
  const char *kmsg_cgroup;
  /* cgroup v1: after an OOM kill in the container, the runtime killed
   * the rest of it, emulating memory.oom.group (evidence/monitor.h). */
  bool oom_group_emulated;
  /* ... and how many of its tasks the runtime found alive and killed then
   * (0: the OOM kill had left nothing, or an older record). */
  unsigned oom_group_left;
  /* The evidence may still change: the watcher had not written its last
   * record (init's status, the end's counters) when this was read. */
  bool provisional;
  /* final was not read after the cgroup emptied (it was removed first):
   * the kernel counts a group kill after its first victim's kill, so a
   * group kill missing from it may still have happened. */
  bool final_open;
};

/* Which witnesses a verdict used (verdict.witnesses): C's own counters, the
 * surviving ancestor's, the kernel log. */
#define VERDICT_WITNESS_COUNTERS (1u << 0)
#define VERDICT_WITNESS_ANCESTOR (1u << 1)
#define VERDICT_WITNESS_KMSG (1u << 2)

/* A process the kernel OOM-killed, from its log. */
struct verdict_victim
{
  int64_t pid; /* in the initial pid namespace */
  char comm[KMSG_COMM_MAX * 4]; /* escaped as the kernel log escapes it */
  bool have_rss; /* the "Killed process" record was read */
  uint64_t anon_rss, file_rss, shmem_rss; /* bytes */
  /* Where it lived: relative to the container ("." the container itself,
   * "a/b" nested), absolute ("/...") when outside it; "" unknown (a member
   * of a memory.oom.group kill).  Escaped. */
  char cgroup[KMSG_PATH_MAX];
};

struct verdict
{
  enum verdict_reason reason;
  bool have_exit_code;
  int exit_code;
  int signal; /* 0: null */
  enum verdict_tri oom_killed;
  char unknown_reason[384]; /* why oom_killed is null; "" otherwise */
  bool have_oom;            /* false: "oom": null */
  struct
  {
    enum verdict_scope scope;
    uint64_t kills; /* the container's: local, or the tree's when they were C's */
    enum verdict_tri group_kill;
    enum verdict_group_kill_by group_kill_by;
    uint64_t nested_kills; /* in nested cgroups, by their own limits */
    /* cgroup v1 without the kernel log: C's oom_kill counts only its own
     * tasks, so kills in nested cgroups are not known (null, not 0). */
    bool nested_kills_unknown;
    /* Added by the kernel-log witness (JSON oom.oom_memcg, max_events,
     * victims): the cgroup whose limit ran out, as victim.cgroup ("": null,
     * e.g. a host-wide OOM); how often C's own limit was reached
     * (memory.events.local max, delta); the victims of the container's
     * kills (n_victims 0: an empty list, or null when the log was not
     * read). */
    char oom_memcg[KMSG_PATH_MAX];
    bool have_max_events;
    uint64_t max_events;
    bool have_victims;
    size_t n_victims;
    struct verdict_victim victims[KMSG_MAX_KILLS];
  } oom;
  bool have_memory_limit; /* false when unlimited or unknown */
  uint64_t memory_limit;
  bool have_memory_peak;
  uint64_t memory_peak;
  bool memory_limit_enforced;
  /* pids.events `max` (delta from the baseline): how often a fork failed at
   * the pids limit, whatever the reason of the death; null (have_ false)
   * without the pids controller or a baseline.  pids_limit: pids.max, null
   * when unlimited or unknown. */
  bool have_pids_max_events;
  uint64_t pids_max_events;
  bool have_pids_limit;
  uint64_t pids_limit;
  enum verdict_killed_by killed_by;
  char message[768];
  char hint[256]; /* "": null */
  /* VERDICT_WITNESS_* bits of the evidence used: JSON
   * "witnesses": ["counters", "ancestor", "kmsg"]. */
  unsigned witnesses;
  /* verdict_input.provisional: JSON "provisional", said in the message. */
  bool provisional;
};

void verdict_compute (const struct verdict_input *in, struct verdict *out);
/* The rules' oom_killed alone, without the text: verdict_compute's
 * oom_killed for the same input, at a fraction of the work (podman's
 * marker is decided between the kernel's SIGKILL and conmon's report of
 * the exit). */
enum verdict_tri verdict_oom_killed (const struct verdict_input *in);

/* One JSON line with docs/DESIGN.md's field names; *out is malloc'd.
 * verdict_gen writes the same object as the next value of g (the state file,
 * annotations). */
int verdict_to_json (const struct verdict *v, char **out, shim_error_t *err);
int verdict_gen (yajl_gen g, const struct verdict *v, shim_error_t *err);
/* The same object left open, for a caller that adds fields of its own
 * (`run --json`'s warnings and error) and closes it. */
int verdict_gen_fields (yajl_gen g, const struct verdict *v, shim_error_t *err);

/* "OOMKilled", "Killed", ... */
const char *verdict_reason_name (enum verdict_reason r);

/* bytes -> "512 B", "64 MiB", "1.5 GiB": one decimal at most, dropped when
 * it is 0. */
void verdict_format_size (uint64_t bytes, char *buf, size_t len);

#endif
