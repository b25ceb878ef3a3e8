/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroupfs v2 manager.  On a hybrid host (controllers on v1, an empty
 * cgroup2 at /sys/fs/cgroup/unified) the container still gets a cgroup
 * there: it has no controllers, but cgroup.procs, cgroup.events and
 * cgroup.kill work, which is how the tree is tracked and killed even where
 * it cannot be limited. */
#include "cgroup/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup_devices.h"
#include "cgroup/cgroup_files.h"
#include "cgroup/cgroup_internal.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/util.h"

/* How long teardown waits for the kernel to empty a killed cgroup.  SIGKILLed
 * processes exit in microseconds unless stuck in the kernel (D state). */
#define DESTROY_TIMEOUT_MS 5000
/* How long pause (or resume) waits for every task to stop (or go on). */
#define FREEZE_TIMEOUT_MS 5000

/* Controllers named in a space-separated list (cgroup.controllers). */
static unsigned
parse_controllers (const char *list)
{
  unsigned mask = 0;
  size_t i;
  while (*list)
    {
      size_t n = strcspn (list, " \n");
      for (i = 0; i < CGROUP_N_CTRL; i++)
        if (strlen (cgroup_ctrl_names[i]) == n && strncmp (list, cgroup_ctrl_names[i], n) == 0)
          mask |= 1u << i;
      list += n;
      list += strspn (list, " \n");
    }
  return mask;
}

static int
read_controllers (int dirfd, const char *file, unsigned *mask, shim_error_t *err)
{
  cleanup_free char *buf = NULL;
  if (util_read_file_at (dirfd, file, &buf, NULL, err) < 0)
    return -1;
  *mask = parse_controllers (buf);
  return 0;
}

/* Enable WANT in DIRFD's cgroup.subtree_control, as far as available. */
static int
delegate (int dirfd, const char *path, unsigned want, unsigned *delegated, shim_error_t *err)
{
  unsigned avail, on;
  size_t i;

  if (read_controllers (dirfd, "cgroup.controllers", &avail, err) < 0
      || read_controllers (dirfd, "cgroup.subtree_control", &on, err) < 0)
    return shim_error_prefix (err, "cgroup `%s`", path);
  for (i = 0; i < CGROUP_N_CTRL; i++)
    {
      char buf[16];
      unsigned bit = 1u << i;
      shim_error_t tmp = NULL;
      if (!(want & bit) || !(avail & bit) || (on & bit))
        continue;
      snprintf (buf, sizeof (buf), "+%s", cgroup_ctrl_names[i]);
      if (util_write_file_at (dirfd, "cgroup.subtree_control", buf, strlen (buf), &tmp) < 0)
        {
          /* EBUSY: the cgroup has processes of its own ("no internal
           * processes" rule); the caller decides if that matters. */
          log_msg (LOG_DEBUG, "cgroup `%s`: %s", path, tmp->msg);
          shim_error_release (&tmp);
          continue;
        }
      on |= bit;
    }
  *delegated = on;
  return 0;
}

static int
write_knob (int dirfd, const char *file, const char *value, const char *json_path, shim_error_t *err)
{
  log_msg (LOG_DEBUG, "cgroup: %s = %s", file, value);
  if (util_write_file_at (dirfd, file, value, strlen (value), err) < 0)
    return shim_error_prefix (err, "%s", json_path);
  return 0;
}

/* Where a blockIO weight goes on v2: io.weight (blk-iocost, in its 1..10000
 * scale, as runc converts it) or, without it, BFQ's io.bfq.weight (blkio's
 * own 10..1000).  A kernel with neither cannot weigh I/O at all: one
 * sentence naming both files rather than ENOENT for one of them. */
