/* SPDX-License-Identifier: Apache-2.0 */
/* The one watcher (evidence/watcher.c) on a fake cgroupfs in a temporary
 * directory: PARENT/CTR with an empty cgroup.events, so the watcher reads
 * its end at once.  What it must leave: a record that ended, with the
 * surviving ancestor's memory.events at arming and again at the end, the
 * lock released once the last record is written, and, when it could not
 * be started, an error and no record at all.  Then the one input builder
 * (evidence/input.c) on records. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tap.h"
#include "evidence/input.h"
#include "evidence/watcher.h"

static void
put (int dirfd, const char *name, const char *text)
{
  /* In place (not atomic): the watcher's open fd must see the new text. */
  int fd = openat (dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    abort ();
  close (fd);
}

static const char events0[] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n";

/* Wait (bounded, 10 s) until the watcher has let go of the lock. */
static bool
lock_released (int store)
{
  int fd = openat (store, "watcher.lock", O_RDWR | O_CLOEXEC);
  bool got = false;

  for (int i = 0; fd >= 0 && i < 1000 && !got; i++)
    {
      struct timespec ts = { 0, 10 * 1000 * 1000 };
      got = flock (fd, LOCK_EX | LOCK_NB) == 0;
      if (!got)
        nanosleep (&ts, NULL);
    }
  if (fd >= 0)
    close (fd);
  return got;
}

struct fake
{
  char root[64];
  int parent, ctr, store, lock;
};

