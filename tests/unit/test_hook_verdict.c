#include <stdio.h>
/* SPDX-License-Identifier: Apache-2.0 */
/* shim-oom-hook: from a watcher record to the verdict (what a record is
 * worth when the cgroup vanished first), the verdict file and what `show`
 * prints of it, and the cleanup of the verdict directory. */
#include "../../hooks/hook_store.c"
#include "../../hooks/hook_verdict.c"

#include <sys/stat.h>

#include <signal.h>
#include <sys/wait.h>

#include "tap.h"

#define LIMIT 67108864ULL

static const unsigned all_ev
    = CG_EV_LOW | CG_EV_HIGH | CG_EV_MAX | CG_EV_OOM | CG_EV_OOM_KILL | CG_EV_OOM_GROUP_KILL;

/* A snapshot with the given local and tree counters; populated < 0 leaves
 * cgroup.events out. */
static struct cg_snapshot
snap (uint64_t l_oom, uint64_t l_kill, uint64_t l_group, uint64_t t_oom, uint64_t t_kill,
      int populated)
{
  struct cg_snapshot s = {
    .have = CG_SNAP_EVENTS_LOCAL | CG_SNAP_EVENTS | CG_SNAP_PEAK | CG_SNAP_MAX | CG_SNAP_STAT,
    .events_local = { .have = all_ev, .oom = l_oom, .oom_kill = l_kill, .oom_group_kill = l_group },
    .events = { .have = all_ev, .oom = t_oom, .oom_kill = t_kill, .oom_group_kill = l_group },
    .memory_peak = LIMIT,
    .memory_max = LIMIT,
    .stat = { .have = CG_STAT_ANON, .anon = 60 << 20 },
  };
  if (populated >= 0)
    {
      s.have |= CG_SNAP_CGROUP_EVENTS;
      s.cgroup_events = (struct cg_cgroup_events){ .have = CG_CEV_POPULATED, .populated = populated };
    }
  return s;
}

static struct watcher_record
record (struct cg_snapshot last, bool ended)
{
  return (struct watcher_record){ .have_baseline = true,
                                .have_last = true,
                                .have_fullest = true,
                                .baseline = snap (0, 0, 0, 0, 0, 1),
                                .last = last,
                                .fullest = last,
                                .ended = ended };
}