static int
io_weight_file (int fd, const char *json_path, bool *bfq, shim_error_t *err)
{
  *bfq = false;
  if (faccessat (fd, "io.weight", F_OK, 0) == 0)
    return 0;
  if (faccessat (fd, "io.bfq.weight", F_OK, 0) == 0)
    {
      *bfq = true;
      return 0;
    }
  return shim_error_plain (err, ENOTSUP,
                           "%s: this kernel or disk has no I/O weight support: the cgroup has neither `io.weight` "
                           "(iocost) nor `io.bfq.weight` (BFQ)",
                           json_path);
}

static bool
has_unified (const struct cgroup_resources *r, const char *key)
{
  size_t i;
  for (i = 0; i < r->n_unified; i++)
    if (strcmp (r->unified[i].key, key) == 0)
      return true;
  return false;
}

void
cgroup_v2_swap_max (const struct cgroup_resources *r, char *buf, size_t size)
{
  bool limit = r->has_memory_limit && r->memory_limit > 0;

  /* OCI swap is memory+swap; cgroup v2 counts swap alone.  At create a
   * limit without swap means no swap: otherwise the kernel swaps instead of
   * reaching memory.max and the limit never takes.  An update leaves swap
   * as it was (runc's fs2 writes nothing for an unset swap), but a limit
   * lifted to -1 lifts swap too (runc's ConvertMemorySwapToCgroupV2Value). */
  buf[0] = '\0';
  if (r->has_memory_swap && r->memory_swap < 0)
    snprintf (buf, size, "max");
  else if (r->has_memory_swap && limit)
    snprintf (buf, size, "%" PRId64, r->memory_swap - r->memory_limit);
  else if (!r->has_memory_swap && r->update && r->has_memory_limit && r->memory_limit < 0)
    snprintf (buf, size, "max");
  else if (!r->has_memory_swap && !r->update && limit)
    snprintf (buf, size, "0");
}

bool
cgroup_v2_oom_group_default (const struct cgroup_resources *r)
{
  /* One OOM takes the whole container: a half-killed container is worse
   * than a dead one, and the verdict can then name it.  Only at create:
   * an update of any other field kept overwriting a user's `unified` "0"
   * (or the hook's or an engine's choice) with 1. */
  return !r->update && !has_unified (r, "memory.oom.group");
}

/* What cgroup v1 has and v2 maps differently: blockIO's per-device lists
 * into io.weight and io.max ("MAJ:MIN rbps=N", one key per write, the
 * others kept), hugepageLimits into hugetlb.<size>.max, as runc's fs2.
 * Real-time budgets do not exist on v2: refused by name, as runc does.
 * disableOOMKiller has no v2 knob: runc ignores it, we say so. */
static int
apply_v1_only (int fd, const struct cgroup_resources *r, unsigned ctrls, shim_error_t *err)
{
  static const char *const io_keys[] = { "", "rbps", "wbps", "riops", "wiops" };
  static const char *const json_keys[] = { "weightDevice", "throttleReadBpsDevice", "throttleWriteBpsDevice",
                                            "throttleReadIOPSDevice", "throttleWriteIOPSDevice" };
  char buf[96], jp[96];
  size_t i;

  if (r->oom_kill_disable)
    log_msg (LOG_WARNING, "linux.resources.memory.disableOOMKiller: not applied: cgroup v2 cannot disable the "
                          "OOM killer");
  if ((r->has_cpu_rt_runtime && r->cpu_rt_runtime) || (r->has_cpu_rt_period && r->cpu_rt_period))
    return shim_error_plain (err, ENOTSUP, "linux.resources.cpu.%s: cgroup v2 has no real-time CPU budget "
                             "(cpu.rt_runtime_us and cpu.rt_period_us are cgroup v1's)",
                             r->has_cpu_rt_runtime && r->cpu_rt_runtime ? "realtimeRuntime" : "realtimePeriod");
  for (i = 0; (ctrls & CGROUP_CTRL_IO) && i < r->n_blkio_devices; i++)
    {
      const struct cgroup_blkio_device *d = &r->blkio_devices[i];
      const char *file = "io.max";
      bool bfq = false;
      snprintf (jp, sizeof (jp), "linux.resources.blockIO.%s", json_keys[d->kind]);
      if (d->kind == CGROUP_BLKIO_WEIGHT && io_weight_file (fd, jp, &bfq, err) < 0)
        return -1;
      if (d->kind == CGROUP_BLKIO_WEIGHT)
        {
          file = bfq ? "io.bfq.weight" : "io.weight";
          snprintf (buf, sizeof (buf), "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor,
                    bfq ? d->value : cgroup_blkio_weight_to_io (d->value));
        }
      else
        snprintf (buf, sizeof (buf), "%" PRId64 ":%" PRId64 " %s=%" PRIu64, d->major, d->minor, io_keys[d->kind],
                  d->value);
      if (write_knob (fd, file, buf, jp, err) < 0)
        return -1;
    }
  for (i = 0; (ctrls & CGROUP_CTRL_HUGETLB) && i < r->n_hugepages; i++)
    {
      char file[64];
      snprintf (file, sizeof (file), "hugetlb.%s.max", r->hugepages[i].page_size);
      snprintf (jp, sizeof (jp), "linux.resources.hugepageLimits[%zu].limit", i);
      snprintf (buf, sizeof (buf), "%" PRIu64, r->hugepages[i].limit);
      if (write_knob (fd, file, buf, jp, err) < 0)
        return -1;
    }
  return 0;
}

