/* SPDX-License-Identifier: Apache-2.0 */
/* The verdict from cgroup v1 counters (CG_SNAP_V1: the container's own
 * oom_kill and failcnt, nothing hierarchical), with and without the kernel
 * log; the v1 mark in the snapshot JSON; memory.oom.group emulated by
 * the runtime (oom.group_kill_by "runtime"). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "tap.h"
#include "evidence/watcher.h"
#include "verdict_fixture.h"

/* A v1 snapshot as cgroup_v1_snapshot_read makes it: oom_kill, failcnt. */
static void
v1_snap (struct cg_snapshot *s, uint64_t oom_kill, uint64_t failcnt, bool nested)
{
  memset (s, 0, sizeof *s);
  s->have = CG_SNAP_MAX | CG_SNAP_PEAK | CG_SNAP_STAT | CG_SNAP_ID | CG_SNAP_EVENTS_LOCAL | CG_SNAP_V1;
  s->memory_max = 64 * MIB;
  s->memory_peak = 64 * MIB;
  s->stat.have = CG_STAT_ANON;
  s->stat.anon = 60 * MIB;
  s->cgroup_id = 42;
  s->events_local.have = CG_EV_OOM_KILL | CG_EV_MAX;
  s->events_local.oom_kill = oom_kill;
  s->events_local.max = failcnt;
  s->v1_nested = nested;
}

/* The kernel log: one kill of memhog in the container itself (its v1
 * memory path /shim/c1), for OOM_MEMCG's limit ("": host-wide). */
static void
v1_kmsg (struct kmsg_evidence *k, const char *oom_memcg)
{
  make_kmsg (k, K_EMPTY);
  if (oom_memcg == NULL)
    return;
  k->n = 1;
  make_kill (&k->kills[0], oom_memcg);
  snprintf (k->kills[0].task_memcg, sizeof k->kills[0].task_memcg, "%s", "/shim/c1");
  snprintf (k->kills[0].comm, sizeof k->kills[0].comm, "%s", "memhog");
}

struct v1row
{
  const char *name;
  uint64_t kill, failcnt; /* final; the baseline is 0 0 */
  bool nested;
  int status;        /* -1: none (the watcher) */
  uint64_t sent;     /* signals the runtime sent */
  const char *km;    /* NULL: no kernel log; "-": read, no kill; else oom_memcg */
  /* expected */
  enum verdict_reason reason;
  enum verdict_tri oom_killed;
  enum verdict_scope scope;
  enum verdict_killed_by by;
  unsigned wit;
  const char *msg;
  int init; /* init's pid: 0 unknown; the log's victim is 4121 */
};

#define SIGKILLED SIGKILL
#define EXIT(n) ((n) << 8)
#define BY_RT VERDICT_SIGBIT (SIGKILL)
#define CNT VERDICT_WITNESS_COUNTERS
#define KM VERDICT_WITNESS_KMSG