static void
test_records (void)
{
  struct watcher_record r;
  struct verdict v;

  r = record (snap (1, 2, 1, 1, 2, 0), true);
  is_int (hook_verdict_compute ("c1", &r, NULL, 0, &v), HOOK_RECORD_COMPLETE,
          "a final read after the cgroup emptied is complete");
  is_int (v.reason, VERDICT_OOM_KILLED, "group kill: OOMKilled");
  is_int (v.oom_killed, VERDICT_TRUE, "group kill: oom_killed true");
  ok (!v.have_exit_code, "no exit code: hooks never get one");
  has_str (v.message, "its exit status was not known here", "the message says so");

  r = record (snap (1, 2, 1, 1, 2, 1), true);
  is_int (hook_verdict_compute ("c2", &r, NULL, 0, &v), HOOK_RECORD_INCOMPLETE,
          "a last read while still populated is incomplete");
  is_int (v.oom_killed, VERDICT_TRUE, "a kill seen before the cgroup vanished is still a kill");

  r = record (snap (0, 0, 0, 0, 0, 1), true);
  is_int (hook_verdict_compute ("c3", &r, NULL, 0, &v), HOOK_RECORD_INCOMPLETE,
          "cgroup removed before the last read");
  is_int (v.oom_killed, VERDICT_NULL, "no kill seen, but not final: null, never a guess");
  has_str (v.message, "removed before the watcher could read its last counters",
           "the message says why");
  is_int (v.have_memory_limit, true, "the limit from the baseline is still reported");

  r = record (snap (0, 0, 0, 0, 0, 1), false);
  hook_verdict_compute ("c4", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_NULL, "a watcher that did not reach the end: null");
  has_str (v.message, "record stops before the container did", "and says so");

  r = record (snap (0, 0, 0, 0, 0, 0), true);
  hook_verdict_compute ("c5", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_FALSE, "complete, no kill: oom_killed false");
  is_int (v.reason, VERDICT_UNKNOWN, "without an exit status the reason is Unknown");
  has_str (v.message, "no OOM kill counted in its cgroup", "no kill: the message");

  r = record (snap (0, 0, 0, 1, 1, 0), true);
  hook_verdict_compute ("c6", &r, NULL, 0, &v);
  /* A nested OOM event and tree kills: a nested cgroup's kill, or a
   * parent's; without the kernel log the counters cannot tell. */
  is_int (v.oom_killed, VERDICT_NULL, "nested-looking kill without the kernel log: null");
  is_int (v.oom.nested_kills, 1, "nested_kills 1");

  r = record (snap (1, 1, 0, 1, 1, 0), true);
  hook_verdict_compute ("c7", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_NULL, "a kill without a group kill: init's fate is unknown");

  /* The cgroup removed before the last read of memory.peak: the fullest
   * snapshot's peak is from before the kill, no peak of the container's. */
  r = record (snap (1, 2, 1, 1, 2, 1), true);
  r.last.have &= ~CG_SNAP_PEAK;
  r.fullest.memory_peak = 3 << 20;
  hook_verdict_compute ("c7p", &r, NULL, 0, &v);
  ok (v.oom_killed == VERDICT_TRUE && !v.have_memory_peak, "no final peak: none said, not an earlier one");
  r.have_last = false;
  hook_verdict_compute ("c7q", &r, NULL, 0, &v);
  ok (v.have_memory_peak && v.memory_peak == 3 << 20, "no final snapshot at all: the fullest one's peak");

  /* A watcher's record while it runs: the counters already count a group
   * kill whose report has not reached the kernel log yet.  The log is no
   * witness before the end (it said "no OOM kill" here: the marker came
   * late, measured with podman). */
  r = record (snap (1, 2, 1, 1, 2, 1), false);
  r.kmsg.access = KMSG_READ;
  snprintf (r.kmsg.cgroup, sizeof r.kmsg.cgroup, "%s", "/shim/c1");
  hook_verdict_compute ("c7c", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_TRUE, "mid-run record, group kill counted, log not there yet: true");
  r = record (snap (0, 0, 0, 0, 0, 1), false);
  r.kmsg.access = KMSG_READ;
  snprintf (r.kmsg.cgroup, sizeof r.kmsg.cgroup, "%s", "/shim/c1");
  hook_verdict_compute ("c7d", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_NULL, "mid-run record, nothing yet: null, the log proves no absence yet");
  r.ended = true;
  r.last = snap (0, 0, 0, 0, 0, 0);
  hook_verdict_compute ("c7e", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_FALSE, "the same at the end, read after the cgroup emptied: false");

  /* init's status from its pidfd (6.15+), a SIGKILL, no OOM kill: runc's
   * own kill passes no hook, so nobody is blamed. */
  r = record (snap (0, 0, 0, 0, 0, 0), true);
  r.have_status = true;
  r.status = SIGKILL; /* as waitpid's status: killed by signal 9 */
  hook_verdict_compute ("c7b", &r, NULL, 0, &v);
  is_int (v.reason, VERDICT_KILLED, "SIGKILL with a status: Killed");
  is_int (v.oom_killed, VERDICT_FALSE, "no OOM kill counted: false");
  is_int (v.killed_by, VERDICT_BY_NONE, "killed_by null: the hook does not see runc's signals");
  has_str (v.message, "a hook does not see the runtime's signals", "the message says why");

  r = record (snap (0, 0, 0, 0, 0, 0), true);
  r.baseline.have = 0;
  r.last.have = CG_SNAP_CGROUP_EVENTS;
  r.fullest = r.last;
  r.baseline.have = CG_SNAP_CGROUP_EVENTS;
  hook_verdict_compute ("c8", &r, NULL, 0, &v);
  is_int (v.oom_killed, VERDICT_NULL, "no memory controller: null");
  has_str (v.message, "memory controller is not enabled", "no memory controller: says so");
  ok (!v.memory_limit_enforced, "no memory controller: limit not enforced");

  is_int (hook_verdict_compute ("c9", NULL, "the hook did not arm", 0, &v), HOOK_RECORD_MISSING,
          "no record");
  is_int (v.oom_killed, VERDICT_NULL, "no record: null");
  has_str (v.message, "the hook did not arm", "no record: the reason is in the message");
}