static int
apply_resources (int fd, const struct cgroup_resources *r, unsigned ctrls, shim_error_t *err)
{
  char buf[64];
  size_t i;

  if (ctrls & CGROUP_CTRL_MEMORY)
    {
      if (r->has_memory_limit)
        {
          if (r->memory_limit < 0)
            snprintf (buf, sizeof (buf), "max");
          else
            snprintf (buf, sizeof (buf), "%" PRId64, r->memory_limit);
          if (write_knob (fd, "memory.max", buf, "linux.resources.memory.limit", err) < 0)
            return -1;
        }
      if (r->has_memory_reservation && r->memory_reservation >= 0)
        {
          snprintf (buf, sizeof (buf), "%" PRId64, r->memory_reservation);
          if (write_knob (fd, "memory.low", buf, "linux.resources.memory.reservation", err) < 0)
            return -1;
        }
      cgroup_v2_swap_max (r, buf, sizeof buf);
      if (buf[0] && faccessat (fd, "memory.swap.max", F_OK, 0) == 0
          && write_knob (fd, "memory.swap.max", buf, "linux.resources.memory.swap", err) < 0)
        return -1;
      if (cgroup_v2_oom_group_default (r)
          && write_knob (fd, "memory.oom.group", "1", "memory.oom.group", err) < 0)
        return -1;
    }
  if ((ctrls & CGROUP_CTRL_PIDS) && r->has_pids_limit && r->pids_limit != 0)
    {
      if (r->pids_limit < 0)
        snprintf (buf, sizeof (buf), "max");
      else
        snprintf (buf, sizeof (buf), "%" PRId64, r->pids_limit);
      if (write_knob (fd, "pids.max", buf, "linux.resources.pids.limit", err) < 0)
        return -1;
    }
  if (ctrls & CGROUP_CTRL_CPU)
    {
      if (r->has_cpu_shares && r->cpu_shares)
        {
          snprintf (buf, sizeof (buf), "%llu", cgroup_cpu_shares_to_weight (r->cpu_shares));
          if (write_knob (fd, "cpu.weight", buf, "linux.resources.cpu.shares", err) < 0)
            return -1;
        }
      if (r->has_cpu_quota || r->has_cpu_period)
        {
          uint64_t period = r->has_cpu_period && r->cpu_period ? r->cpu_period : 100000;
          if (r->has_cpu_quota && r->cpu_quota > 0)
            snprintf (buf, sizeof (buf), "%" PRId64 " %" PRIu64, r->cpu_quota, period);
          else
            snprintf (buf, sizeof (buf), "max %" PRIu64, period);
          if (write_knob (fd, "cpu.max", buf, "linux.resources.cpu.quota", err) < 0)
            return -1;
        }
    }
  if ((ctrls & CGROUP_CTRL_CPUSET) && r->cpu_cpus
      && write_knob (fd, "cpuset.cpus", r->cpu_cpus, "linux.resources.cpu.cpus", err) < 0)
    return -1;
  if ((ctrls & CGROUP_CTRL_CPUSET) && r->cpu_mems
      && write_knob (fd, "cpuset.mems", r->cpu_mems, "linux.resources.cpu.mems", err) < 0)
    return -1;
  if ((ctrls & CGROUP_CTRL_IO) && r->has_blkio_weight)
    {
      static const char jp[] = "linux.resources.blockIO.weight";
      bool bfq;
      if (io_weight_file (fd, jp, &bfq, err) < 0)
        return -1;
      snprintf (buf, sizeof (buf), "default %" PRIu64,
                bfq ? (uint64_t) r->blkio_weight : cgroup_blkio_weight_to_io (r->blkio_weight));
      if (write_knob (fd, bfq ? "io.bfq.weight" : "io.weight", buf, jp, err) < 0)
        return -1;
    }
  if (apply_v1_only (fd, r, ctrls, err) < 0)
    return -1;
  /* unified last: it overrides anything above, memory.oom.group included. */
  for (i = 0; i < r->n_unified; i++)
    {
      cleanup_free char *jp = NULL;
      size_t j;
      bool skip = false;
      /* Only reached without a controller under --allow-unenforced-limits. */
      for (j = 0; j < CGROUP_N_CTRL; j++)
        if (!(ctrls & (1u << j)) && cgroup_key_is_ctrl (r->unified[i].key, j))
          skip = true;
      if (skip)
        continue;
      if (asprintf (&jp, "linux.resources.unified.%s", r->unified[i].key) < 0)
        return shim_error_errno (err, "linux.resources.unified");
      if (write_knob (fd, r->unified[i].key, r->unified[i].value, jp, err) < 0)
        return -1;
    }
  return 0;
}

