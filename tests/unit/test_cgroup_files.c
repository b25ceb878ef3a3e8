/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup file parsers and snapshots against a fake cgroupfs: the fixture
 * directories under tests/unit/fixtures/cgroup/ (run from the repo root). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/cgroup_files.h"
#include "first_open.h"
#include "tap.h"
#include "common/util.h"

#define FIXTURES "tests/unit/fixtures/cgroup/"

/* Read a fixture directory; returns 0 or -1 with *err set. */
static int
read_fixture (const char *dir, struct cg_snapshot *snap, shim_error_t *err)
{
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    return shim_error_errno (err, "open fixture `%s`", dir);
  return cg_snapshot_read (fd, snap, err);
}

/* What every snapshot read on this host holds besides the files: the
 * directory's identity, and the cgroup2 mount's memory_localevents when
 * there is a cgroup2 mount. */
static unsigned
host_bits (void)
{
  bool on;
  return CG_SNAP_ID | (cgroup_mount_localevents (&on) == 0 ? CG_SNAP_LOCALEVENTS : 0);
}

static void
test_kernel_6_1 (void)
{
  cleanup_error shim_error_t err = NULL;
  struct cg_snapshot s;
  const unsigned all_ev = CG_EV_LOW | CG_EV_HIGH | CG_EV_MAX | CG_EV_OOM | CG_EV_OOM_KILL
                          | CG_EV_OOM_GROUP_KILL;

  ok (read_fixture (FIXTURES "kernel-6.1", &s, &err) == 0, "6.1: snapshot reads (%s)",
      err ? err->msg : "no error");
  is_int (s.have, CG_SNAP_EVENTS_LOCAL | CG_SNAP_EVENTS | CG_SNAP_PEAK | CG_SNAP_MAX
                      | CG_SNAP_SWAP_MAX | CG_SNAP_STAT | CG_SNAP_CGROUP_EVENTS | CG_SNAP_OOM_GROUP
                      | host_bits (),
          "6.1: every file present");
  ok (s.oom_group, "6.1: memory.oom.group 1");
  {
    struct stat sb;
    ok (stat (FIXTURES "kernel-6.1", &sb) == 0 && s.cgroup_id == (uint64_t) sb.st_ino,
        "6.1: cgroup_id is the directory's inode number");
  }
  is_int (s.events_local.have, all_ev, "6.1: memory.events.local has all six keys");
  is_int (s.events.have, all_ev, "6.1: memory.events has all six keys");
  is_int (s.events_local.max, 1547, "6.1: local max");
  is_int (s.events_local.oom, 1, "6.1: local oom");
  is_int (s.events_local.oom_kill, 3, "6.1: local oom_kill");
  is_int (s.events_local.oom_group_kill, 1, "6.1: local oom_group_kill");
  is_int (s.events.oom_kill, 3, "6.1: tree oom_kill");
  is_int (s.memory_peak, 67108864, "6.1: memory.peak");
  is_int (s.memory_max, 67108864, "6.1: memory.max");
  is_int (s.memory_swap_max, 0, "6.1: memory.swap.max 0 is 0, not unlimited");
  is_int (s.stat.have, CG_STAT_ANON | CG_STAT_FILE | CG_STAT_KERNEL | CG_STAT_SHMEM | CG_STAT_SOCK
                           | CG_STAT_FILE_MAPPED | CG_STAT_ANON_THP,
          "6.1: memory.stat keys, kernel not estimated");
  is_int (s.stat.anon, 60817408, "6.1: anon");
  is_int (s.stat.file, 4460544, "6.1: file");
  is_int (s.stat.kernel, 1794048, "6.1: kernel from its own line");
  is_int (s.stat.shmem, 1048576, "6.1: shmem");
  is_int (s.stat.sock, 4096, "6.1: sock");
  is_int (s.stat.file_mapped, 2252800, "6.1: file_mapped");
  is_int (s.stat.anon_thp, 2097152, "6.1: anon_thp");
  is_int (s.cgroup_events.have, CG_CEV_POPULATED | CG_CEV_FROZEN, "6.1: cgroup.events keys");
  ok (!s.cgroup_events.populated && !s.cgroup_events.frozen, "6.1: not populated, not frozen");
}