static void
test_document (void)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *doc = NULL;
  struct hook_meta meta = { .cgroup = "/ctr", .bundle = "/b" };
  struct watcher_record r = record (snap (1, 2, 1, 1, 2, 0), true);
  struct hook_shown shown;
  struct verdict v;

  hook_verdict_compute ("docid", &r, NULL, 0, &v);
  ok (hook_verdict_document ("docid", &v, HOOK_RECORD_COMPLETE, &meta, true, &doc, &err) == 0,
      "the verdict file is generated");
  has_str (doc, "\"id\":\"docid\"", "file: id");
  has_str (doc, "\"exit_status_known\":false", "file: exit status not known");
  has_str (doc, "\"record\":\"complete\"", "file: record kind");
  has_str (doc, "\"cgroup\":\"/ctr\"", "file: cgroup");
  has_str (doc, "\"oom_file\":true", "file: oom_file");
  has_str (doc, "\"verdict\":{\"reason\":\"OOMKilled\"", "file: the verdict object");
  ok (hook_verdict_parse_document (doc, &shown, &err) == 0, "show parses it");
  ok (shown.verdict_json && shown.verdict_json[0] == '{', "show: the verdict as JSON");
  has_str (shown.verdict_json, "\"oom\":{\"scope\":\"container\",\"kills\":2,\"group_kill\":true",
           "show: nested objects kept");
  is_str (shown.message, v.message, "show: the message");
  is_str (shown.hint, v.hint, "show: the hint");
  free (doc);
  doc = NULL;

  /* The record carries init's status (the pidfd, Linux 6.15 and later). */
  r.have_status = true;
  r.status = SIGKILL;
  hook_verdict_compute ("docid", &r, NULL, 0, &v);
  ok (hook_verdict_document ("docid", &v, HOOK_RECORD_COMPLETE, &meta, true, &doc, &err) == 0,
      "the verdict file with init's status");
  has_str (doc, "\"exit_status_known\":true", "file: exit status known from the record");
  hook_verdict_shown_release (&shown);
  ok (hook_verdict_parse_document ("{\"id\":\"x\"}", &shown, &err) < 0,
      "a file without a verdict is refused");
}