/* Every controller of MASK by name, in BUF: "memory", "memory and pids",
 * "memory, pids and cpu"; each between backticks with quoted.  Returns
 * whether there are several (for the plural). */
static bool
ctrl_names (unsigned mask, bool quoted, char *buf, size_t size)
{
  size_t i, n = 0, total = 0, len = 0;
  const char *q = quoted ? "`" : "";

  for (i = 0; i < CGROUP_N_CTRL; i++)
    total += (mask >> i) & 1u;
  buf[0] = '\0';
  for (i = 0; i < CGROUP_N_CTRL && len < size; i++)
    if (mask & (1u << i))
      {
        n++;
        len += (size_t) snprintf (buf + len, size - len, "%s%s%s%s", n == 1 ? "" : n == total ? " and " : ", ", q,
                                  cgroup_ctrl_names[i], q);
      }
  return total > 1;
}

/* Why the controllers of MASK are not in the container's cgroup: the
 * first ancestor that does not have them available names the culprit. */
static char *
explain_missing (const char *mp, const char *path, unsigned mask)
{
  char *why = NULL, names[128];
  bool several = ctrl_names (mask, true, names, sizeof (names));
  const char *are = several ? "controllers are" : "controller is";
  if (strcmp (mp, "/sys/fs/cgroup/unified") == 0)
    {
      if (asprintf (&why,
                    "the %s %s not on the cgroup v2 hierarchy (%s): this host is "
                    "hybrid, its controllers are bound to cgroup v1, which shim does not use",
                    names, are, mp)
          < 0)
        return NULL;
    }
  else if (asprintf (&why,
                     "the %s %s not available in cgroup `%s`: %s not enabled "
                     "in an ancestor's cgroup.subtree_control (not delegated)",
                     names, are, path, several ? "they are" : "it is")
           < 0)
    return NULL;
  return why;
}