/* Rows that do not name init's pid leave it out (zero). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct v1row rows[] = {
  /* Without the log a kill and init's SIGKILL do not say that init was
   * the victim: an outside kill -9 after a child's OOM kill reads the same. */
  { "memhog, own limit, failcnt still 0 (memsw limit, measured on 6.18), no log", 1, 0, false,
    SIGKILLED, 0, NULL, VERDICT_KILLED, VERDICT_NULL, VERDICT_SCOPE_NONE, VERDICT_BY_NONE, CNT,
    "1 process in it was OOM-killed one by one, not as a group, and init may have been one of them "
    "or killed after them; only the kernel log names the victims, and the kernel log was not read" },
  /* failcnt rises too when reclaim at the limit succeeds: a later kill by
   * a parent's limit reads the same. */
  { "oom_kill and failcnt rose, no log: whose limit and whether init went are unknown", 1, 36,
    false, SIGKILLED, 0, NULL, VERDICT_KILLED, VERDICT_NULL, VERDICT_SCOPE_NONE, VERDICT_BY_NONE, CNT,
    "only the kernel log names the victims" },
  { "oom_kill rose, the log names init for its own limit", 1, 0, false, SIGKILLED, 0, "/shim/c1",
    VERDICT_OOM_KILLED, VERDICT_TRUE, VERDICT_SCOPE_CONTAINER, VERDICT_BY_NONE, CNT | KM,
    "the kernel killed `memhog`", .init = 4121 },
  { "oom_kill rose, the log names init for a parent's limit", 1, 5, false, SIGKILLED, 0, "/shim",
    VERDICT_OOM_KILLED, VERDICT_TRUE, VERDICT_SCOPE_ANCESTOR, VERDICT_BY_NONE, CNT | KM,
    "it hit the memory limit of its parent cgroup /shim", .init = 4121 },
  { "oom_kill rose, the log names another process: init was killed from outside", 1, 0, false,
    SIGKILLED, 0, "/shim/c1", VERDICT_KILLED, VERDICT_FALSE, VERDICT_SCOPE_CONTAINER,
    VERDICT_BY_OUTSIDE, CNT | KM,
    "container c1 was killed by SIGKILL from outside the runtime (not an OOM kill: the kernel log "
    "names the 1 process the OOM killer took in it, and init (host pid 7) is not that one)", .init = 7 },
  { "oom_kill rose, the log names another process, shim kill: the runtime's", 1, 0, false,
    SIGKILLED, BY_RT, "/shim/c1", VERDICT_KILLED, VERDICT_FALSE, VERDICT_SCOPE_CONTAINER,
    VERDICT_BY_RUNTIME, CNT | KM, "sent by the runtime (not an OOM kill: the kernel log names", .init = 7 },
  { "oom_kill rose, the log names init but not init's pid: unknown", 1, 0, false, SIGKILLED, 0,
    "/shim/c1", VERDICT_KILLED, VERDICT_NULL, VERDICT_SCOPE_CONTAINER, VERDICT_BY_NONE, CNT | KM,
    "init's pid was not known" },
  { "oom_kill rose, the log read and shows no kill: they disagree", 1, 0, false, SIGKILLED, 0, "-",
    VERDICT_KILLED, VERDICT_NULL, VERDICT_SCOPE_NONE, VERDICT_BY_NONE, 0, "unknown" },
  { "kill -9 from outside", 0, 0, false, SIGKILLED, 0, NULL, VERDICT_KILLED, VERDICT_FALSE,
    VERDICT_SCOPE_NONE, VERDICT_BY_OUTSIDE, CNT, "from outside the runtime (not an OOM kill" },
  { "kill -9 from outside, nested v1 cgroups: their kills are not counted", 0, 0, true, SIGKILLED,
    0, NULL, VERDICT_KILLED, VERDICT_NULL, VERDICT_SCOPE_NONE, VERDICT_BY_NONE, 0,
    "nested cgroups" },
  { "kill -9 from outside, nested v1 cgroups, the log shows no kill", 0, 0, true, SIGKILLED, 0, "-",
    VERDICT_KILLED, VERDICT_FALSE, VERDICT_SCOPE_NONE, VERDICT_BY_OUTSIDE, KM, "not an OOM kill" },
  { "exit 137 by itself", 0, 0, false, EXIT (137), 0, NULL, VERDICT_EXITED, VERDICT_FALSE,
    VERDICT_SCOPE_NONE, VERDICT_BY_NONE, CNT, "exited with code 137" },
  { "a child OOM-killed, init exits 0", 1, 3, false, EXIT (0), 0, NULL, VERDICT_EXITED,
    VERDICT_FALSE, VERDICT_SCOPE_NONE, VERDICT_BY_NONE, CNT, "while init survived" },
  { "shim kill and an OOM kill: either", 1, 3, false, SIGKILLED, BY_RT, NULL, VERDICT_KILLED,
    VERDICT_NULL, VERDICT_SCOPE_NONE, VERDICT_BY_RUNTIME, CNT, "unknown" },
  { "shim kill, no OOM kill", 0, 0, false, SIGKILLED, BY_RT, NULL, VERDICT_KILLED, VERDICT_FALSE,
    VERDICT_SCOPE_NONE, VERDICT_BY_RUNTIME, CNT, "sent by the runtime" },
  { "no status (watcher), an OOM kill: no group kill on v1, init may have survived", 1, 3, false,
    -1, 0, NULL, VERDICT_UNKNOWN, VERDICT_NULL, VERDICT_SCOPE_NONE, VERDICT_BY_NONE, CNT,
    NULL },
  { "no status (watcher), the log names a parent's limit: still one by one on v1", 1, 0, false,
    -1, 0, "/shim", VERDICT_UNKNOWN, VERDICT_NULL, VERDICT_SCOPE_ANCESTOR, VERDICT_BY_NONE,
    CNT | KM, NULL },
  { "no status, shim kill, no OOM kill", 0, 0, false, -1, BY_RT, NULL, VERDICT_KILLED,
    VERDICT_FALSE, VERDICT_SCOPE_NONE, VERDICT_BY_RUNTIME, CNT, NULL },
  { "no status, nothing", 0, 0, false, -1, 0, NULL, VERDICT_UNKNOWN, VERDICT_FALSE,
    VERDICT_SCOPE_NONE, VERDICT_BY_NONE, CNT, NULL },
};

