/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup v1 manager against a fake cgroupfs: directories and regular
 * files under a temporary directory, named by a fake /proc/self/mountinfo
 * (cgroup_v1_set_mountinfo).  No cgroup2 line: a pure v1 host, where the
 * tree is killed through the freezer.  What a regular file cannot fake
 * (the kernel's checks, the OOM eventfd firing) is tested on a real v1
 * memory hierarchy when there is one and we are root; the rest of the
 * real behaviour is in tests/integration/cgroup_v1_*.bats. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/util.h"
#include "first_open.h"
#include "tap.h"

static char root[64];

/* The hierarchies of the fake host: dir name, super options. */
static const char *const hier[][2] = {
  { "memory", "rw,memory" },   { "pids", "rw,pids" },       { "cpu,cpuacct", "rw,cpu,cpuacct" },
  { "cpuset", "rw,cpuset" },   { "freezer", "rw,freezer" }, { "devices", "rw,devices" },
  { "blkio", "rw,blkio" },     { "hugetlb", "rw,hugetlb" }, { "systemd", "rw,name=systemd" },
};
#define N_HIER (sizeof (hier) / sizeof (hier[0]))

static void
put (const char *dir, const char *file, const char *content)
{
  char p[512];
  FILE *f;
  snprintf (p, sizeof p, "%s/%s/%s", root, dir, file);
  f = fopen (p, "w");
  if (f == NULL)
    {
      diag ("cannot write %s: %s", p, strerror (errno));
      return;
    }
  fputs (content, f);
  fclose (f);
}

/* The file's content, malloc'd ("" when missing). */
static char *
get (const char *dir, const char *file)
{
  char p[512];
  char *buf = NULL;
  shim_error_t err = NULL;
  snprintf (p, sizeof p, "%s/%s/%s", root, dir, file);
  if (util_read_file_at (AT_FDCWD, p, &buf, NULL, &err) < 0)
    {
      shim_error_release (&err);
      return strdup ("");
    }
  return buf;
}

static bool
exists (const char *dir)
{
  char p[512];
  struct stat sb;
  snprintf (p, sizeof p, "%s/%s", root, dir);
  return stat (p, &sb) == 0;
}

/* The fake host: every hierarchy mounted under root, with /shim/c1 made (as
 * an engine would) and the files the manager writes, empty. */
static void
fake_host (void)
{
  static const char *const files[] = {
    "cgroup.procs",          "tasks",                  "memory.limit_in_bytes",  "memory.memsw.limit_in_bytes",
    "memory.soft_limit_in_bytes", "pids.max",          "cpu.shares",
    "cpu.cfs_quota_us",      "cpu.cfs_period_us",      "cpuset.cpus",
    "cpuset.mems",           "freezer.state",          "devices.allow",
    "devices.deny",          "blkio.weight",           "cgroup.event_control",
    "memory.oom_control",    "cpu.rt_period_us",       "cpu.rt_runtime_us",
    "blkio.weight_device",   "blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
    "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device", "hugetlb.2MB.limit_in_bytes",
  };
  char text[4096] = "", p[512];
  size_t i, j;

  for (i = 0; i < N_HIER; i++)
    {
      char line[512];
      snprintf (p, sizeof p, "%s/%s", root, hier[i][0]);
      mkdir (p, 0755);
      snprintf (p, sizeof p, "%s/%s/shim", root, hier[i][0]);
      mkdir (p, 0755);
      snprintf (p, sizeof p, "%s/%s/shim/c1", root, hier[i][0]);
      mkdir (p, 0755);
      for (j = 0; j < sizeof files / sizeof files[0]; j++)
        {
          snprintf (p, sizeof p, "%s/shim/c1", hier[i][0]);
          put (p, files[j], "");
        }
      snprintf (p, sizeof p, "%s/shim/c1", hier[i][0]);
      put (p, "freezer.state", "THAWED");
      snprintf (p, sizeof p, "%s/shim", hier[i][0]);
      put (p, "cpuset.cpus", strcmp (hier[i][0], "cpuset") == 0 ? "0-1\n" : "");
      put (p, "cpuset.mems", strcmp (hier[i][0], "cpuset") == 0 ? "0\n" : "");
      snprintf (line, sizeof line, "%zu 31 0:%zu / %s/%s rw,relatime shared:%zu - cgroup cgroup %s\n", 32 + i, 29 + i,
                root, hier[i][0], 10 + i, hier[i][1]);
      strcat (text, line);
    }
  strcat (text, "30 23 0:27 / /proc rw,nosuid - proc proc rw\n");
  cgroup_v1_set_mountinfo (text);
}

/* JOIN the child's side of CG, in this process: on the fake host its
 * `tasks` files are plain files, each then holding "0". */
static void
join (const struct cgroup *cg, const char *what)
{
  cleanup_error shim_error_t err = NULL;
  struct cgroup_join j;

  ok (cgroup_join_open (cg, &j, &err) == 0 && cgroup_join_self (&j, &err) == 0, "join %s: %s", what,
      err ? err->msg : "ok");
  cgroup_join_close (&j);
}

static pid_t
sleeper (void)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      pause ();
      _exit (0);
    }
  return pid;
}