static void
test_kernel_5_10 (void)
{
  cleanup_error shim_error_t err = NULL;
  struct cg_snapshot s;

  ok (read_fixture (FIXTURES "kernel-5.10", &s, &err) == 0, "5.10: snapshot reads (%s)",
      err ? err->msg : "no error");
  ok (!(s.have & CG_SNAP_PEAK), "5.10: no memory.peak is absent, not an error");
  ok ((s.have & CG_SNAP_EVENTS_LOCAL) && (s.have & CG_SNAP_EVENTS), "5.10: both events files");
  ok (!(s.events_local.have & CG_EV_OOM_GROUP_KILL), "5.10: oom_group_kill absent locally");
  ok (!(s.events.have & CG_EV_OOM_GROUP_KILL), "5.10: oom_group_kill absent in the tree");
  ok (s.events_local.have & CG_EV_OOM_KILL, "5.10: oom_kill present");
  is_int (s.memory_max, CG_UNLIMITED, "5.10: memory.max `max` is unlimited");
  is_int (s.memory_swap_max, CG_UNLIMITED, "5.10: memory.swap.max `max` is unlimited");
  ok ((s.stat.have & CG_STAT_KERNEL) && (s.stat.have & CG_STAT_KERNEL_ESTIMATED),
      "5.10: kernel estimated without a `kernel` line");
  /* kernel_stack 49152 + percpu 720 + slab 778240; no pagetables or vmalloc. */
  is_int (s.stat.kernel, 49152 + 720 + 778240, "5.10: kernel = kernel_stack + percpu + slab");
  ok (s.cgroup_events.populated && !s.cgroup_events.frozen, "5.10: populated");
}

static void
test_kernel_new (void)
{
  cleanup_error shim_error_t err = NULL;
  struct cg_snapshot s;

  ok (read_fixture (FIXTURES "kernel-new", &s, &err) == 0,
      "newer kernel: unknown keys are ignored (%s)", err ? err->msg : "no error");
  is_int (s.events_local.oom_kill, 2, "newer kernel: local oom_kill");
  is_int (s.events_local.oom_group_kill, 0, "newer kernel: local oom_group_kill 0 is present");
  ok (s.events_local.have & CG_EV_OOM_GROUP_KILL, "newer kernel: oom_group_kill bit set");
  is_int (s.events.oom_kill, 5, "newer kernel: tree oom_kill");
  is_int (s.stat.shmem, 402653184, "newer kernel: shmem");
  ok (!(s.stat.have & CG_STAT_KERNEL_ESTIMATED), "newer kernel: kernel line used");
  ok (s.cgroup_events.frozen, "newer kernel: frozen");
  ok ((s.have & CG_SNAP_OOM_GROUP) && !s.oom_group, "newer kernel: memory.oom.group 0 is present");
  /* pids.events max (6.14's max.imposed ignored) and pids.max. */
  ok ((s.have & CG_SNAP_PIDS_EVENTS) && s.pids_max_events == 7, "newer kernel: pids.events max 7");
  ok ((s.have & CG_SNAP_PIDS_MAX) && s.pids_max == 32, "newer kernel: pids.max 32");
}

static void
test_no_memory (void)
{
  cleanup_error shim_error_t err = NULL;
  struct cg_snapshot s;

  ok (read_fixture (FIXTURES "no-memory", &s, &err) == 0, "no memory controller: reads");
  is_int (s.have, CG_SNAP_CGROUP_EVENTS | host_bits (),
          "no memory controller: only cgroup.events present");
  ok (!(s.have & CG_SNAP_OOM_GROUP), "no memory controller: memory.oom.group absent, not 0");
}