/* rmdir the directories we made, innermost first; ENOTEMPTY/EBUSY on a
 * shared parent (another container under /shim) is expected. */
static void
remove_created (int mountfd, const char *path, size_t depth_created)
{
  cleanup_free char *p = strdup (path);
  size_t i;
  for (i = 0; p && i < depth_created; i++)
    {
      char *slash;
      if (unlinkat (mountfd, p + 1, AT_REMOVEDIR) < 0)
        {
          if (errno != ENOTEMPTY && errno != EBUSY && errno != ENOENT)
            log_msg (LOG_WARNING, "cgroup `%s` could not be removed: %s", p, strerror (errno));
          return;
        }
      slash = strrchr (p, '/');
      if (slash == NULL || slash == p)
        return;
      *slash = '\0';
    }
}

static int
v2_create_once (const struct cgroup_spec *spec, const char *cgpath, struct cgroup *out, shim_error_t *err)
{
  const struct cgroup_resources *r = spec->resources;
  unsigned required = cgroup_required_controllers (r);
  unsigned want = required | CGROUP_CTRL_MEMORY | CGROUP_CTRL_PIDS; /* memory: the verdict's counters */
  unsigned have = 0;
  const char *mp = cgroup_mount_point ();
  cleanup_close int fd = -1;
  cleanup_free char *path = strdup (cgpath);
  char *comp, *next;
  size_t created = 0;
  int ret = 0;

  if (path == NULL)
    return shim_error_errno (err, "cgroup path");
  out->mountfd = open (mp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (out->mountfd < 0)
    return shim_error_errno (err, "open `%s`", mp);

  /* Walk down from the root, creating what is missing and delegating the
   * controllers at each level. */
  fd = fcntl (out->mountfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return shim_error_errno (err, "dup `%s`", mp);
  {
    cleanup_free char *walk = strdup (path);
    cleanup_free char *so_far = strdup ("");
    if (walk == NULL || so_far == NULL)
      return shim_error_errno (err, "cgroup path");
    for (comp = walk + 1; comp && *comp; comp = next)
      {
        int child;
        char *n = NULL;
        next = strchr (comp, '/');
        if (next)
          *next++ = '\0';
        if (*comp == '\0')
          continue;
        if (delegate (fd, *so_far ? so_far : "/", want, &have, err) < 0)
          {
            ret = -1;
            break;
          }
        if (mkdirat (fd, comp, 0755) == 0)
          created++;
        else if (errno != EEXIST)
          {
            ret = shim_error_errno (err, "create cgroup `%s/%s` under %s", so_far, comp, mp);
            break;
          }
        else if (next == NULL)
          {
            /* An existing leaf (an engine may have made it for us) is
             * adopted; one with processes in it too, as runc does, with
             * runc's warning: what happens to those processes (an OOM
             * kill, `kill --all`, `delete`) is then the container's. */
            cleanup_free char *procs = NULL;
            cleanup_close int leaf = openat (fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            size_t n = 0;
            char *p;
            if (leaf < 0 || util_read_file_at (leaf, "cgroup.procs", &procs, NULL, err) < 0)
              {
                ret = leaf < 0 ? shim_error_errno (err, "open cgroup `%s`", path) : -1;
                break;
              }
            for (p = procs; *p; p++)
              n += *p == '\n' || (p[1] == '\0' && *p != '\n');
            if (n > 0)
              log_msg (LOG_WARNING, "container's cgroup is not empty: %zu process(es) found (cgroup `%s`)", n, path);
          }
        else
          created = 0; /* only a suffix of fresh directories is ours */
        child = openat (fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (child < 0)
          {
            ret = shim_error_errno (err, "open cgroup `%s/%s`", so_far, comp);
            break;
          }
        close (fd);
        fd = child;
        /* Where another container's teardown can take this level away. */
        if (next && *next)
          fault_point ("cgroup:after-parent");
        if (asprintf (&n, "%s/%s", so_far, comp) < 0)
          {
            ret = shim_error_errno (err, "cgroup path");
            break;
          }
        free (so_far);
        so_far = n;
      }
  }
  out->path = steal_pointer (&path);
  out->created = created > 0;
  if (ret == 0 && cgroup_refuse_frozen (fd, out->path, err) < 0)
    ret = -1;
  if (ret == 0 && read_controllers (fd, "cgroup.controllers", &have, err) < 0)
    ret = -1;
  if (ret == 0 && (required & ~have))
    {
      cleanup_free char *why = explain_missing (mp, out->path, required & ~have);
      char names[128];
      /* Every limit dropped is named, not only the first. */
      bool several = ctrl_names (required & ~have, false, names, sizeof (names));
      if (!spec->allow_unenforced)
        ret = shim_error_plain (err, ENOTSUP,
                                "invalid configuration: linux.resources: cannot enforce the %s limit%s: %s; "
                                "--allow-unenforced-limits runs without %s",
                                names, several ? "s" : "", why ? why : "", several ? "them" : "it");
      else
        {
          log_msg (LOG_WARNING, "linux.resources: the %s limit%s NOT enforced: %s", names,
                   several ? "s are" : " is", why ? why : "");
          out->unenforced_reason = steal_pointer (&why);
        }
    }
  if (ret == 0)
    ret = apply_resources (fd, r, have, err);
  if (ret == 0 && r->has_devices)
    ret = cgroup_devices_apply (fd, r->devices, r->n_devices, err);
  if (ret == 0 && spec->owner != CGROUP_NO_OWNER)
    ret = cgroup_delegate_to (fd, out->path, spec->owner, err);
  if (ret < 0)
    {
      remove_created (out->mountfd, out->path, created);
      return -1;
    }
  out->memory_limit_enforced = (have & CGROUP_CTRL_MEMORY) && r->has_memory_limit && r->memory_limit > 0;
  out->dirfd = steal_fd (&fd);
  out->created_depth = created;
  return 0;
}

/* v2_create_once, again when an ancestor vanished under the walk: another
 * container under the same parent (/shim) removed it, empty, between our
 * mkdir of it and of the next level.  Each try undoes what it made. */
#define CREATE_TRIES 5
static int
v2_create (const struct cgroup_spec *spec, const char *cgpath, struct cgroup *out, shim_error_t *err)
{
  for (int i = 1;; i++)
    {
      shim_error_t tmp = NULL;
      if (v2_create_once (spec, cgpath, out, &tmp) == 0)
        return 0;
      if (i == CREATE_TRIES || (tmp->status != ENOENT && tmp->status != ENODEV))
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp);
      /* What the failed try left for its caller's release. */
      if (out->mountfd >= 0)
        close (out->mountfd);
      out->mountfd = -1;
      free (out->path);
      out->path = NULL;
    }
}

/* Read the open cgroup.events again (which also re-arms its POLLPRI), with
 * the one strict parser. */
static int
read_events (int ev, const char *path, struct cg_cgroup_events *e, shim_error_t *err)
{
  char buf[256];
  shim_error_t tmp = NULL;
  ssize_t n;

  do
    n = pread (ev, buf, sizeof (buf) - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return shim_error_errno (err, "read `%s/cgroup.events`", path);
  buf[n] = '\0';
  if (cg_parse_cgroup_events ("cgroup.events", buf, e, &tmp) < 0)
    {
      shim_error_release (&tmp);
      return shim_error_plain (err, EINVAL, "`%s/cgroup.events`: malformed", path);
    }
  return 0;
}

/* Wait until cgroup.events says populated 0.  The kernel raises POLLPRI on
 * the open file when it changes, so this does not spin. */
static int
wait_empty (int dirfd, const char *path, shim_error_t *err)
{
  cleanup_close int ev = openat (dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  /* One bound for the whole wait, not one per change of the file. */
  long long deadline = util_monotonic_ms () + DESTROY_TIMEOUT_MS;
  if (ev < 0)
    return shim_error_errno (err, "open `%s/cgroup.events`", path);
  for (;;)
    {
      struct cg_cgroup_events e;
      struct pollfd p = { .fd = ev, .events = POLLPRI };
      int r;
      if (read_events (ev, path, &e, err) < 0)
        return -1;
      if ((e.have & CG_CEV_POPULATED) && !e.populated)
        return 0;
      r = util_poll_until (&p, 1, deadline);
      if (r < 0)
        return shim_error_errno (err, "poll `%s/cgroup.events`", path);
      if (r == 0)
        return shim_error_plain (err, EBUSY, "cgroup `%s` still has processes %d ms after cgroup.kill",
                                 path, DESTROY_TIMEOUT_MS);
    }
}

static int
kill_all (int dirfd, const char *path, shim_error_t *err)
{
  shim_error_t tmp = NULL;
  cleanup_free char *procs = NULL;
  char *line;

  if (util_write_file_at (dirfd, "cgroup.kill", "1", 1, &tmp) == 0)
    return 0;
  if (tmp->status != ENOENT)
    {
      shim_error_take (err, &tmp);
      return shim_error_prefix (err, "cgroup `%s`", path);
    }
  /* Before 5.14 there is no cgroup.kill: signal each member. */
  shim_error_release (&tmp);
  if (util_read_file_at (dirfd, "cgroup.procs", &procs, NULL, err) < 0)
    return shim_error_prefix (err, "cgroup `%s`", path);
  for (line = strtok (procs, "\n"); line; line = strtok (NULL, "\n"))
    kill ((pid_t) atoi (line), SIGKILL);
  return 0;
}

static int
v2_destroy (struct cgroup *cg, shim_error_t *err)
{
  if (kill_all (cg->dirfd, cg->path, err) < 0 || wait_empty (cg->dirfd, cg->path, err) < 0)
    return -1;
  if (!cg->created)
    return 0;
  /* The tree is walked only when the kernel refuses for a cgroup the
   * container made below its own (EBUSY). */
  if (unlinkat (cg->mountfd, cg->path + 1, AT_REMOVEDIR) < 0 && errno != ENOENT)
    {
      if (errno != EBUSY)
        return shim_error_errno (err, "remove cgroup `%s`", cg->path);
      if (cgroup_remove_descendants (cg->dirfd, cg->path, 0, err) < 0)
        return -1;
      if (unlinkat (cg->mountfd, cg->path + 1, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return shim_error_errno (err, "remove cgroup `%s`", cg->path);
    }
  /* Then the parents we made, if no other container uses them. */
  {
    cleanup_free char *parent = strdup (cg->path);
    char *slash = parent ? strrchr (parent, '/') : NULL;
    if (slash && slash != parent && cg->created_depth > 1)
      {
        *slash = '\0';
        remove_created (cg->mountfd, parent, cg->created_depth - 1);
      }
  }
  return 0;
}

static int
v2_open (struct cgroup *cg, shim_error_t *err)
{
  if (cgroup_open_mount (cg, err) < 0)
    return -1;
  cg->dirfd = openat (cg->mountfd, cg->path + (cg->path[0] == '/'), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cg->dirfd < 0 && errno != ENOENT)
    return shim_error_errno (err, "open cgroup `%s`", cg->path);
  return 0;
}

static int
v2_freeze (struct cgroup *cg, bool frozen, shim_error_t *err)
{
  cleanup_close int ev = openat (cg->dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  long long deadline;

  if (ev < 0)
    return shim_error_errno (err, "open `%s/cgroup.events`", cg->path);
  if (util_write_file_at (cg->dirfd, "cgroup.freeze", frozen ? "1" : "0", 1, err) < 0)
    return shim_error_prefix (err, "cgroup `%s`", cg->path);
  /* The write returns before every task has stopped: cgroup.events says
   * when ("frozen 1"), and changes of it are a POLLPRI.  A task stuck in
   * the kernel (D state) never gets there: bounded, so that pause fails
   * instead of hanging. */
  deadline = util_monotonic_ms () + FREEZE_TIMEOUT_MS;
  for (;;)
    {
      struct cg_cgroup_events e;
      struct pollfd p = { .fd = ev, .events = POLLPRI };
      int r;
      if (read_events (ev, cg->path, &e, err) < 0)
        return -1;
      if (!(e.have & CG_CEV_FROZEN) || e.frozen == frozen || !e.populated)
        return 0;
      r = util_poll_until (&p, 1, deadline);
      if (r < 0)
        return shim_error_errno (err, "poll `%s/cgroup.events`", cg->path);
      if (r == 0)
        {
          /* A pause that failed leaves the container running, not frozen
           * later behind the caller's back when the task comes out. */
          shim_error_t tmp = NULL;
          if (frozen)
            util_write_file_at (cg->dirfd, "cgroup.freeze", "0", 1, &tmp);
          shim_error_release (&tmp);
          return shim_error_plain (err, ETIMEDOUT, "cgroup `%s` did not %s within %d s", cg->path,
                                   frozen ? "freeze" : "thaw", FREEZE_TIMEOUT_MS / 1000);
        }
    }
}

static int
v2_signal_all (struct cgroup *cg, int sig, shim_error_t *err)
{
  cleanup_free char *procs = NULL;
  char *line, *save = NULL;

  /* cgroup.kill reaches forks racing with us; for other signals a pass
   * over cgroup.procs is what runc and crun do too. */
  if (sig == SIGKILL)
    {
      shim_error_t tmp = NULL;
      if (util_write_file_at (cg->dirfd, "cgroup.kill", "1", 1, &tmp) == 0)
        return 0;
      shim_error_release (&tmp);
    }
  if (util_read_file_at (cg->dirfd, "cgroup.procs", &procs, NULL, err) < 0)
    return shim_error_prefix (err, "cgroup `%s`", cg->path);
  for (line = strtok_r (procs, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      int64_t pid;
      if (util_parse_i64 (line, &pid) == 0 && pid > 0 && kill ((pid_t) pid, sig) < 0 && errno != ESRCH)
        return shim_error_errno (err, "kill(%lld, %d)", (long long) pid, sig);
    }
  return 0;
}

static int
v2_update (struct cgroup *cg, const struct cgroup_resources *r, shim_error_t *err)
{
  unsigned have = 0;

  /* What create delegated is what this cgroup offers. */
  if (read_controllers (cg->dirfd, "cgroup.controllers", &have, err) < 0)
    return -1;
  /* As at create: a limit the cgroup cannot enforce is an error, never a
   * silent success (the update has no --allow-unenforced-limits). */
  if (cgroup_required_controllers (r) & ~have)
    {
      char names[128];
      bool several = ctrl_names (cgroup_required_controllers (r) & ~have, false, names, sizeof (names));
      return shim_error_plain (err, ENOTSUP,
                               "invalid configuration: cannot enforce the %s limit%s: the controller%s not enabled "
                               "for cgroup `%s`",
                               names, several ? "s" : "", several ? "s are" : " is", cg->path);
    }
  if (apply_resources (cg->dirfd, r, have, err) < 0)
    return -1;
  /* Device rules given to update replace the container's (they were
   * silently dropped before). */
  return r->has_devices ? cgroup_devices_apply (cg->dirfd, r->devices, r->n_devices, err) : 0;
}

static int
v2_snapshot (const struct cgroup *cg, struct cg_snapshot *out, shim_error_t *err)
{
  return cg_snapshot_read (cg->dirfd, out, err);
}

const struct cgroup_manager cgroup_v2_manager = {
  .name = "cgroupfs v2",
  .create = v2_create,
  .open = v2_open,
  .update = v2_update,
  .freeze = v2_freeze,
  .signal_all = v2_signal_all,
  .destroy = v2_destroy,
  .snapshot = v2_snapshot,
};