static void
test_create_pure_v1 (void)
{
  struct cgroup_resources r = { 0 };
  struct cgroup_spec spec = { .cgroups_path = "/shim/c1", .id = "c1", .resources = &r, .owner = CGROUP_NO_OWNER };
  struct cgroup cg;
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *lim = NULL, *memsw = NULL, *soft = NULL, *pids = NULL, *shares = NULL, *quota = NULL,
                    *period = NULL, *cpus = NULL, *mems = NULL, *procs = NULL, *mprocs = NULL, *weight = NULL;
  pid_t child;

  r.has_memory_limit = true;
  r.memory_limit = 33554432;
  r.has_memory_reservation = true;
  r.memory_reservation = 16777216;
  r.has_pids_limit = true;
  r.pids_limit = 10;
  r.has_cpu_shares = true;
  r.cpu_shares = 512;
  r.has_cpu_quota = r.has_cpu_period = true;
  r.cpu_quota = 50000;
  r.cpu_period = 100000;
  r.has_blkio_weight = true;
  r.blkio_weight = 300;

  ok (cgroup_manager_detect () != NULL && strcmp (cgroup_manager_detect ()->name, "cgroupfs v1") == 0,
      "controllers on v1 hierarchies: the v1 manager");
  if (!ok (cgroup_create (&spec, &cg, &err) == 0, "create on a pure v1 host"))
    {
      diag ("%s", err->msg);
      return;
    }
  ok (!cg.created, "an existing empty cgroup is adopted, not made");
  is_int (cgroup_clone_fd (&cg), -1, "no cgroup2: nothing to CLONE_INTO_CGROUP");
  ok (cg.dirfd >= 0 && cgroup_memory_dirfd (&cg) >= 0, "the memory hierarchy's directory stands in for dirfd");
  ok (cg.memory_limit_enforced, "the memory limit is enforced");
  is_str (lim = get ("memory/shim/c1", "memory.limit_in_bytes"), "33554432", "memory.limit_in_bytes");
  is_str (memsw = get ("memory/shim/c1", "memory.memsw.limit_in_bytes"), "33554432",
          "no swap given: memsw is the limit (no swap)");
  is_str (soft = get ("memory/shim/c1", "memory.soft_limit_in_bytes"), "16777216", "reservation: soft limit");
  is_str (pids = get ("pids/shim/c1", "pids.max"), "10", "pids.max");
  is_str (shares = get ("cpu,cpuacct/shim/c1", "cpu.shares"), "512", "cpu.shares in the co-mounted cpu,cpuacct");
  is_str (quota = get ("cpu,cpuacct/shim/c1", "cpu.cfs_quota_us"), "50000", "cpu.cfs_quota_us");
  is_str (period = get ("cpu,cpuacct/shim/c1", "cpu.cfs_period_us"), "100000", "cpu.cfs_period_us");
  is_str (cpus = get ("cpuset/shim/c1", "cpuset.cpus"), "0-1\n", "an empty cpuset.cpus gets the parent's");
  is_str (mems = get ("cpuset/shim/c1", "cpuset.mems"), "0\n", "an empty cpuset.mems gets the parent's");
  is_str (weight = get ("blkio/shim/c1", "blkio.weight"), "300", "blkio.weight");

  /* Reaped by the kernel: a zombie would look alive to the wait. */
  signal (SIGCHLD, SIG_IGN);
  child = sleeper ();
  {
    struct cgroup_join j;
    char want[32];
    ok (!cgroup_enter_needed (&cg), "nothing for the runtime to enter on v1: the child joins itself");
    ok (cgroup_join_open (&cg, &j, &err) == 0 && cgroup_join_pending (&j), "the join's files open");
    ok (cgroup_join_self (&j, &err) == 0, "join");
    cgroup_join_close (&j);
    is_str (procs = get ("freezer/shim/c1", "tasks"), "0", "the child names itself in the freezer hierarchy");
    is_str (mprocs = get ("memory/shim/c1", "tasks"), "0", "and in the memory hierarchy");
    free (procs);
    procs = get ("systemd/shim/c1", "tasks");
    is_str (procs, "", "not in a named hierarchy (name=systemd)");
    /* What the kernel would show from then on. */
    snprintf (want, sizeof want, "%d", (int) child);
    for (size_t i = 0; i < N_HIER - 1; i++)
      {
        char p[128];
        snprintf (p, sizeof p, "%s/shim/c1", hier[i][0]);
        put (p, "cgroup.procs", want);
      }
  }

  {
    cleanup_free char *st = NULL;
    ok (cgroup_freeze (&cg, true, &err) == 0, "pause through the v1 freezer");
    is_str (st = get ("freezer/shim/c1", "freezer.state"), "FROZEN", "freezer.state FROZEN");
    free (st);
    ok (cgroup_freeze (&cg, false, &err) == 0, "resume");
    is_str (st = get ("freezer/shim/c1", "freezer.state"), "THAWED", "freezer.state THAWED");
  }

  if (!ok (cgroup_destroy (&cg, &err) == 0, "destroy kills through the freezer"))
    diag ("%s", err->msg);
  ok (kill (child, 0) < 0 && errno == ESRCH, "the task in the cgroup was killed");
  signal (SIGCHLD, SIG_DFL);
  ok (exists ("memory/shim/c1"), "a cgroup we did not make is not removed");
  cgroup_release (&cg);
  for (size_t i = 0; i < N_HIER; i++)
    {
      char p[128];
      snprintf (p, sizeof p, "%s/shim/c1", hier[i][0]);
      put (p, "cgroup.procs", ""); /* the fake's kernel forgets the dead */
    }
}