static void
test_malformed (void)
{
  static const struct
  {
    const char *dir, *msg;
  } cases[] = {
    { "no-value", "`memory.events` line 4: no value for `oom`" },
    { "not-a-number", "`memory.events.local` line 5: `oom_kill`: value `1x` is not a number" },
    { "negative", "`memory.stat` line 1: `anon`: value `-4096` is negative" },
    { "out-of-range",
      "`memory.events` line 5: `oom_kill`: value `18446744073709551616` is out of range" },
    { "duplicate", "`memory.events` line 7: duplicate key `oom`" },
    { "empty-line", "`memory.events.local` line 3: empty line" },
    { "limit-word", "`memory.max`: value `unlimited` is not a number" },
    { "peak-two-lines", "`memory.peak`: more than one line" },
    { "peak-empty", "`memory.peak`: empty" },
    { "populated-2", "`cgroup.events`: `populated` is 2, not 0 or 1" },
    { "no-key", "`memory.stat` line 2: no key" },
    { "oom-group-2", "`memory.oom.group`: value `2` is neither 0 nor 1" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_error shim_error_t err = NULL;
      cleanup_free char *dir = NULL;
      struct cg_snapshot s;

      if (asprintf (&dir, FIXTURES "malformed/%s", cases[i].dir) < 0)
        abort ();
      ok (read_fixture (dir, &s, &err) < 0, "malformed %s: fails", cases[i].dir);
      is_str (err ? err->msg : NULL, cases[i].msg, "malformed %s: message", cases[i].dir);
      is_int (err ? err->status : -1, 0, "malformed %s: no errno", cases[i].dir);
    }
}

/* Any error but ENOENT fails the snapshot: a directory where a file should be. */
static void
test_read_error (void)
{
  cleanup_error shim_error_t err = NULL;
  char tmpl[] = "/tmp/test_cgroup_files.XXXXXX";
  char *dir = mkdtemp (tmpl);
  cleanup_close int fd = -1;
  struct cg_snapshot s;

  if (dir == NULL)
    abort ();
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || mkdirat (fd, "memory.events", 0700) < 0)
    abort ();
  ok (cg_snapshot_read (fd, &s, &err) < 0, "EISDIR fails the snapshot");
  is_str (err ? err->msg : NULL, "read `memory.events`: Is a directory",
          "EISDIR message names the file");
  unlinkat (fd, "memory.events", AT_REMOVEDIR);
  rmdir (dir);
}

/* cgroup.events is read first: the counters read after it said "empty"
 * are final, and a cgroup that empties during the reads must not make
 * counters read before look final.  inotify reports the opens in order. */
static void
test_events_first (void)
{
  static const char *names[] = { "memory.events.local", "memory.events", "memory.stat", "cgroup.events" };
  cleanup_error shim_error_t err = NULL;
  char tmpl[] = "/tmp/test_cgroup_files.XXXXXX";
  char *dir = mkdtemp (tmpl);
  cleanup_close int fd = -1, in = -1;
  char first[64];
  struct cg_snapshot s;

  if (dir == NULL)
    abort ();
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  in = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0 || in < 0)
    abort ();
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      cleanup_close int f = openat (fd, names[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      const char *text = i == 3 ? "populated 0\nfrozen 0\n" : i == 2 ? "anon 1\n" : "oom 0\noom_kill 0\n";
      if (f < 0 || write (f, text, strlen (text)) < 0)
        abort ();
    }
  if (inotify_add_watch (in, dir, IN_OPEN) < 0)
    abort ();
  ok (cg_snapshot_read (fd, &s, &err) == 0, "the snapshot reads");
  is_str (first_open (in, first, sizeof first), "cgroup.events", "cgroup.events is opened before any counter");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    unlinkat (fd, names[i], 0);
  rmdir (dir);
}