static void
test_rows (void)
{
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      const struct v1row *r = &rows[i];
      struct cg_snapshot base, fin;
      struct kmsg_evidence km;
      struct verdict v;
      struct verdict_input in = { .container_id = "c1", .memory_limit_enforced = true,
                                  .baseline = &base, .final = &fin,
                                  .have_status = r->status >= 0, .status = r->status,
                                  .signals_sent = r->sent, .init_pid = r->init };

      v1_snap (&base, 0, 0, false);
      v1_snap (&fin, r->kill, r->failcnt, r->nested);
      if (r->km)
        {
          v1_kmsg (&km, strcmp (r->km, "-") == 0 ? NULL : r->km);
          in.kmsg = &km;
          in.kmsg_cgroup = "/shim/c1";
        }
      verdict_compute (&in, &v);
      is_str (verdict_reason_name (v.reason), verdict_reason_name (r->reason), "%s: reason", r->name);
      is_int (v.oom_killed, r->oom_killed, "%s: oom_killed", r->name);
      if (r->oom_killed != VERDICT_NULL || r->kill > 0)
        is_int (v.oom.scope, r->scope, "%s: scope", r->name);
      is_int (v.killed_by, r->by, "%s: killed_by", r->name);
      if (r->wit)
        is_int (v.witnesses, r->wit, "%s: witnesses", r->name);
      if (r->kill > 0 && v.have_oom)
        is_int (v.oom.group_kill, VERDICT_NULL, "%s: group_kill null (no group kill on v1)", r->name);
      if (r->msg)
        has_str (v.message, r->msg, "%s: message", r->name);
      if (r->oom_killed == VERDICT_NULL && r->reason != VERDICT_UNKNOWN)
        ok (v.unknown_reason[0] != '\0', "%s: unknown_reason says why", r->name);
    }
}

/* failcnt 0 is no evidence that the limit was never reached (measured):
 * max_events is null, not 0. */
static void
test_max_events (void)
{
  struct cg_snapshot base, fin;
  struct verdict v;
  struct verdict_input in = { .container_id = "c1", .memory_limit_enforced = true,
                              .baseline = &base, .final = &fin, .have_status = true,
                              .status = SIGKILL };

  v1_snap (&base, 0, 0, false);
  v1_snap (&fin, 1, 0, false);
  verdict_compute (&in, &v);
  ok (!v.oom.have_max_events, "v1 failcnt unchanged: max_events null");
  v1_snap (&fin, 1, 7, false);
  verdict_compute (&in, &v);
  ok (v.oom.have_max_events && v.oom.max_events == 7, "v1 failcnt rose by 7: max_events 7");
}

/* The v1 mark survives the JSON (the watcher's record, the state file). */
static void
test_json (void)
{
  struct cg_snapshot s, back;
  char *json = NULL;
  shim_error_t err = NULL;

  v1_snap (&s, 2, 3, true);
  ok (cg_snapshot_to_json (&s, &json, &err) == 0, "v1 snapshot to JSON");
  has_str (json, "\"cgroup_v1\":true", "the JSON says v1");
  ok (cg_snapshot_from_json (json, "t", &back, &err) == 0, "and back");
  ok ((back.have & CG_SNAP_V1) && back.v1_nested, "v1 and nested read back");
  is_int (back.events_local.oom_kill, 2, "oom_kill read back");
  free (json);

  make_snap (&s, (struct cnt) Z, (struct cnt) Z, S_BOTH);
  ok (cg_snapshot_to_json (&s, &json, &err) == 0, "v2 snapshot to JSON");
  ok (strstr (json, "cgroup_v1") == NULL, "a v2 snapshot's JSON has no v1 key");
  ok (cg_snapshot_from_json (json, "t", &back, &err) == 0 && !(back.have & CG_SNAP_V1), "v2 read back: not v1");
  free (json);
}