/* Made by us, then a write fails: every hierarchy's new directories go. */
static void
test_failed_create_removes (void)
{
  struct cgroup_resources r = { 0 };
  struct cgroup_spec spec = { .cgroups_path = "/shim/new/c2", .id = "c2", .resources = &r, .owner = CGROUP_NO_OWNER };
  struct cgroup cg;
  cleanup_error shim_error_t err = NULL;
  size_t i;
  bool any = false;

  r.has_pids_limit = true;
  r.pids_limit = 5;
  /* The fake's new directories have no files: the first write fails. */
  ok (cgroup_create (&spec, &cg, &err) < 0, "create fails where a file cannot be written");
  for (i = 0; i < N_HIER - 1; i++)
    {
      char p[128];
      snprintf (p, sizeof p, "%s/shim/new", hier[i][0]);
      any = any || exists (p);
    }
  ok (!any, "no directory made is left in any hierarchy");
  cgroup_release (&cg);
}

static void
test_refused (void)
{
  struct cgroup_resources r = { 0 };
  struct util_kv kv = { "memory.high", "1000000" };
  struct cgroup_spec spec = { .cgroups_path = "/shim/c1", .id = "c1", .resources = &r, .owner = CGROUP_NO_OWNER };
  struct cgroup cg;
  cleanup_error shim_error_t err = NULL;

  r.unified = &kv;
  r.n_unified = 1;
  ok (cgroup_create (&spec, &cg, &err) < 0, "a unified key v1 cannot express is refused");
  has_str (err ? err->msg : NULL, "linux.resources.unified.memory.high: cannot enforce it",
           "by name");
  cgroup_release (&cg);
  shim_error_release (&err);
  spec.allow_unenforced = true;
  ok (cgroup_create (&spec, &cg, &err) == 0, "--allow-unenforced-limits runs without it");
  has_str (cg.unenforced_reason, "memory.high", "and says what is not enforced");
  cgroup_release (&cg);
}

/* A freezer cgroup left FROZEN (or FREEZING under a frozen parent) would
 * stop init before its first instruction: refused at create. */
static void
test_refused_frozen (void)
{
  static const char *const states[] = { "FROZEN\n", "FREEZING\n" };
  struct cgroup_resources r = { 0 };
  struct cgroup_spec spec = { .cgroups_path = "/shim/c1", .id = "c1", .resources = &r, .owner = CGROUP_NO_OWNER };
  size_t i;

  for (i = 0; i < 2; i++)
    {
      struct cgroup cg;
      cleanup_error shim_error_t err = NULL;
      put ("freezer/shim/c1", "freezer.state", states[i]);
      ok (cgroup_create (&spec, &cg, &err) < 0, "a v1 freezer cgroup not THAWED is refused");
      has_str (err ? err->msg : NULL, "container's cgroup unexpectedly frozen (cgroup `/shim/c1` in freezer is ",
               "in runc's words, naming the cgroup");
      cgroup_release (&cg);
    }
  ok (exists ("memory/shim/c1"), "the cgroup someone else made stays");
  put ("freezer/shim/c1", "freezer.state", "THAWED");
}

/* The ordering rule needs the kernel: memsw below the limit is EINVAL. */
static void
test_update (void)
{
  struct cgroup cg;
  struct cgroup_resources r = { 0 };
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *lim = NULL, *pids = NULL;

  if (!ok (cgroup_open ("/shim/c1", 0, &cg, &err) == 0, "open"))
    return;
  put ("memory/shim/c1", "memory.limit_in_bytes", "");
  put ("memory/shim/c1", "memory.memsw.limit_in_bytes", "");
  put ("pids/shim/c1", "pids.max", "");
  r.has_memory_limit = true;
  r.memory_limit = 67108864;
  r.has_pids_limit = true;
  r.pids_limit = -1;
  ok (cgroup_update (&cg, &r, &err) == 0, "update");
  is_str (lim = get ("memory/shim/c1", "memory.limit_in_bytes"), "67108864", "memory.limit_in_bytes updated");
  is_str (pids = get ("pids/shim/c1", "pids.max"), "max", "pids -1: max");
  cgroup_release (&cg);
}

/* An update without swap leaves memsw as it was (runc's setMemoryAndSwap
 * with its update's unset swap); a container without swap (memsw equal to
 * the limit) stays without; a limit above memsw is refused by name; -1
 * takes memsw along. */