/* Parsers on buffers: what the fixtures do not show. */
static void
test_parsers (void)
{
  cleanup_error shim_error_t err = NULL;
  struct cg_memory_events ev;
  struct cg_memory_stat st;
  uint64_t v;

  ok (cg_parse_memory_events ("memory.events", "oom 1\noom_kill 2", &ev, &err) == 0,
      "last line without a newline is accepted");
  is_int (ev.oom_kill, 2, "  and parsed");
  is_int (ev.have, CG_EV_OOM | CG_EV_OOM_KILL, "missing keys leave their bits clear");
  ok (cg_parse_memory_events ("memory.events", "", &ev, &err) == 0 && ev.have == 0,
      "an empty file has no keys");
  ok (cg_parse_memory_events ("memory.events", "future_key x y\nfuture_key 3\noom 0\n", &ev, &err)
          == 0,
      "unknown keys: any value, repeated, ignored");
  ok (cg_parse_memory_events ("memory.events", "oom  1\n", &ev, &err) < 0,
      "two spaces are not the kernel's format");
  is_str (err ? err->msg : NULL, "`memory.events` line 1: `oom`: value ` 1` is not a number",
          "  message");
  shim_error_release (&err);
  ok (cg_parse_memory_events ("memory.events", "oom 9223372036854775807\n", &ev, &err) == 0
          && ev.oom == 9223372036854775807ULL,
      "INT64_MAX is accepted");
  ok (cg_parse_memory_events ("memory.events", "oom 9223372036854775808\n", &ev, &err) < 0,
      "INT64_MAX + 1 is out of range (JSON integers are signed)");
  shim_error_release (&err);
  ok (cg_parse_memory_events ("x", "oom -\n", &ev, &err) < 0, "a lone minus fails");
  is_str (err ? err->msg : NULL, "`x` line 1: `oom`: value `-` is not a number", "  message");
  shim_error_release (&err);

  ok (cg_parse_memory_stat ("memory.stat", "anon 1\nkernel_stack 10\nslab_reclaimable 5\n"
                                           "slab_unreclaimable 7\npagetables 3\n",
                            &st, &err)
          == 0,
      "stat without `kernel` or `slab`");
  is_int (st.kernel, 10 + 5 + 7 + 3, "  kernel from kernel_stack + slab parts + pagetables");
  ok (st.have & CG_STAT_KERNEL_ESTIMATED, "  estimated");
  ok (cg_parse_memory_stat ("memory.stat", "anon 1\nfile 2\n", &st, &err) == 0
          && !(st.have & CG_STAT_KERNEL),
      "stat without anything to estimate kernel from: kernel absent");

  ok (cg_parse_limit_file ("pids.max", "max\n", &v, &err) == 0 && v == CG_UNLIMITED,
      "pids.max max");
  ok (cg_parse_limit_file ("memory.max", "4096", &v, &err) == 0 && v == 4096,
      "memory.max number without newline");
  ok (cg_parse_limit_file ("memory.max", "max max\n", &v, &err) < 0, "`max max` fails");
  shim_error_release (&err);
  ok (cg_parse_u64_file ("memory.current", "max\n", &v, &err) < 0,
      "memory.current does not accept max");
  is_str (err ? err->msg : NULL, "`memory.current`: value `max` is not a number", "  message");
  shim_error_release (&err);
}