static void
fake_make (struct fake *f)
{
  char path[128];

  snprintf (f->root, sizeof f->root, "/tmp/test_watcher.XXXXXX");
  if (mkdtemp (f->root) == NULL)
    abort ();
  snprintf (path, sizeof path, "%s/parent", f->root);
  if (mkdir (path, 0755) < 0)
    abort ();
  snprintf (path, sizeof path, "%s/parent/ctr", f->root);
  if (mkdir (path, 0755) < 0)
    abort ();
  snprintf (path, sizeof path, "%s/store", f->root);
  if (mkdir (path, 0755) < 0)
    abort ();
  f->store = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  snprintf (path, sizeof path, "%s/parent", f->root);
  f->parent = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  f->ctr = openat (f->parent, "ctr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (f->store < 0 || f->parent < 0 || f->ctr < 0)
    abort ();
  put (f->parent, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 3\noom_group_kill 0\n");
  put (f->ctr, "memory.events.local", events0);
  put (f->ctr, "memory.events", events0);
  put (f->ctr, "memory.max", "67108864\n");
  put (f->ctr, "cgroup.events", "populated 0\nfrozen 0\n");
  f->lock = openat (f->store, "watcher.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f->lock < 0 || flock (f->lock, LOCK_EX | LOCK_NB) < 0)
    abort ();
}

static void
fake_remove (struct fake *f)
{
  char cmd[128];
  close (f->parent);
  close (f->ctr);
  close (f->store);
  if (f->lock >= 0)
    close (f->lock);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", f->root);
  if (system (cmd) != 0)
    abort ();
}

static void
test_spawn_ends_with_ancestor (void)
{
  cleanup_error shim_error_t err = NULL;
  struct watcher_record r;
  struct fake f;
  struct watcher w;
  struct watcher_policy p = { .id = "w1", .memory_limit_enforced = true, .name = "record.json",
                              .bundle_fd = -1, .init_pidfd = -1 };

  fake_make (&f);
  p.dirfd = f.store;
  p.lock_fd = f.lock;
  ok (watcher_arm (&w, f.ctr, 1, "/parent/ctr", &err) == 0, "armed on the fake cgroup (%s)",
      err ? err->msg : "no error");
  ok (w.have_ancestor_baseline && w.ancestor_baseline.events.oom_kill == 3,
      "the parent's memory.events at arming");
  /* The parent counts a kill after arming: the end must read it again. */
  put (f.parent, "memory.events", "low 0\nhigh 0\nmax 0\noom 1\noom_kill 4\noom_group_kill 0\n");
  ok (watcher_spawn (&w, &p, &err) == 0, "spawned (%s)", err ? err->msg : "no error");
  close (f.lock);
  f.lock = -1;
  ok (lock_released (f.store), "the watcher let go of its lock after its last record");
  ok (watcher_record_read (f.store, "record.json", &r, &err) == 0, "the record reads (%s)",
      err ? err->msg : "no error");
  ok (r.ended, "the record ended: the cgroup was empty");
  ok (r.have_ancestor_baseline && r.ancestor_baseline.events.oom_kill == 3,
      "ancestor_baseline persisted: oom_kill 3");
  ok (r.have_ancestor_final && r.ancestor_final.events.oom_kill == 4,
      "ancestor_final read at the end: oom_kill 4");
  ok ((r.ancestor_baseline.have & CG_SNAP_ID) && r.ancestor_baseline.cgroup_id == r.ancestor_final.cgroup_id,
      "the ancestor's identity in both");
  {
    bool le;
    bool known = cgroup_mount_localevents (&le) == 0;
    /* The rule needs it: under memory_localevents the ancestor counts only
     * its own kills. */
    ok (known && (r.ancestor_baseline.have & r.ancestor_final.have & CG_SNAP_LOCALEVENTS)
            && r.ancestor_baseline.localevents == le && r.ancestor_final.localevents == le,
        "the ancestor's snapshots say whether the mount has memory_localevents");
  }
  ok (r.have_baseline && (r.baseline.have & CG_SNAP_ID), "the container's baseline has its id");
  /* The kernel log was asked for (read, or denied with the reason): the
   * record says which; no kill of this fake cgroup is in it. */
  ok (r.kmsg.access != KMSG_NOT_READ, "the kernel log was armed: access %d", r.kmsg.access);
  is_int ((long long) r.kmsg.n, 0, "no OOM kill of the fake cgroup in the kernel log");
  fake_remove (&f);
}

static void
test_spawn_failure (void)
{
  cleanup_error shim_error_t err = NULL;
  struct fake f;
  struct watcher w;
  struct watcher_policy p = { .id = "w2", .name = "record.json", .bundle_fd = -1, .lock_fd = -1,
                              .init_pidfd = -1 };

  fake_make (&f);
  p.dirfd = f.store;
  ok (watcher_arm (&w, f.ctr, 1, NULL, &err) == 0, "armed");
  setenv ("SHIM_TEST_WATCHER_FORK_FAIL", "1", 1);
  ok (watcher_spawn (&w, &p, &err) < 0, "a watcher whose fork failed is an error, not armed");
  unsetenv ("SHIM_TEST_WATCHER_FORK_FAIL");
  has_str (err ? err->msg : NULL, "start the watcher", "the error says what failed");
  ok (faccessat (f.store, "record.json", F_OK, 0) < 0, "and it left no record behind");
  fake_remove (&f);
}

/* A watcher for F's container, whose group OOM kill is counted after
 * arming and whose cgroup is empty, with podman's marker in F's root (the
 * bundle, open in *BUNDLE); FAULT, if not NULL, the fault point at which
 * it is killed.  Returns once the watcher has let go of its lock. */
static void
spawn_killed (struct fake *f, const char *id, const char *fault, int *bundle)
{
  static const char killed[] = "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 1\n";
  cleanup_error shim_error_t err = NULL;
  struct watcher w;
  struct watcher_policy p = { .id = id, .memory_limit_enforced = true, .name = "record.json",
                              .init_pidfd = -1 };

  fake_make (f);
  *bundle = openat (f->parent, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  p.dirfd = f->store;
  p.lock_fd = f->lock;
  p.bundle_fd = *bundle;
  ok (watcher_arm (&w, f->ctr, 1, NULL, &err) == 0, "%s: armed", id);
  put (f->ctr, "memory.events.local", killed);
  put (f->ctr, "memory.events", killed);
  if (fault)
    setenv ("SHIM_TEST_FAULT", fault, 1);
  ok (watcher_spawn (&w, &p, &err) == 0, "%s: spawned", id);
  unsetenv ("SHIM_TEST_FAULT");
  close (f->lock);
  f->lock = -1;
  ok (lock_released (f->store), "%s: the watcher ended", id);
}

/* A group OOM kill counted after arming: the record shows it and podman's
 * marker is created in the bundle. */
static void
test_spawn_marks_oom (void)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_close int bundle = -1;
  struct watcher_record r;
  struct evidence_sources src;
  struct verdict v;
  struct fake f;

  spawn_killed (&f, "w3", NULL, &bundle);
  ok (faccessat (bundle, "oom", F_OK, 0) == 0, "podman's marker was created");
  ok (watcher_record_read (f.store, "record.json", &r, &err) == 0, "the record reads");
  evidence_input_init (&src, "w3", true);
  is_int (evidence_input_record (&src, &r, NULL), EVIDENCE_RECORD_COMPLETE,
          "the record is complete");
  evidence_input_compute (&src, &v);
  is_int (evidence_input_oom_killed (&src), v.oom_killed == VERDICT_TRUE,
          "the rules alone agree on oom_killed");
  is_int (v.oom_killed, VERDICT_TRUE, "and tells the OOM kill");
  ok (v.memory_limit_enforced, "memory_limit_enforced as the caller said");
  unlinkat (bundle, "oom", 0);
  fake_remove (&f);
}

/* The cgroup found empty: the marker comes from the counters read through
 * the open fds, before the slower reads of the end (memory.stat, the
 * ancestor, the kernel log), during which conmon can report the exit to
 * podman.  The watcher is killed at that point: the marker must be there. */
static void
test_final_marks_before_reads (void)
{
  cleanup_close int bundle = -1;
  struct fake f;

  spawn_killed (&f, "w5", "watcher:before-final-reads", &bundle);
  ok (faccessat (bundle, "oom", F_OK, 0) == 0, "podman's marker was there before the end's reads");
  unlinkat (bundle, "oom", 0);
  fake_remove (&f);
}

/* The end read while the cgroup is being removed: memory.events.local
 * reads, memory.events no longer does (kernfs answers ENODEV once the
 * removal has begun; here a directory's EISDIR), and the full snapshot
 * finds the files gone.  The container's own kill must still be in the
 * record and in the verdict, which says it is not final. */
static void
test_final_partial_read (void)
{
  static const char killed[] = "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 1\n";
  static const char *files[] = { "memory.events.local", "memory.events", "memory.max", "cgroup.events" };
  cleanup_error shim_error_t err = NULL;
  cleanup_close int bundle = -1, dir = -1;
  struct watcher_record r;
  struct evidence_sources src;
  struct verdict v;
  struct watcher w;
  struct fake f;
  struct watcher_policy p = { .id = "w6", .memory_limit_enforced = true, .name = "record.json",
                              .init_pidfd = -1 };

  fake_make (&f);
  bundle = openat (f.parent, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  dir = openat (f.parent, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  p.dirfd = f.store;
  p.lock_fd = f.lock;
  p.bundle_fd = bundle;
  ok (watcher_arm (&w, f.ctr, 1, NULL, &err) == 0, "w6: armed");
  put (f.ctr, "memory.events.local", killed);
  ok (dup2 (dir, w.tree_fd) == w.tree_fd, "w6: memory.events unreadable through its fd");
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    unlinkat (f.ctr, files[i], 0);
  ok (watcher_spawn (&w, &p, &err) == 0, "w6: spawned");
  close (f.lock);
  f.lock = -1;
  ok (lock_released (f.store), "w6: the watcher ended");
  ok (faccessat (bundle, "oom", F_OK, 0) == 0, "podman's marker from the container's own counters");
  ok (watcher_record_read (f.store, "record.json", &r, &err) == 0, "the record reads");
  ok (r.have_last && r.last.events_local.oom_kill == 1, "the record keeps memory.events.local's kill");
  evidence_input_init (&src, "w6", true);
  is_int (evidence_input_record (&src, &r, NULL), EVIDENCE_RECORD_INCOMPLETE,
          "the record is not final: memory.events was not read at the end");
  evidence_input_compute (&src, &v);
  is_int (v.oom_killed, VERDICT_TRUE, "the verdict tells the container's own OOM kill");
  unlinkat (bundle, "oom", 0);
  fake_remove (&f);
}

static struct cg_snapshot
snap (uint64_t oom_kill, bool populated)
{
  const unsigned all = CG_EV_OOM | CG_EV_OOM_KILL | CG_EV_OOM_GROUP_KILL;
  return (struct cg_snapshot){
    .have = CG_SNAP_EVENTS_LOCAL | CG_SNAP_EVENTS | CG_SNAP_MAX | CG_SNAP_CGROUP_EVENTS,
    .events_local = { .have = all },
    .events = { .have = all, .oom_kill = oom_kill },
    .memory_max = 64 << 20,
    .cgroup_events = { .have = CG_CEV_POPULATED, .populated = populated },
  };
}

static void
test_input (void)
{
  struct watcher_record r = { .have_baseline = true, .have_last = true, .baseline = snap (0, true),
                              .last = snap (0, true), .ended = false };
  struct evidence_sources s;
  struct verdict v;

  evidence_input_init (&s, "i1", false);
  is_int (evidence_input_record (&s, &r, NULL), EVIDENCE_RECORD_INCOMPLETE,
          "a record that stops early is incomplete");
  ok (s.in.ancestor_baseline == NULL && s.in.ancestor_final == NULL,
      "no ancestor recorded: both NULL");
  ok (s.in.kmsg == NULL, "no kernel log read: kmsg NULL");
  evidence_input_compute (&s, &v);
  is_int (evidence_input_oom_killed (&s), v.oom_killed == VERDICT_TRUE,
          "the rules alone agree on oom_killed");
  is_int (v.oom_killed, VERDICT_NULL, "an incomplete record is unknown, for every caller");
  ok (!v.memory_limit_enforced, "memory_limit_enforced is the caller's");

  /* Counters that stop early are a lower bound: a kill they saw stays in
   * the verdict, not only a "no kill" is dropped. */
  {
    struct watcher_record k = r;
    struct evidence_sources s2;
    k.last.events_local.oom = k.last.events_local.oom_kill = 1;
    k.last.events.oom = k.last.events.oom_kill = 1;
    k.have_status = true;
    k.status = SIGKILL;
    evidence_input_init (&s2, "i0", true);
    evidence_input_record (&s2, &k, NULL);
    evidence_input_compute (&s2, &v);
    is_int (evidence_input_oom_killed (&s2), v.oom_killed == VERDICT_TRUE,
            "the rules alone agree on oom_killed");
    ok (v.oom_killed == VERDICT_NULL && v.oom.kills == 1,
        "an incomplete record's kill is kept, init's part in it unknown");
    /* The kernel counts the group kill after the kill: counters read in
     * between and never again say nothing of it. */
    is_int (v.oom.group_kill, VERDICT_NULL, "no group kill in counters not final: unknown, not false");
    ok (strstr (v.message, "not as a group") == NULL, "the message does not say one by one (%s)",
        v.message);
  }

  /* Counters read before the kill was counted (systemd removed the scope
   * before the last read; measured on 6.1) are no witness against the
   * kernel log, read whole, naming init: OOMKilled. */
  {
    struct watcher_record k = r;
    struct evidence_sources s2;
    struct kmsg_oom_kill *x = &k.kmsg.kills[0];
    k.ended = true;
    k.last.events_local.oom = k.last.events.oom = 1;
    k.have_status = true;
    k.status = SIGKILL;
    k.kmsg.access = KMSG_READ;
    snprintf (k.kmsg.cgroup, sizeof k.kmsg.cgroup, "/sd.scope");
    k.kmsg.n = 1;
    *x = (struct kmsg_oom_kill){ .memcg = true, .have_summary = true, .have_victim = true,
                                 .pid = 341, .comm = "memhog" };
    snprintf (x->oom_memcg, sizeof x->oom_memcg, "/sd.scope");
    snprintf (x->task_memcg, sizeof x->task_memcg, "/sd.scope");
    evidence_input_init (&s2, "i0", true);
    evidence_input_record (&s2, &k, NULL);
    evidence_input_init_pid (&s2, 341);
    evidence_input_compute (&s2, &v);
    is_int (evidence_input_oom_killed (&s2), v.oom_killed == VERDICT_TRUE,
            "the rules alone agree on oom_killed");
    ok (v.reason == VERDICT_OOM_KILLED && v.oom_killed == VERDICT_TRUE,
        "counters read before the kill, the kernel log naming init: OOMKilled (%s)", v.message);
  }

  /* `shim run` under systemd: the scope was removed before the monitor's
   * read after init's exit, so its counters are an earlier read's. */
  {
    struct monitor m = { .cgroup_fd = 3, .memory_fd = -1, .events_fd = -1, .have_baseline = true,
                         .have_last = true, .baseline = snap (0, true), .last = snap (0, true) };
    struct kmsg_evidence km = { .access = KMSG_READ, .n = 1 };
    struct evidence_sources s2;
    m.last.events_local.oom = m.last.events.oom = 1;
    snprintf (km.cgroup, sizeof km.cgroup, "/sd.scope");
    km.kills[0] = (struct kmsg_oom_kill){ .memcg = true, .have_summary = true, .have_victim = true,
                                          .pid = 341, .comm = "memhog" };
    snprintf (km.kills[0].oom_memcg, sizeof km.kills[0].oom_memcg, "/sd.scope");
    snprintf (km.kills[0].task_memcg, sizeof km.kills[0].task_memcg, "/sd.scope");
    for (int after = 0; after < 2; after++)
      {
        evidence_input_init (&s2, "r0", true);
        evidence_input_monitor (&s2, &m, SIGKILL, &km, after);
        evidence_input_init_pid (&s2, 341);
        evidence_input_compute (&s2, &v);
        is_int (evidence_input_oom_killed (&s2), v.oom_killed == VERDICT_TRUE,
                "the rules alone agree on oom_killed");
        if (!after)
          ok (v.oom_killed == VERDICT_TRUE,
              "run: the last read failed, the kernel log names init: OOMKilled (%s)", v.message);
        else
          ok (v.oom_killed == VERDICT_NULL,
              "run: counters read after init's exit that count no kill disagree with the log: null");
      }
  }

  /* The runtime reads the stopped container's cgroup: that is final. */
  {
    struct cg_snapshot now = snap (0, false);
    evidence_input_live (&s, NULL, &now);
    evidence_input_compute (&s, &v);
    is_int (evidence_input_oom_killed (&s), v.oom_killed == VERDICT_TRUE,
            "the rules alone agree on oom_killed");
    is_int (v.oom_killed, VERDICT_FALSE, "a live read after the end completes it");
  }

  r.have_ancestor_baseline = r.have_ancestor_final = true;
  r.ancestor_baseline = snap (2, true);
  r.ancestor_final = snap (2, true);
  r.kmsg.access = KMSG_DENIED;
  r.kmsg.error = 1;
  evidence_input_init (&s, "i2", true);
  evidence_input_record (&s, &r, NULL);
  ok (s.in.ancestor_baseline == &r.ancestor_baseline && s.in.ancestor_final == &r.ancestor_final,
      "the ancestor's two snapshots are the input's");
  ok (s.in.kmsg == &r.kmsg, "a kernel log that was tried is the input's, denied or not");
  ok (s.in.kmsg_cgroup == NULL, "no path in the evidence: the kernel log names no one");
  snprintf (r.kmsg.cgroup, sizeof r.kmsg.cgroup, "/shim/i2");
  evidence_input_init (&s, "i2", true);
  evidence_input_record (&s, &r, NULL);
  ok (s.in.kmsg_cgroup && strcmp (s.in.kmsg_cgroup, "/shim/i2") == 0,
      "the kernel log's evidence says whose kills it holds: the input's kmsg_cgroup");
  evidence_input_signals (&s, VERDICT_SIGBIT (9), true);
  ok (s.in.signals_sent == VERDICT_SIGBIT (9) && s.in.signals_unknown, "the signal log");

  evidence_input_init (&s, "i3", true);
  is_int (evidence_input_record (&s, NULL, "gone"), EVIDENCE_RECORD_MISSING, "no record: missing");
  is_str (s.in.unavailable_reason, "gone", "no record: the caller's reason");
}

static void
on_usr1 (int sig)
{
  (void) sig;
}

/* holder DIRFD RELEASE_MS POKE: a child that takes `lock` in DIRFD, says
 * so on the pipe it returns, sends SIGUSR1 to this process after POKE_MS
 * (0: never), and lets go after RELEASE_MS (its exit). */
static pid_t
holder (int dirfd, int release_ms, int poke_ms, int *ready)
{
  int p[2];
  pid_t pid;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return -1;
  pid = fork ();
  if (pid == 0)
    {
      int fd = openat (dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      struct timespec poke = { poke_ms / 1000, (poke_ms % 1000) * 1000000L };
      struct timespec rest = { (release_ms - poke_ms) / 1000, ((release_ms - poke_ms) % 1000) * 1000000L };
      if (fd < 0 || flock (fd, LOCK_EX) < 0 || write (p[1], "1", 1) != 1)
        _exit (1);
      if (poke_ms > 0)
        {
          nanosleep (&poke, NULL);
          kill (getppid (), SIGUSR1);
        }
      nanosleep (&rest, NULL);
      _exit (0);
    }
  close (p[1]);
  *ready = p[0];
  return pid;
}

/* watcher_wait_done waits in a blocked flock(2), bounded by a timer's
 * SIGALRM: true once the holder lets go, even when another signal comes
 * first; false at the deadline; SIGALRM's action and mask as they were. */
static void
test_wait_done (void)
{
  char dir[] = "/tmp/test_watcher_lock.XXXXXX";
  struct sigaction usr1 = { .sa_handler = on_usr1 }, now;
  sigset_t alrm, mask;
  int dirfd, ready;
  char b;
  pid_t pid;

  if (mkdtemp (dir) == NULL || (dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    {
      ok (0, "mkdtemp");
      return;
    }
  sigaction (SIGUSR1, &usr1, NULL);
  sigemptyset (&alrm);
  sigaddset (&alrm, SIGALRM);
  sigprocmask (SIG_BLOCK, &alrm, NULL);

  pid = holder (dirfd, 300, 100, &ready);
  ok (pid > 0 && read (ready, &b, 1) == 1, "a holder takes the lock");
  ok (watcher_running (dirfd, "lock"), "the lock is held");
  ok (watcher_wait_done (dirfd, "lock", 10000), "the wait ends when the holder lets go, a SIGUSR1 before");
  waitpid (pid, NULL, 0);
  close (ready);

  pid = holder (dirfd, 10000, 0, &ready);
  ok (pid > 0 && read (ready, &b, 1) == 1, "a holder that keeps the lock");
  ok (!watcher_wait_done (dirfd, "lock", 200), "the wait ends at its deadline, the lock still held");
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  close (ready);

  sigaction (SIGALRM, NULL, &now);
  ok (now.sa_handler == SIG_DFL, "SIGALRM's action is back to the default");
  sigprocmask (SIG_SETMASK, NULL, &mask);
  ok (sigismember (&mask, SIGALRM), "and SIGALRM blocked again, as it was");
  sigprocmask (SIG_UNBLOCK, &alrm, NULL);
  signal (SIGUSR1, SIG_DFL);
  ok (watcher_wait_done (dirfd, "lock", 100), "a lock nobody holds: done at once");
  unlinkat (dirfd, "lock", 0);
  close (dirfd);
  rmdir (dir);
}

int
main (void)
{
  test_wait_done ();
  test_spawn_ends_with_ancestor ();
  test_spawn_failure ();
  test_spawn_marks_oom ();
  test_final_marks_before_reads ();
  test_final_partial_read ();
  test_input ();
  return done_testing ();
}