static void
test_update_keeps_swap (void)
{
  struct cgroup cg;
  struct cgroup_resources r = { .has_memory_limit = true };
  cleanup_error shim_error_t err = NULL;
  char *v;

  if (!ok (cgroup_open ("/shim/c1", 0, &cg, &err) == 0, "open"))
    return;
  /* (A regular file is not truncated by a write: each value is as long as
   * the one before, or longer.) */
  put ("memory/shim/c1", "memory.limit_in_bytes", "67108864");
  put ("memory/shim/c1", "memory.memsw.limit_in_bytes", "268435456");
  r.memory_limit = 33554432;
  if (!ok (cgroup_update (&cg, &r, &err) == 0, "update --memory of a container with swap"))
    diag ("%s", err->msg);
  is_str (v = get ("memory/shim/c1", "memory.limit_in_bytes"), "33554432", "the limit written");
  free (v);
  is_str (v = get ("memory/shim/c1", "memory.memsw.limit_in_bytes"), "268435456", "memsw as it was");
  free (v);

  put ("memory/shim/c1", "memory.limit_in_bytes", "67108864");
  r.memory_limit = 536870912;
  ok (cgroup_update (&cg, &r, &err) < 0, "a limit above memsw without swap is refused");
  if (err)
    is_str (err->msg,
            "linux.resources.memory.limit: 536870912 is above the container's memory+swap limit 268435456 "
            "(memory.memsw.limit_in_bytes): give the swap too (linux.resources.memory.swap, --memory-swap)",
            "... naming both limits");
  shim_error_release (&err);
  is_str (v = get ("memory/shim/c1", "memory.limit_in_bytes"), "67108864", "... and writing nothing");
  free (v);

  put ("memory/shim/c1", "memory.memsw.limit_in_bytes", "67108864");
  r.memory_limit = 134217728;
  if (!ok (cgroup_update (&cg, &r, &err) == 0, "update --memory of a container without swap"))
    diag ("%s", err->msg);
  is_str (v = get ("memory/shim/c1", "memory.memsw.limit_in_bytes"), "134217728", "memsw follows: still no swap");
  free (v);

  put ("memory/shim/c1", "memory.limit_in_bytes", "");
  put ("memory/shim/c1", "memory.memsw.limit_in_bytes", "");
  r.memory_limit = -1;
  if (!ok (cgroup_update (&cg, &r, &err) == 0, "update --memory -1"))
    diag ("%s", err->msg);
  is_str (v = get ("memory/shim/c1", "memory.memsw.limit_in_bytes"), "-1", "memsw -1 too, as runc");
  free (v);
  is_str (v = get ("memory/shim/c1", "memory.limit_in_bytes"), "-1", "the limit -1");
  free (v);
  cgroup_release (&cg);
}

/* The fields beyond the limits: each to its v1 file, in its hierarchy. */
static void
test_update_more (void)
{
  struct cgroup cg;
  struct cgroup_resources r = { 0 };
  struct cgroup_blkio_device dev[] = {
    { CGROUP_BLKIO_WEIGHT, 8, 0, 300 },          { CGROUP_BLKIO_READ_BPS, 254, 0, 1048576 },
    { CGROUP_BLKIO_WRITE_BPS, 254, 0, 2097152 }, { CGROUP_BLKIO_READ_IOPS, 254, 0, 100 },
    { CGROUP_BLKIO_WRITE_IOPS, 254, 1, 200 },
  };
  struct cgroup_hugepage_limit huge = { (char *) "2MB", 4194304 };
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *oom = NULL, *rtp = NULL, *rtr = NULL, *wd = NULL, *rb = NULL, *wb = NULL, *ri = NULL,
                    *wi = NULL, *hl = NULL;

  if (!ok (cgroup_open ("/shim/c1", 0, &cg, &err) == 0, "open"))
    return;
  r.oom_kill_disable = true;
  r.has_cpu_rt_period = r.has_cpu_rt_runtime = true;
  r.cpu_rt_period = 1000000;
  r.cpu_rt_runtime = 0;
  r.blkio_devices = dev;
  r.n_blkio_devices = 5;
  r.hugepages = &huge;
  r.n_hugepages = 1;
  if (!ok (cgroup_update (&cg, &r, &err) == 0, "update with the other fields"))
    diag ("%s", err->msg);
  is_str (oom = get ("memory/shim/c1", "memory.oom_control"), "1", "disableOOMKiller: memory.oom_control 1");
  is_str (rtp = get ("cpu,cpuacct/shim/c1", "cpu.rt_period_us"), "1000000", "cpu.rt_period_us");
  is_str (rtr = get ("cpu,cpuacct/shim/c1", "cpu.rt_runtime_us"), "0", "cpu.rt_runtime_us");
  is_str (wd = get ("blkio/shim/c1", "blkio.weight_device"), "8:0 300", "blkio.weight_device");
  is_str (rb = get ("blkio/shim/c1", "blkio.throttle.read_bps_device"), "254:0 1048576", "read_bps_device");
  is_str (wb = get ("blkio/shim/c1", "blkio.throttle.write_bps_device"), "254:0 2097152", "write_bps_device");
  is_str (ri = get ("blkio/shim/c1", "blkio.throttle.read_iops_device"), "254:0 100", "read_iops_device");
  is_str (wi = get ("blkio/shim/c1", "blkio.throttle.write_iops_device"), "254:1 200", "write_iops_device");
  is_str (hl = get ("hugetlb/shim/c1", "hugetlb.2MB.limit_in_bytes"), "4194304", "hugetlb.2MB.limit_in_bytes");
  cgroup_release (&cg);
}

/* A relative cgroupsPath resolved per hierarchy at create: the later
 * commands open each hierarchy's own directory from cgroup.v1_paths. */