/* JSON: round trips, one golden string, errors. */
static void
test_json (void)
{
  static const char *const dirs[] = { "kernel-6.1", "kernel-5.10", "kernel-new", "no-memory" };
  static const char *const golden_5_10
      = "{\"memory.events.local\":{\"low\":0,\"high\":0,\"max\":0,\"oom\":0,\"oom_kill\":0},"
        "\"memory.events\":{\"low\":0,\"high\":0,\"max\":0,\"oom\":0,\"oom_kill\":0},"
        "\"memory.peak\":null,\"memory.max\":\"max\",\"memory.swap.max\":\"max\","
        "\"memory.stat\":{\"anon\":8785920,\"file\":12300288,\"kernel\":828112,\"shmem\":0,"
        "\"sock\":0,\"file_mapped\":5677056,\"anon_thp\":0,\"kernel_estimated\":true},"
        "\"cgroup.events\":{\"populated\":true,\"frozen\":false},"
        "\"memory.oom.group\":null,\"cgroup.id\":null,\"memory_localevents\":null}";

  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    {
      cleanup_error shim_error_t err = NULL;
      cleanup_free char *dir = NULL, *json = NULL, *again = NULL;
      struct cg_snapshot s, back;

      if (asprintf (&dir, FIXTURES "%s", dirs[i]) < 0 || read_fixture (dir, &s, &err) < 0)
        abort ();
      /* The golden string has no inode number, which varies. */
      if (strcmp (dirs[i], "kernel-5.10") == 0)
        {
          s.have &= ~(CG_SNAP_ID | CG_SNAP_LOCALEVENTS);
          s.cgroup_id = 0;
          s.localevents = false;
        }
      ok (cg_snapshot_to_json (&s, &json, &err) == 0, "%s: to JSON", dirs[i]);
      ok (cg_snapshot_from_json (json, "test", &back, &err) == 0, "%s: from JSON (%s)", dirs[i],
          err ? err->msg : "no error");
      ok (cg_snapshot_to_json (&back, &again, &err) == 0, "%s: to JSON again", dirs[i]);
      is_str (again, json, "%s: round trip is exact", dirs[i]);
      ok (back.have == s.have && back.events_local.have == s.events_local.have
              && back.events_local.oom_kill == s.events_local.oom_kill
              && back.events.oom_group_kill == s.events.oom_group_kill
              && back.memory_max == s.memory_max && back.memory_peak == s.memory_peak
              && back.stat.have == s.stat.have && back.stat.kernel == s.stat.kernel
              && back.cgroup_events.have == s.cgroup_events.have
              && back.cgroup_events.frozen == s.cgroup_events.frozen
              && back.oom_group == s.oom_group && back.cgroup_id == s.cgroup_id
              && back.localevents == s.localevents && back.pids_max_events == s.pids_max_events
              && back.pids_max == s.pids_max,
          "%s: fields survive the round trip", dirs[i]);
      if (strcmp (dirs[i], "kernel-5.10") == 0)
        is_str (json, golden_5_10, "kernel-5.10: golden JSON");
    }

  {
    cleanup_error shim_error_t err = NULL;
    struct cg_snapshot s;

    ok (cg_snapshot_from_json ("{\"memory.events\":{\"oom\":-1}}", "state.json", &s, &err) < 0,
        "from JSON: negative counter fails");
    is_str (err ? err->msg : NULL,
            "`state.json`: `memory.events.oom` is not a non-negative integer", "  message");
    shim_error_release (&err);
    ok (cg_snapshot_from_json ("{\"memory.max\":\"unlimited\"}", "state.json", &s, &err) < 0,
        "from JSON: a limit string other than max fails");
    shim_error_release (&err);
    ok (cg_snapshot_from_json ("{\"memory.events\":", "state.json", &s, &err) < 0,
        "from JSON: truncated JSON fails");
    has_str (err ? err->msg : NULL, "`state.json`: invalid JSON", "  message");
    shim_error_release (&err);
    ok (cg_snapshot_from_json ("{\"future\":1,\"memory.peak\":5}", "state.json", &s, &err) == 0
            && s.have == CG_SNAP_PEAK && s.memory_peak == 5,
        "from JSON: unknown fields ignored, missing parts absent");
  }
}

/* The new evidence survives JSON: memory.oom.group, the cgroup's id, and
 * the mount's memory_localevents, each absent (null) when not known. */