/* C's oom_kill on v1 counts only its own tasks: without the kernel log,
 * kills in nested cgroups are unknown (null, never 0); the log counts
 * them (the matrix's ancestor-after-nested case said 0 beside a nested
 * victim). */
static void
test_nested_kills (void)
{
  struct cg_snapshot base, fin;
  struct kmsg_evidence km;
  struct verdict v;
  char *json = NULL;
  shim_error_t err = NULL;
  struct verdict_input in = { .container_id = "c1", .memory_limit_enforced = true,
                              .baseline = &base, .final = &fin, .have_status = true,
                              .status = SIGKILL };

  v1_snap (&base, 0, 0, false);
  v1_snap (&fin, 1, 3, true);
  verdict_compute (&in, &v);
  ok (v.have_oom && v.oom.nested_kills_unknown, "v1, no kernel log: nested kills unknown");
  ok (verdict_to_json (&v, &json, &err) == 0, "to JSON");
  has_str (json, "\"nested_kills\":null", "the JSON says null");
  free (json);
  json = NULL;

  v1_kmsg (&km, "/shim");
  km.n = 2;
  make_kill (&km.kills[1], "/shim/c1/sub");
  snprintf (km.kills[1].task_memcg, sizeof km.kills[1].task_memcg, "%s", "/shim/c1/sub");
  in.kmsg = &km;
  in.kmsg_cgroup = "/shim/c1";
  verdict_compute (&in, &v);
  ok (!v.oom.nested_kills_unknown && v.oom.nested_kills == 1, "the kernel log counts the nested kill");
  ok (verdict_to_json (&v, &json, &err) == 0, "to JSON");
  has_str (json, "\"nested_kills\":1", "the JSON says 1");
  free (json);

  /* init itself the nested cgroup's victim: the hint names v1's file. */
  v1_kmsg (&km, NULL);
  km.n = 1;
  make_kill (&km.kills[0], "/shim/c1/sub");
  snprintf (km.kills[0].task_memcg, sizeof km.kills[0].task_memcg, "%s", "/shim/c1/sub");
  in.init_pid = km.kills[0].pid;
  v1_snap (&fin, 0, 0, true);
  verdict_compute (&in, &v);
  is_int (v.reason, VERDICT_OOM_KILLED, "init killed in a nested v1 cgroup: OOMKilled");
  has_str (v.hint, "raise memory.limit_in_bytes of the nested cgroup `sub`", "the hint names the v1 file");
}

/* memory.oom.group emulated on v1 (evidence/monitor.h): after an OOM kill
 * in C the runtime killed the rest.  oom.group_kill stays the kernel's
 * (null on v1); oom.group_kill_by says "runtime". */
struct emurow
{
  const char *name;
  uint64_t kill;
  int status; /* -1: none */
  uint64_t sent;
  bool emulated;
  enum verdict_reason reason;
  enum verdict_tri oom_killed;
  enum verdict_group_kill_by by;
  bool says; /* the message names the emulation */
  unsigned left; /* tasks the runtime found alive after the OOM kill */
};

static const struct emurow emurows[] = {
  { "emulated: init killed by the runtime's group kill", 1, SIGKILLED, 0, true, VERDICT_OOM_KILLED,
    VERDICT_TRUE, VERDICT_GROUP_BY_RUNTIME, true, 2 },
  { "emulated, shim kill sent SIGKILL too: the group kill still decides", 1, SIGKILLED, BY_RT, true,
    VERDICT_OOM_KILLED, VERDICT_TRUE, VERDICT_GROUP_BY_RUNTIME, true, 2 },
  { "emulated, no status (the watcher): a group kill takes init", 1, -1, 0, true, VERDICT_OOM_KILLED,
    VERDICT_TRUE, VERDICT_GROUP_BY_RUNTIME, true, 2 },
  /* init alone, OOM-killed: the runtime found nothing left and
   * killed nothing, so the message does not say it did. */
  { "emulated, nothing left after the OOM kill: no claim of a kill by the runtime", 1, SIGKILLED, 0, true,
    VERDICT_OOM_KILLED, VERDICT_TRUE, VERDICT_GROUP_BY_RUNTIME, false, 0 },
  { "not emulated (opted out), shim kill: either, no group kill by anyone", 1, SIGKILLED, BY_RT, false,
    VERDICT_KILLED, VERDICT_NULL, VERDICT_GROUP_BY_NONE, false },
  { "not emulated, no status: init may have survived", 1, -1, 0, false, VERDICT_UNKNOWN, VERDICT_NULL,
    VERDICT_GROUP_BY_NONE, false },
  { "emulated flag without a counted kill: nothing to say", 0, SIGKILLED, 0, true, VERDICT_KILLED,
    VERDICT_FALSE, VERDICT_GROUP_BY_NONE, false },
  /* Measured on this host: `sh -c 'memhog & wait; exit 0'` exited 0 before
   * the runtime's kill came; no group was killed, init was not in it. */
  { "emulated, but init had exited 0: an exit stays an exit, and no group kill is claimed", 1,
    EXIT (0), 0, true, VERDICT_EXITED, VERDICT_FALSE, VERDICT_GROUP_BY_NONE, false },
};