static void
test_open_paths (void)
{
  struct cgroup cg;
  struct cgroup_resources r = { 0 };
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *lim = NULL, *pids = NULL, *stray = NULL;
  char p[512];

  snprintf (p, sizeof p, "%s/memory/own", root);
  mkdir (p, 0755);
  snprintf (p, sizeof p, "%s/memory/own/c1", root);
  mkdir (p, 0755);
  put ("memory/own/c1", "memory.limit_in_bytes", "");
  put ("memory/shim/c1", "memory.limit_in_bytes", "");
  put ("pids/shim/c1", "pids.max", "");
  if (!ok (cgroup_open_paths ("/shim/c1", "memory /own/c1\n", 0, &cg, &err) == 0, "open with v1 paths"))
    return;
  r.has_memory_limit = true;
  r.memory_limit = 16777216;
  r.has_pids_limit = true;
  r.pids_limit = 7;
  ok (cgroup_update (&cg, &r, &err) == 0, "update");
  is_str (lim = get ("memory/own/c1", "memory.limit_in_bytes"), "16777216", "memory: its own path, /own/c1");
  is_str (stray = get ("memory/shim/c1", "memory.limit_in_bytes"), "", "not the one path");
  is_str (pids = get ("pids/shim/c1", "pids.max"), "7", "pids: the one path");
  cgroup_release (&cg);
}

/* exec --cgroup's path rule: runc's path.Join, then under the base. */
static void
test_sub_path (void)
{
  static const struct
  {
    const char *sub, *rel; /* rel NULL: refused */
  } cases[] = {
    { "sub", "sub" },       { "/sub", "sub" },      { "/", "." },          { "", "." },
    { "a/./b/", "a/b" },    { "a/../b", "b" },      { "sub/..", "." },     { "../c1", "." },
    { "..", NULL },         { "../c2", NULL },      { "a/../../x", NULL }, { "../../shim/c1/x", "x" },
    { "../c1x", NULL },     { "/../../..", NULL },
  };
  size_t i;

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_error shim_error_t err = NULL;
      cleanup_free char *rel = NULL;
      int r = cgroup_sub_path ("/shim/c1", cases[i].sub, &rel, &err);
      if (cases[i].rel)
        is_str (rel, cases[i].rel, "sub path `%s` under /shim/c1", cases[i].sub);
      else
        ok (r < 0 && err->status == EXDEV && strstr (err->msg, "is not a sub cgroup path") != NULL,
            "sub path `%s` refused: %s", cases[i].sub, err ? err->msg : "(accepted)");
    }
}

/* exec --cgroup on the fake v1 host: CTRL:PATH moves those hierarchies
 * only, PATH alone every one; runc's refusals. */
static void
test_sub_open (void)
{
  static const struct
  {
    const char *args[3];
    const char *msg;
  } bad[] = {
    { { "..", NULL }, ".. is not a sub cgroup path" },
    { { "memory:../x", NULL }, "../x is not a sub cgroup path" },
    { { "whaaat:/", NULL }, "unknown controller whaaat" },
    { { "sub", "memory:sub", NULL }, "missing <controller>: prefix" },
    { { "memory:sub", "memory,pids:other", NULL }, "controller memory specified multiple times" },
    { { ",memory:sub", NULL }, "empty <controller> prefix" },
    { { "cpu:sub", "cpuacct:other", NULL }, "share one cgroup" },
    { { "pids:nosuch", NULL }, "open `nosuch` under the container's cgroup in pids" },
  };
  struct cgroup cg, sub;
  cleanup_error shim_error_t err = NULL;
  cleanup_free char *mem = NULL, *cpu = NULL, *pids = NULL, *mem2 = NULL, *pids2 = NULL;
  char *args[] = { (char *) "memory:sub", (char *) "cpu,cpuacct:/subcpu" };
  size_t i, j;

  for (i = 0; i < N_HIER; i++)
    for (j = 0; j < 3; j++)
      {
        static const char *const dirs[] = { "", "/sub", "/subcpu" };
        char p[512];
        snprintf (p, sizeof p, "%s/%s/shim/c1%s", root, hier[i][0], dirs[j]);
        mkdir (p, 0755);
        snprintf (p, sizeof p, "%s/shim/c1%s", hier[i][0], dirs[j]);
        put (p, "cgroup.procs", "");
        put (p, "tasks", "");
      }
  if (!ok (cgroup_open ("/shim/c1", 0, &cg, &err) == 0, "open"))
    return;
  if (ok (cgroup_sub_open (&cg, args, 2, &sub, &err) == 0, "memory:sub and cpu,cpuacct:/subcpu: %s",
          err ? err->msg : "ok"))
    {
      join (&sub, "the sub-cgroups");
      is_str (mem = get ("memory/shim/c1/sub", "tasks"), "0", "memory: its sub-cgroup");
      is_str (cpu = get ("cpu,cpuacct/shim/c1/subcpu", "tasks"), "0", "cpu,cpuacct: its sub-cgroup");
      is_str (pids = get ("pids/shim/c1", "tasks"), "0", "pids: the container's own");
      cgroup_release (&sub);
    }
  args[0] = (char *) "/sub";
  if (ok (cgroup_sub_open (&cg, args, 1, &sub, &err) == 0, "PATH alone: %s", err ? err->msg : "ok"))
    {
      put ("memory/shim/c1/sub", "tasks", "");
      join (&sub, "PATH alone");
      is_str (mem2 = get ("memory/shim/c1/sub", "tasks"), "0", "memory: sub");
      is_str (pids2 = get ("pids/shim/c1/sub", "tasks"), "0", "pids: sub too");
      cgroup_release (&sub);
    }
  args[0] = (char *) "memory:sub";
  args[1] = (char *) "memory,pids:sub";
  if (ok (cgroup_sub_open (&cg, args, 2, &sub, &err) == 0, "a controller given again with the same path: taken once"))
    cgroup_release (&sub);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      cleanup_error shim_error_t e = NULL;
      for (j = 0; bad[i].args[j]; j++)
        ;
      int r = cgroup_sub_open (&cg, (char *const *) bad[i].args, j, &sub, &e);
      ok (r < 0 && strstr (e->msg, bad[i].msg), "refused: %s (%s)", bad[i].args[0], e ? e->msg : "accepted");
      ok (sub.dirfd < 0 && sub.v1 == NULL, "nothing left open");
    }
  cgroup_release (&cg);
}