static void
test_json_identity (void)
{
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *json = NULL;
  struct cg_snapshot s = { .have = CG_SNAP_OOM_GROUP | CG_SNAP_ID | CG_SNAP_LOCALEVENTS,
                           .oom_group = true,
                           .cgroup_id = 4242,
                           .localevents = true },
                     back;

  ok (cg_snapshot_to_json (&s, &json, &err) == 0, "identity: to JSON");
  has_str (json, "\"memory.oom.group\":1,\"cgroup.id\":4242,\"memory_localevents\":true",
           "identity: the three keys");
  ok (cg_snapshot_from_json (json, "t", &back, &err) == 0 && back.have == s.have && back.oom_group
          && back.cgroup_id == 4242 && back.localevents,
      "identity: read back");
  ok (cg_snapshot_from_json ("{\"memory_localevents\":1}", "t", &back, &err) < 0,
      "identity: memory_localevents must be a boolean");
  shim_error_release (&err);
  ok (cg_snapshot_from_json ("{\"memory.oom.group\":3}", "t", &back, &err) < 0,
      "identity: memory.oom.group is 0 or 1");
}

/* memory_localevents from mountinfo's super options of the cgroup2 mount. */
static void
test_mountinfo_localevents (void)
{
  static const char hybrid[]
      = "25 1 0:23 / /sys rw,nosuid - sysfs sysfs rw\n"
        "33 25 0:28 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
        "41 33 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "45 33 0:39 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
  static const char local[]
      = "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
        "rw,nsdelegate,memory_localevents,memory_recursiveprot\n";
  static const char other[] = "30 25 0:26 / /mnt/x rw - cgroup2 cgroup2 rw,memory_localevents\n";
  bool on = true;

  is_int (cgroup_parse_mountinfo_localevents (hybrid, "/sys/fs/cgroup/unified", &on), 1,
          "hybrid: the unified mount is found");
  ok (!on, "hybrid: no memory_localevents");
  is_int (cgroup_parse_mountinfo_localevents (local, "/sys/fs/cgroup", &on), 1,
          "v2 with options: found");
  ok (on, "v2 with options: memory_localevents");
  is_int (cgroup_parse_mountinfo_localevents (other, "/sys/fs/cgroup", &on), 0,
          "another mount point: not this one");
  is_int (cgroup_parse_mountinfo_localevents (other, NULL, &on), 1, "NULL: the first cgroup2 mount");
  ok (on, "NULL: its option");
  is_int (cgroup_parse_mountinfo_localevents (hybrid + 0, "/sys", &on), 0,
          "a mount that is not cgroup2 is not read");
}

/* The watchers stop on populated 0, or when cgroup.events can no longer be
 * read because the cgroup is gone. */
static void
test_events_fd_ended (void)
{
  int empty = open ("tests/unit/fixtures/cgroup/kernel-6.1/cgroup.events", O_RDONLY | O_CLOEXEC);
  int busy = open ("tests/unit/fixtures/cgroup/kernel-5.10/cgroup.events", O_RDONLY | O_CLOEXEC);
  int dir = open ("tests/unit/fixtures/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  ok (empty >= 0 && cg_events_fd_ended (empty), "cgroup.events with populated 0 has ended");
  ok (busy >= 0 && !cg_events_fd_ended (busy), "cgroup.events with populated 1 has not ended");
  ok (dir >= 0 && cg_events_fd_ended (dir), "an unreadable cgroup.events (cgroup gone) has ended");
  close (empty);
  close (busy);
  close (dir);
}

int
main (void)
{
  test_kernel_6_1 ();
  test_kernel_5_10 ();
  test_kernel_new ();
  test_no_memory ();
  test_malformed ();
  test_read_error ();
  test_events_first ();
  test_parsers ();
  test_json ();
  test_json_identity ();
  test_mountinfo_localevents ();
  test_events_fd_ended ();
  return done_testing ();
}