static void
test_emulated_group (void)
{
  static const char *const said = "; the runtime then killed the 2 processes left in it, emulating memory.oom.group on "
                                  "cgroup v1";

  for (size_t i = 0; i < sizeof emurows / sizeof emurows[0]; i++)
    {
      const struct emurow *r = &emurows[i];
      struct cg_snapshot base, fin;
      struct verdict v;
      char *json = NULL;
      shim_error_t err = NULL;
      struct verdict_input in = { .container_id = "c1", .memory_limit_enforced = true,
                                  .baseline = &base, .final = &fin,
                                  .have_status = r->status >= 0, .status = r->status,
                                  .signals_sent = r->sent, .oom_group_emulated = r->emulated,
                                  .oom_group_left = r->left };

      v1_snap (&base, 0, 0, false);
      v1_snap (&fin, r->kill, 3, false);
      verdict_compute (&in, &v);
      is_str (verdict_reason_name (v.reason), verdict_reason_name (r->reason), "%s: reason", r->name);
      is_int (v.oom_killed, r->oom_killed, "%s: oom_killed", r->name);
      is_int (v.oom.group_kill_by, r->by, "%s: group_kill_by", r->name);
      if (v.have_oom)
        is_int (v.oom.group_kill, VERDICT_NULL, "%s: group_kill stays the kernel's (null on v1)", r->name);
      ok ((strstr (v.message, said) != NULL) == r->says && (strstr (v.message, "emulating") != NULL) == r->says, "%s: the message %s the emulation", r->name,
          r->says ? "names" : "does not name");
      ok (verdict_to_json (&v, &json, &err) == 0, "%s: JSON", r->name);
      if (v.have_oom)
        has_str (json,
                 r->by == VERDICT_GROUP_BY_RUNTIME ? "\"group_kill_by\":\"runtime\"" : "\"group_kill_by\":null",
                 "%s: JSON group_kill_by", r->name);
      free (json);
    }
}

/* The watcher's record keeps the emulation; an older record without the
 * key read as "not emulated". */
static void
test_record_emulated (void)
{
  char dir[] = "/tmp/test_verdict_v1.XXXXXX";
  struct watcher_record r = { .have_baseline = true }, back;
  shim_error_t err = NULL;
  int dfd;

  if (mkdtemp (dir) == NULL || (dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    {
      ok (false, "a temporary directory");
      return;
    }
  v1_snap (&r.baseline, 0, 0, false);
  r.oom_group_emulated = true;
  r.oom_group_left = 3;
  ok (watcher_record_write (dfd, "r.json", &r, &err) == 0, "record with oom_group_emulated written");
  ok (watcher_record_read (dfd, "r.json", &back, &err) == 0 && back.oom_group_emulated,
      "oom_group_emulated read back");
  is_int (back.oom_group_left, 3, "oom_group_left read back");
  ok (util_write_file_atomic_at (dfd, "old.json", "{\"ended\":true}", 14, 0600, &err) == 0, "an older record written");
  ok (watcher_record_read (dfd, "old.json", &back, &err) == 0 && !back.oom_group_emulated && back.oom_group_left == 0,
      "an older record without the key: not emulated, nothing left");
  if (err)
    diag ("%s", err->msg);
  unlinkat (dfd, "r.json", 0);
  unlinkat (dfd, "old.json", 0);
  close (dfd);
  rmdir (dir);
}

int
main (void)
{
  test_rows ();
  test_max_events ();
  test_json ();
  test_nested_kills ();
  test_emulated_group ();
  test_record_emulated ();
  return done_testing ();
}