static void
test_snapshot (void)
{
  struct cg_snapshot s;
  struct cgroup_v1_oom oom;
  cleanup_error shim_error_t err = NULL;
  cleanup_close int fd = -1;
  char p[512];

  put ("memory/shim/c1", "memory.oom_control", "oom_kill_disable 0\nunder_oom 1\noom_kill 2\n");
  put ("memory/shim/c1", "memory.failcnt", "5\n");
  put ("memory/shim/c1", "memory.max_usage_in_bytes", "33554432\n");
  put ("memory/shim/c1", "memory.limit_in_bytes", "33554432\n");
  put ("memory/shim/c1", "memory.memsw.limit_in_bytes", "9223372036854771712\n");
  put ("memory/shim/c1", "memory.stat",
       "cache 1\nrss 2\ntotal_cache 4096\ntotal_rss 30000000\ntotal_rss_huge 0\ntotal_shmem 8192\n"
       "total_mapped_file 4096\n");
  snprintf (p, sizeof p, "%s/memory/shim/c1", root);
  fd = open (p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (!ok (cgroup_v1_snapshot_read (fd, -1, &s, &oom, &err) == 0, "snapshot from v1 files"))
    {
      diag ("%s", err->msg);
      return;
    }
  ok ((s.have & CG_SNAP_EVENTS_LOCAL) && (s.events_local.have & CG_EV_OOM_KILL) && s.events_local.oom_kill == 2,
      "oom_control's oom_kill: events_local.oom_kill");
  ok ((s.events_local.have & CG_EV_MAX) && s.events_local.max == 5, "failcnt: events_local.max");
  ok (!(s.have & CG_SNAP_EVENTS), "no hierarchical events on v1: absent, not 0");
  ok ((s.have & CG_SNAP_PEAK) && s.memory_peak == 33554432, "max_usage_in_bytes: the peak");
  ok ((s.have & CG_SNAP_MAX) && s.memory_max == 33554432, "limit_in_bytes: memory_max");
  ok ((s.have & CG_SNAP_SWAP_MAX) && s.memory_swap_max == CG_UNLIMITED, "memsw unlimited: swap max");
  ok ((s.have & CG_SNAP_STAT) && s.stat.anon == 30000000 && s.stat.file == 4096 && s.stat.shmem == 8192
          && (s.stat.have & CG_STAT_ANON_THP) && !(s.stat.have & CG_STAT_KERNEL),
      "memory.stat: the total_* keys (hierarchical), no kernel line");
  ok (oom.have && oom.under_oom && !oom.oom_kill_disable, "under_oom, oom_kill_disable");
  ok (s.have & CG_SNAP_ID, "the directory's inode is the id");
  /* The link count says it (2 + subdirectories, here as on kernfs). */
  {
    cleanup_close int nfd = -1;
    snprintf (p, sizeof p, "%s/memory/shim/n1", root);
    mkdir (p, 0755);
    put ("memory/shim/n1", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
    nfd = open (p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ok (cgroup_v1_snapshot_read (nfd, -1, &s, NULL, &err) == 0 && (s.have & CG_SNAP_V1) && !s.v1_nested,
        "no subdirectory: not nested");
    snprintf (p, sizeof p, "%s/memory/shim/n1/sub", root);
    mkdir (p, 0755);
    ok (cgroup_v1_snapshot_read (nfd, -1, &s, NULL, &err) == 0 && s.v1_nested, "a subdirectory: nested");
    rmdir (p);
    snprintf (p, sizeof p, "%s/memory/shim/c1", root);
  }
  /* With the unified hierarchy's cgroup.events (here in the same
   * directory): read before the v1 counters, so that an empty cgroup's
   * counters are final (inotify reports the opens in order). */
  put ("memory/shim/c1", "cgroup.events", "populated 0\nfrozen 0\n");
  {
    cleanup_close int ufd = -1, in = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
    char first[64];

    ufd = open (p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ufd < 0 || in < 0 || inotify_add_watch (in, p, IN_OPEN) < 0)
      abort ();
    ok (cgroup_v1_snapshot_read (fd, ufd, &s, &oom, &err) == 0 && (s.have & CG_SNAP_CGROUP_EVENTS)
            && !s.cgroup_events.populated,
        "with the unified cgroup.events: populated 0");
    is_str (first_open (in, first, sizeof first), "cgroup.events", "cgroup.events is opened before any v1 counter");
  }
  put ("memory/shim/c1", "memory.oom_control", "under_oom x\n");
  ok (cgroup_v1_snapshot_read (fd, -1, &s, &oom, &err) < 0, "a malformed memory.oom_control is an error");
  shim_error_release (&err);
  put ("memory/shim/c1", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
  {
    int efd = cgroup_v1_oom_eventfd (fd, &err);
    cleanup_free char *reg = get ("memory/shim/c1", "cgroup.event_control");
    int a = -1, b = -1;
    ok (efd >= 0 && sscanf (reg, "%d %d", &a, &b) == 2 && a == efd && b >= 0,
        "the eventfd is registered as `<eventfd> <memory.oom_control fd>`");
    ok (efd >= 0 && (fcntl (efd, F_GETFD) & FD_CLOEXEC), "O_CLOEXEC");
    if (efd >= 0)
      close (efd);
  }
}

/* A pure v1 host has no cgroup.events: paused is freezer.state FROZEN. */
static void
test_frozen (void)
{
  struct cgroup cg;
  cleanup_error shim_error_t err = NULL;

  if (!ok (cgroup_open ("/shim/c1", 0, &cg, &err) == 0, "open on the fake pure v1 host"))
    return;
  put ("freezer/shim/c1", "freezer.state", "FROZEN\n");
  ok (cgroup_frozen (&cg), "FROZEN: frozen");
  put ("freezer/shim/c1", "freezer.state", "FREEZING\n");
  ok (!cgroup_frozen (&cg), "FREEZING: not yet");
  put ("freezer/shim/c1", "freezer.state", "THAWED\n");
  ok (!cgroup_frozen (&cg), "THAWED: not frozen");
  cgroup_release (&cg);
  ok (!cgroup_frozen (&cg), "no cgroup: not frozen");
}

/* The end's counters through fds opened at arming (a regular file's new
 * content is read through the same fd, as a cgroup file's would be). */
static void
test_counters_pread (void)
{
  struct cgroup_v1_counter_fds fds = CGROUP_V1_COUNTER_FDS_INIT;
  cleanup_error shim_error_t err = NULL;
  cleanup_close int fd = -1;
  struct cg_snapshot s = { .have = CG_SNAP_MAX, .memory_max = 7 };
  char p[512];

  put ("memory/shim/c1", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
  put ("memory/shim/c1", "memory.failcnt", "0\n");
  put ("memory/shim/c1", "memory.max_usage_in_bytes", "4096\n");
  snprintf (p, sizeof p, "%s/memory/shim/c1", root);
  fd = open (p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ok (cgroup_v1_counters_open (fd, &fds, &err) == 0 && fds.oom_control >= 0 && fds.failcnt >= 0
          && fds.max_usage >= 0 && (fcntl (fds.failcnt, F_GETFD) & FD_CLOEXEC),
      "the three counter files open, O_CLOEXEC");
  put ("memory/shim/c1", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
  put ("memory/shim/c1", "memory.failcnt", "17\n");
  put ("memory/shim/c1", "memory.max_usage_in_bytes", "33554432\n");
  ok (cgroup_v1_counters_pread (&fds, &s, &err) == 0, "read through the open fds");
  ok ((s.events_local.have & CG_EV_OOM_KILL) && s.events_local.oom_kill == 1, "oom_kill as the file says now");
  ok ((s.events_local.have & CG_EV_MAX) && s.events_local.max == 17, "failcnt");
  ok ((s.have & CG_SNAP_PEAK) && s.memory_peak == 33554432, "max_usage_in_bytes: the peak");
  ok ((s.have & CG_SNAP_MAX) && s.memory_max == 7 && !(s.have & CG_SNAP_EVENTS), "the rest left as it was");
  put ("memory/shim/c1", "memory.failcnt", "x\n");
  ok (cgroup_v1_counters_pread (&fds, &s, &err) < 0, "a malformed failcnt is an error");
  shim_error_release (&err);
  cgroup_v1_counters_close (&fds);
  ok (fds.oom_control == -1 && fds.failcnt == -1 && fds.max_usage == -1, "closed");
  ok (cgroup_v1_counters_pread (&fds, &s, &err) < 0, "nothing readable is an error, not zeros");
  put ("memory/shim/c1", "memory.failcnt", "0\n");
}

/* A process's v1 cgroup: its /proc/PID/cgroup line joined with the fake
 * hierarchy's mount. */
static void
test_proc_open (void)
{
  cleanup_free char *own = NULL, *path = NULL, *none = NULL, *buf = NULL;
  cleanup_error shim_error_t err = NULL;
  int fd = -2;
  char p[1024], cmd[1200];

  ok (cgroup_v1_proc_open (getpid (), "rdma", &fd, &none, &err) == 0 && fd == -1 && none == NULL,
      "no hierarchy carries the controller: 0, no fd");
  if (util_read_file_at (AT_FDCWD, "/proc/self/cgroup", &buf, NULL, &err) < 0
      || cgroup_parse_proc_cgroup_v1 (buf, "memory", &own, &err) < 0)
    {
      shim_error_release (&err);
      printf ("ok %d # skip this process has no cgroup v1 memory line\n", ++tap_count);
      return;
    }
  ok (cgroup_v1_proc_open (getpid (), "memory", &fd, &path, &err) < 0 && fd == -1,
      "its cgroup missing in the hierarchy: an error");
  shim_error_release (&err);
  snprintf (p, sizeof p, "%s/memory%s", root, own);
  snprintf (cmd, sizeof cmd, "mkdir -p '%s'", p);
  if (system (cmd) != 0)
    diag ("could not make %s", p);
  ok (cgroup_v1_proc_open (getpid (), "memory", &fd, &path, &err) == 0 && fd >= 0, "opened");
  is_str (path, own, "the path from /proc/PID/cgroup");
  {
    struct stat a, b;
    ok (fd >= 0 && fstat (fd, &a) == 0 && stat (p, &b) == 0 && a.st_ino == b.st_ino,
        "the directory under the memory hierarchy's mount");
  }
  if (fd >= 0)
    close (fd);
}

/* The real thing, where there is one: an allocation over the limit of a v1
 * memory cgroup makes the eventfd readable and oom_kill count 1. */
static void
test_real_oom_eventfd (void)
{
  char dir[128], buf[32], sub[160];
  cleanup_close int fd = -1, efd = -1;
  cleanup_error shim_error_t err = NULL;
  struct cg_snapshot s;
  struct pollfd p;
  pid_t child;
  int status;

  snprintf (dir, sizeof dir, "/sys/fs/cgroup/memory/shim-unit-%d", (int) getpid ());
  if (geteuid () != 0 || access ("/sys/fs/cgroup/memory/memory.oom_control", F_OK) < 0 || mkdir (dir, 0755) < 0)
    {
      printf ("ok %d # skip no cgroup v1 memory hierarchy to write to\n", ++tap_count);
      return;
    }
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  efd = cgroup_v1_oom_eventfd (fd, &err);
  ok (efd >= 0, "registered on a real memory cgroup");
  util_write_file_at (fd, "memory.limit_in_bytes", "16777216", 8, &err);
  if (faccessat (fd, "memory.memsw.limit_in_bytes", F_OK, 0) == 0)
    util_write_file_at (fd, "memory.memsw.limit_in_bytes", "16777216", 8, &err);
  child = fork ();
  if (child == 0)
    {
      char *m;
      snprintf (buf, sizeof buf, "%d", (int) getpid ());
      if (util_write_file_at (fd, "cgroup.procs", buf, strlen (buf), &err) < 0)
        _exit (2);
      m = mmap (NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m != MAP_FAILED)
        memset (m, 1, 64 << 20);
      _exit (0);
    }
  waitpid (child, &status, 0);
  ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL, "the allocation over the limit is OOM-killed");
  p = (struct pollfd){ .fd = efd, .events = POLLIN };
  ok (efd >= 0 && poll (&p, 1, 10000) == 1, "the eventfd became readable");
  ok (cgroup_v1_snapshot_read (fd, -1, &s, NULL, &err) == 0 && s.events_local.oom_kill == 1
          && s.memory_max == 16777216,
      "oom_kill 1, the limit");
  ok (!s.v1_nested, "no cgroup below: not nested");
  snprintf (sub, sizeof sub, "%s/sub", dir);
  mkdir (sub, 0755);
  ok (cgroup_v1_snapshot_read (fd, -1, &s, NULL, &err) == 0 && s.v1_nested, "a cgroup below (kernfs): nested");
  rmdir (sub);
  close (steal_fd (&fd));
  rmdir (dir);
}

static void
test_proc_cgroup_v1 (void)
{
  const char *buf = "9:name=systemd:/\n8:pids:/a\n2:cpu,cpuacct:/b/c\n4:memory:/m/x\n0::/\n";
  cleanup_free char *cpu = NULL, *acct = NULL, *mem = NULL, *none = NULL, *bad = NULL;
  cleanup_error shim_error_t err = NULL;

  ok (cgroup_parse_proc_cgroup_v1 (buf, "cpu", &cpu, &err) == 0, "the cpu line");
  is_str (cpu, "/b/c", "cpu in a co-mounted cpu,cpuacct");
  ok (cgroup_parse_proc_cgroup_v1 (buf, "cpuacct", &acct, &err) == 0 && strcmp (acct, "/b/c") == 0,
      "cpuacct, the same line");
  ok (cgroup_parse_proc_cgroup_v1 (buf, "memory", &mem, &err) == 0 && strcmp (mem, "/m/x") == 0, "memory");
  ok (cgroup_parse_proc_cgroup_v1 (buf, "freezer", &none, &err) < 0 && none == NULL, "no freezer line");
  shim_error_release (&err);
  ok (cgroup_parse_proc_cgroup_v1 ("4:memory:/../up\n", "memory", &bad, &err) < 0 && err->status == EXDEV,
      "a path climbing out of the namespace is refused");
}

int
main (void)
{
  char cmd[128];

  snprintf (root, sizeof root, "/tmp/shim-test-v1-XXXXXX");
  if (mkdtemp (root) == NULL)
    return 1;
  test_proc_cgroup_v1 ();
  fake_host ();
  test_create_pure_v1 ();
  test_failed_create_removes ();
  test_refused ();
  test_refused_frozen ();
  test_update ();
  test_update_keeps_swap ();
  test_update_more ();
  test_open_paths ();
  test_sub_path ();
  test_sub_open ();
  test_snapshot ();
  test_counters_pread ();
  test_frozen ();
  test_proc_open ();
  cgroup_v1_set_mountinfo (NULL);
  test_real_oom_eventfd ();
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system (cmd) != 0)
    diag ("could not remove %s", root);
  return done_testing ();
}