/* A container directory with or without a verdict, its mtime days ago. */
static void
make_entry (int store, const char *id, bool verdict, int days_ago)
{
  cleanup_close int cfd = -1;
  cleanup_error shim_error_t err = NULL;
  struct timespec ts[2];

  hook_store_fresh (store, id, &cfd, &err);
  if (verdict)
    util_write_file_atomic_at (cfd, HOOK_VERDICT, "{}", 2, 0644, &err);
  clock_gettime (CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= days_ago * 86400;
  ts[1] = ts[0];
  futimens (cfd, ts);
}

static bool
exists (int store, const char *id)
{
  return faccessat (store, id, F_OK, 0) == 0;
}

static void
test_gc (void)
{
  cleanup_error shim_error_t err = NULL;
  char tmpl[] = "/tmp/test_hook_gc.XXXXXX";
  cleanup_close int store = -1, held = -1, cfd = -1;
  struct hook_gc_policy p = { .keep_days = 7, .keep_count = 2 };
  char path[256];

  ok (mkdtemp (tmpl) != NULL, "temp dir");
  snprintf (path, sizeof path, "%s/deep/er", tmpl);
  ok (hook_store_open (path, true, &store, &err) == 0, "the store is created with its parents");
  make_entry (store, "old-done", true, 9);
  make_entry (store, "old-running", false, 30);
  make_entry (store, "old-abandoned", false, 8);
  make_entry (store, "new-1", true, 0);
  make_entry (store, "new-2", true, 1);
  make_entry (store, "new-3", true, 2);
  make_entry (store, "new-unfinished", false, 0);
  /* A watcher holds old-running's lock. */
  held = openat (store, "old-running/" HOOK_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ok (held >= 0 && flock (held, LOCK_EX) == 0, "a watcher's lock is held");
  ok (hook_store_open_container (store, "old-running", &cfd, &err) == 0
          && hook_store_watcher_running (cfd),
      "the running watcher is seen");
  ok (!hook_store_wait_watcher (cfd, 30), "waiting for a running watcher times out");
  is_int (hook_store_gc (store, &p, &err), 3, "three directories removed");
  ok (!exists (store, "old-done"), "a verdict older than keep-days is removed");
  ok (!exists (store, "old-abandoned"), "an old directory without a watcher is removed");
  ok (exists (store, "old-running"), "a directory whose watcher runs is kept, however old");
  ok (exists (store, "new-1") && exists (store, "new-2"), "the keep newest verdicts stay");
  ok (!exists (store, "new-3"), "verdicts beyond keep are removed, oldest first");
  ok (exists (store, "new-unfinished"), "a young directory without a verdict stays");
  close (held);
  held = -1;
  ok (hook_store_wait_watcher (cfd, 30), "a released lock is a finished watcher");
  /* Released while the wait runs: a child takes the lock, says so, and
   * ends a moment later (so that the wait is usually under way by then;
   * the result does not depend on it); the wait must see the release. */
  {
    int go[2];
    pid_t c;
    char b;
    ok (pipe2 (go, O_CLOEXEC) == 0, "pipe");
    c = fork ();
    if (c == 0)
      {
        int l = openat (cfd, HOOK_LOCK, O_RDWR | O_CLOEXEC);
        if (l < 0 || flock (l, LOCK_EX) < 0 || write (go[1], "h", 1) != 1)
          _exit (1);
        poll (NULL, 0, 200);
        _exit (0);
      }
    close (go[1]);
    ok (read (go[0], &b, 1) == 1 && hook_store_watcher_running (cfd), "a second watcher holds the lock");
    ok (hook_store_wait_watcher (cfd, 20000), "a lock released during the wait ends the wait");
    waitpid (c, NULL, 0);
    close (go[0]);
  }

  /* Arming again replaces the directory. */
  {
    cleanup_close int c2 = -1;
    ok (hook_store_fresh (store, "new-1", &c2, &err) == 0, "re-arming an id");
    ok (faccessat (c2, HOOK_VERDICT, F_OK, 0) < 0, "the old verdict is gone");
  }
  p.keep_days = 7;
  p.keep_count = 0;
  hook_store_gc (store, &p, &err);
  ok (!exists (store, "new-2"), "keep 0 removes every finished directory");
  ok (exists (store, "new-1") && exists (store, "new-unfinished"),
      "young directories without a verdict stay");
  /* That scan was a moment ago: under keep_count directories, an old one
   * waits for the hour since it (this file system counts subdirectories
   * in a directory's link count, as tmpfs and ext4 do). */
  p.keep_count = 1000;
  make_entry (store, "old-late", false, 8);
  is_int (hook_store_gc (store, &p, &err), 0, "within the hour of a scan, under keep: no scan");
  ok (exists (store, "old-late"), "an old directory waits for the hour");
  {
    struct timespec ts[2];
    int lock = openat (store, ".lock", O_RDWR | O_CLOEXEC);
    clock_gettime (CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= 7200;
    ts[1] = ts[0];
    ok (lock >= 0 && futimens (lock, ts) == 0, "the last scan made two hours old");
    close (lock);
  }
  is_int (hook_store_gc (store, &p, &err), 1, "an hour after the last scan, one directory removed");
  ok (!exists (store, "old-late"), "the old directory is removed then");
  is_int (hook_store_gc (store, &p, &err), 0, "and the next call within the hour scans nothing");
  snprintf (path, sizeof path, "rm -rf '%s'", tmpl);
  ok (system (path) == 0, "temp dir removed");
}

int
main (void)
{
  test_records ();
  test_document ();
  test_gc ();
  return done_testing ();
}
