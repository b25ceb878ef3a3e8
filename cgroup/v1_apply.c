/* SPDX-License-Identifier: Apache-2.0 */
/* linux.resources written to the cgroup v1 hierarchies, with the files and
 * the order runc's fs manager uses (memory.go, cpu.go, cpuset.go, blkio.go,
 * pids.go, devices): each controller's files in the hierarchy carrying it.
 * `unified` keys are cgroup v2 files: the core ones (cgroup.max.depth, ...)
 * go to the unified tracking cgroup of a hybrid host; a controller's
 * (memory.high) has nothing to go to. */
#include "cgroup/cgroup.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup_devices.h"
#include "cgroup/cgroup_internal.h"
#include "common/log.h"
#include "common/util.h"

int
cgroup_v1_refuse_frozen (int freezer_fd, const char *path, shim_error_t *err)
{
  cleanup_free char *state = NULL;

  if (util_read_file_at (freezer_fd, "freezer.state", &state, NULL, err) < 0)
    return shim_error_prefix (err, "cgroup `%s` in freezer", path);
  if (strncmp (state, "THAWED", 6) != 0)
    return shim_error_plain (err, EBUSY, "container's cgroup unexpectedly frozen (cgroup `%s` in freezer is %.*s)",
                             path, (int) strcspn (state, "\n"), state);
  return 0;
}

int
cgroup_v1_dirfd (const struct cgroup_v1 *v, const char *name)
{
  const struct cgroup_v1_dir *h = cgroup_v1_find (v, name);

  return h ? h->dirfd : -1;
}

const struct cgroup_v1_dir *
cgroup_v1_find (const struct cgroup_v1 *v, const char *name)
{
  size_t i, n = strlen (name);
  for (i = 0; v && i < v->n; i++)
    {
      /* The hierarchy's controllers: "cpu,cpuacct". */
      const char *c = v->h[i].ctrls;
      while (*c)
        {
          size_t len = strcspn (c, ",");
          if (len == n && strncmp (c, name, n) == 0)
            return &v->h[i];
          c += len + (c[len] == ',');
        }
    }
  return NULL;
}

static int
write_knob (int fd, const char *file, const char *value, const char *json_path, shim_error_t *err)
{
  log_msg (LOG_DEBUG, "cgroup v1: %s = %s", file, value);
  if (util_write_file_at (fd, file, value, strlen (value), err) < 0)
    return shim_error_prefix (err, "%s", json_path);
  return 0;
}

static int
write_i64 (int fd, const char *file, int64_t v, const char *json_path, shim_error_t *err)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRId64, v < 0 ? (int64_t) -1 : v);
  return write_knob (fd, file, buf, json_path, err);
}

/* The kernel's value of FILE in FD, -1 for its "no limit". */
static int
read_limit (int fd, const char *file, const char *json_path, int64_t *out, shim_error_t *err)
{
  cleanup_free char *buf = NULL;

  if (util_read_file_at (fd, file, &buf, NULL, err) < 0)
    return shim_error_prefix (err, "%s", json_path);
  if (util_parse_i64 (buf, out) < 0 || (uint64_t) *out >= CGROUP_V1_UNLIMITED_FROM)
    *out = -1;
  return 0;
}

/* What memsw becomes when an update gives a limit without swap: runc's
 * setMemoryAndSwap leaves memsw as it was (its update passes no swap), or
 * -1 when the limit goes to -1.  A container without swap (memsw equal to
 * a limit: create's default under a limit) stays without: memsw follows
 * the limit, as memory.swap.max=0 stays on v2.  *SWAP is 0 to leave memsw
 * alone; then a limit above memsw, which the kernel refuses with a bare
 * EINVAL, is refused here by name. */
static int
update_swap (int fd, const struct cgroup_resources *r, int64_t *swap, shim_error_t *err)
{
  int64_t limit, memsw;

  *swap = 0;
  if (r->memory_limit < 0)
    {
      *swap = -1;
      return 0;
    }
  if (read_limit (fd, "memory.limit_in_bytes", "linux.resources.memory.limit", &limit, err) < 0
      || read_limit (fd, "memory.memsw.limit_in_bytes", "linux.resources.memory.swap", &memsw, err) < 0)
    return -1;
  if (memsw >= 0 && memsw == limit)
    *swap = r->memory_limit;
  else if (memsw >= 0 && r->memory_limit > memsw)
    return shim_error_plain (err, EINVAL,
                             "linux.resources.memory.limit: %" PRId64 " is above the container's memory+swap "
                             "limit %" PRId64 " (memory.memsw.limit_in_bytes): give the swap too "
                             "(linux.resources.memory.swap, --memory-swap)",
                             r->memory_limit, memsw);
  return 0;
}

/* memory.limit_in_bytes and memory.memsw.limit_in_bytes (memory + swap, as
 * OCI's swap).  The kernel keeps limit <= memsw at every moment, so the one
 * that grows goes first: memsw first when it becomes unlimited or larger
 * than the current limit, else the limit first (runc's setMemoryAndSwap).
 * At create, a limit and no swap given make memsw the limit (no swap), as
 * the v2 manager sets memory.swap.max to 0: otherwise the kernel swaps
 * instead of reaching the limit and the limit never takes.  An update
 * without swap: update_swap. */
static int
apply_memory (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  bool memsw = faccessat (fd, "memory.memsw.limit_in_bytes", F_OK, 0) == 0;
  bool has_swap = r->has_memory_swap || (r->has_memory_limit && r->memory_limit > 0);
  int64_t swap = r->has_memory_swap ? r->memory_swap : r->memory_limit;

  if (r->update && !r->has_memory_swap && r->has_memory_limit && memsw)
    {
      if (update_swap (fd, r, &swap, err) < 0)
        return -1;
      has_swap = swap != 0;
    }
  if (r->has_memory_limit && has_swap && memsw)
    {
      int64_t current;
      if (read_limit (fd, "memory.limit_in_bytes", "linux.resources.memory.limit", &current, err) < 0)
        return -1;
      if (swap < 0 || (current >= 0 && current < swap))
        {
          if (write_i64 (fd, "memory.memsw.limit_in_bytes", swap, "linux.resources.memory.swap", err) < 0
              || write_i64 (fd, "memory.limit_in_bytes", r->memory_limit, "linux.resources.memory.limit", err) < 0)
            return -1;
        }
      else if (write_i64 (fd, "memory.limit_in_bytes", r->memory_limit, "linux.resources.memory.limit", err) < 0
               || write_i64 (fd, "memory.memsw.limit_in_bytes", swap, "linux.resources.memory.swap", err) < 0)
        return -1;
    }
  else if (r->has_memory_limit)
    {
      if (write_i64 (fd, "memory.limit_in_bytes", r->memory_limit, "linux.resources.memory.limit", err) < 0)
        return -1;
    }
  else if (r->has_memory_swap && memsw
           && write_i64 (fd, "memory.memsw.limit_in_bytes", swap, "linux.resources.memory.swap", err) < 0)
    return -1;
  if (r->has_memory_swap && !memsw && r->memory_swap > 0)
    log_msg (LOG_WARNING, "linux.resources.memory.swap: the kernel has no swap accounting "
                          "(memory.memsw.limit_in_bytes): swap is not limited");
  /* Kernel memory (memory.kmem.*) is left alone: deprecated, and counted in
   * memory.limit_in_bytes anyway since 5.x. */
  if (r->has_memory_reservation
      && write_i64 (fd, "memory.soft_limit_in_bytes", r->memory_reservation, "linux.resources.memory.reservation",
                    err)
             < 0)
    return -1;
  return 0;
}

/* A period and the budget checked against it (cpu.cfs_period_us and
 * cpu.cfs_quota_us, cpu.rt_period_us and cpu.rt_runtime_us).  The kernel
 * checks every write against the parent's budget with the other value as
 * it is now, so a new pair can be refused in one order and accepted in the
 * other: a shorter period with the old quota is a larger share than the
 * parent allows.  runc's order: the period, and when the kernel refuses it
 * (EINVAL) while a budget is to be written too, the budget, then the period
 * again.  BUDGET NULL: no budget to write. */
struct v1_pair
{
  const char *period_file, *period_path;
  const char *budget_file, *budget_path;
};

static int
write_pair (int fd, const struct v1_pair *p, uint64_t period, const int64_t *budget, shim_error_t *err)
{
  char buf[32];
  bool retry = false;

  if (period)
    {
      shim_error_t tmp = NULL;
      snprintf (buf, sizeof buf, "%" PRIu64, period);
      if (write_knob (fd, p->period_file, buf, p->period_path, &tmp) < 0)
        {
          if (budget == NULL || tmp->status != EINVAL)
            return shim_error_take (err, &tmp);
          shim_error_release (&tmp);
          retry = true;
        }
    }
  if (budget && write_i64 (fd, p->budget_file, *budget, p->budget_path, err) < 0)
    return -1;
  if (retry && write_knob (fd, p->period_file, buf, p->period_path, err) < 0)
    return -1;
  return 0;
}

/* A nonzero realtime runtime also needs the parent's budget and
 * CONFIG_RT_GROUP_SCHED: the kernel's refusal then names the file. */
static int
apply_rt (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  static const struct v1_pair rt = { "cpu.rt_period_us", "linux.resources.cpu.realtimePeriod",
                                     "cpu.rt_runtime_us", "linux.resources.cpu.realtimeRuntime" };
  int64_t runtime = r->cpu_rt_runtime;

  return write_pair (fd, &rt, r->has_cpu_rt_period ? r->cpu_rt_period : 0,
                     r->has_cpu_rt_runtime ? &runtime : NULL, err);
}

static int
apply_cpu (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  static const struct v1_pair cfs = { "cpu.cfs_period_us", "linux.resources.cpu.period", "cpu.cfs_quota_us",
                                      "linux.resources.cpu.quota" };
  int64_t quota = r->cpu_quota > 0 ? r->cpu_quota : -1;
  char buf[32];

  if (r->has_cpu_shares && r->cpu_shares)
    {
      snprintf (buf, sizeof buf, "%" PRIu64, r->cpu_shares);
      if (write_knob (fd, "cpu.shares", buf, "linux.resources.cpu.shares", err) < 0)
        return -1;
    }
  if (write_pair (fd, &cfs, r->has_cpu_period ? r->cpu_period : 0, r->has_cpu_quota ? &quota : NULL, err) < 0)
    return -1;
  return apply_rt (fd, r, err);
}

int
v1_apply_cpuset_inherit (int parent_fd, int dirfd, shim_error_t *err)
{
  static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
  size_t i;
  for (i = 0; i < 2; i++)
    {
      cleanup_free char *mine = NULL, *parent = NULL;
      if (util_read_file_at (dirfd, files[i], &mine, NULL, err) < 0)
        return -1;
      if (strspn (mine, " \n") != strlen (mine))
        continue;
      if (util_read_file_at (parent_fd, files[i], &parent, NULL, err) < 0)
        return -1;
      if (strspn (parent, " \n") == strlen (parent))
        continue;
      if (util_write_file_at (dirfd, files[i], parent, strlen (parent), err) < 0)
        return -1;
    }
  return 0;
}

static int
apply_cpuset (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  if (r->cpu_cpus && write_knob (fd, "cpuset.cpus", r->cpu_cpus, "linux.resources.cpu.cpus", err) < 0)
    return -1;
  if (r->cpu_mems && write_knob (fd, "cpuset.mems", r->cpu_mems, "linux.resources.cpu.mems", err) < 0)
    return -1;
  return 0;
}

/* The file a blkio weight goes to: CFQ's name if the kernel has it, else
 * BFQ's, as runc's blkio.go.  Neither exists when the disk's scheduler is
 * neither (mq-deadline, none, kyber) or CFQ is gone (Linux 5.0) and BFQ is
 * not loaded: then no weight can be applied, and the error says so once
 * rather than naming whichever file was tried last. */
static int
weight_file (int fd, const char *cfq, const char *bfq, const char *json_path, const char **file, shim_error_t *err)
{
  if (faccessat (fd, cfq, F_OK, 0) == 0)
    *file = cfq;
  else if (faccessat (fd, bfq, F_OK, 0) == 0)
    *file = bfq;
  else
    return shim_error_plain (err, ENOTSUP,
                             "%s: this kernel or disk has no I/O weight support: the blkio cgroup has neither `%s` "
                             "(CFQ) nor `%s` (BFQ); weights need the BFQ I/O scheduler",
                             json_path, cfq, bfq);
  return 0;
}

/* blkio.weight_device and the four blkio.throttle.* files: one
 * "MAJ:MIN VALUE" line per write, as runc's blkio.go. */
static int
apply_blkio_devices (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  static const char *const files[] = {
    [CGROUP_BLKIO_WEIGHT] = "blkio.weight_device",
    [CGROUP_BLKIO_READ_BPS] = "blkio.throttle.read_bps_device",
    [CGROUP_BLKIO_WRITE_BPS] = "blkio.throttle.write_bps_device",
    [CGROUP_BLKIO_READ_IOPS] = "blkio.throttle.read_iops_device",
    [CGROUP_BLKIO_WRITE_IOPS] = "blkio.throttle.write_iops_device",
  };
  static const char *const keys[] = {
    [CGROUP_BLKIO_WEIGHT] = "weightDevice",
    [CGROUP_BLKIO_READ_BPS] = "throttleReadBpsDevice",
    [CGROUP_BLKIO_WRITE_BPS] = "throttleWriteBpsDevice",
    [CGROUP_BLKIO_READ_IOPS] = "throttleReadIOPSDevice",
    [CGROUP_BLKIO_WRITE_IOPS] = "throttleWriteIOPSDevice",
  };
  size_t i;

  for (i = 0; i < r->n_blkio_devices; i++)
    {
      const struct cgroup_blkio_device *d = &r->blkio_devices[i];
      const char *file = files[d->kind];
      char buf[80], jp[64];
      snprintf (buf, sizeof buf, "%" PRId64 ":%" PRId64 " %" PRIu64, d->major, d->minor, d->value);
      snprintf (jp, sizeof jp, "linux.resources.blockIO.%s", keys[d->kind]);
      if (d->kind == CGROUP_BLKIO_WEIGHT
          && weight_file (fd, "blkio.weight_device", "blkio.bfq.weight_device", jp, &file, err) < 0)
        return -1;
      if (write_knob (fd, file, buf, jp, err) < 0)
        return -1;
    }
  return 0;
}

static int
apply_blkio (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  static const char jp[] = "linux.resources.blockIO.weight";
  const char *file = NULL;
  char buf[16];
  snprintf (buf, sizeof buf, "%u", (unsigned) r->blkio_weight);
  if (r->has_blkio_weight
      && (weight_file (fd, "blkio.weight", "blkio.bfq.weight", jp, &file, err) < 0
          || write_knob (fd, file, buf, jp, err) < 0))
    return -1;
  return apply_blkio_devices (fd, r, err);
}

/* hugetlb.<size>.limit_in_bytes, the size as the kernel names it ("2MB"). */
static int
apply_hugetlb (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  size_t i;
  for (i = 0; i < r->n_hugepages; i++)
    {
      char file[64], jp[64], buf[32];
      snprintf (file, sizeof file, "hugetlb.%s.limit_in_bytes", r->hugepages[i].page_size);
      snprintf (jp, sizeof jp, "linux.resources.hugepageLimits[%zu].limit", i);
      snprintf (buf, sizeof buf, "%" PRIu64, r->hugepages[i].limit);
      if (write_knob (fd, file, buf, jp, err) < 0)
        return -1;
    }
  return 0;
}

/* memory.disableOOMKiller: memory.oom_control 1.  The container then
 * waits at its limit instead of being killed (under_oom 1), and no OOM kill
 * happens for the verdict to report. */
static int
apply_oom_control (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  if (!r->oom_kill_disable)
    return 0;
  if (fd < 0)
    {
      log_msg (LOG_WARNING, "linux.resources.memory.disableOOMKiller: not applied: no memory hierarchy is mounted");
      return 0;
    }
  return write_knob (fd, "memory.oom_control", "1", "linux.resources.memory.disableOOMKiller", err);
}

static int
write_rule (int fd, const struct cgroup_device_rule *d, shim_error_t *err)
{
  char buf[64], maj[24], min[24], acc[4];
  size_t n = 0;

  if (d->access == 0)
    return 0;
  if (d->access & CGROUP_DEV_READ)
    acc[n++] = 'r';
  if (d->access & CGROUP_DEV_WRITE)
    acc[n++] = 'w';
  if (d->access & CGROUP_DEV_MKNOD)
    acc[n++] = 'm';
  acc[n] = '\0';
  snprintf (maj, sizeof maj, d->major < 0 ? "*" : "%" PRId64, d->major);
  snprintf (min, sizeof min, d->minor < 0 ? "*" : "%" PRId64, d->minor);
  if (d->type == 'a')
    snprintf (buf, sizeof buf, "a *:* %s", acc);
  else
    snprintf (buf, sizeof buf, "%c %s:%s %s", d->type, maj, min, acc);
  return write_knob (fd, d->allow ? "devices.allow" : "devices.deny", buf, "linux.resources.devices", err);
}

/* Deny everything, then the config's rules in order, then runc's default
 * allows (which no config can take away, as on v2).  Each v1 write adds an
 * exception to (allow) or takes one from (deny) the list. */
static int
apply_devices (int fd, const struct cgroup_resources *r, shim_error_t *err)
{
  size_t i, n;
  const struct cgroup_device_rule *defaults = cgroup_devices_defaults (&n);

  if (write_knob (fd, "devices.deny", "a", "linux.resources.devices", err) < 0)
    return -1;
  for (i = 0; i < r->n_devices; i++)
    if (write_rule (fd, &r->devices[i], err) < 0)
      return -1;
  for (i = 0; i < n; i++)
    if (write_rule (fd, &defaults[i], err) < 0)
      return -1;
  return 0;
}

/* Which controller each required-controller bit is on v1. */
static const char *
v1_name (unsigned bit)
{
  return bit == CGROUP_CTRL_IO ? "blkio" : cgroup_first_ctrl (bit);
}

/* memory.oom.group "0" or "1": v1 has no such file, the runtime emulates
 * it (evidence/monitor.c), so the key is accepted and never written. */
static bool
oom_group_key (const struct util_kv *kv)
{
  return strcmp (kv->key, "memory.oom.group") == 0
         && (strcmp (kv->value, "0") == 0 || strcmp (kv->value, "1") == 0);
}

/* linux.resources.unified's memory.oom.group, "0" or "1"; NULL: not set. */
static const struct util_kv *
oom_group_setting (const struct cgroup_resources *r)
{
  for (size_t i = 0; r && i < r->n_unified; i++)
    if (oom_group_key (&r->unified[i]))
      return &r->unified[i];
  return NULL;
}

bool
cgroup_oom_group_given (const struct cgroup_resources *r)
{
  return oom_group_setting (r) != NULL;
}

bool
cgroup_oom_group_off (const struct cgroup_resources *r)
{
  const struct util_kv *kv = oom_group_setting (r);
  return kv && strcmp (kv->value, "0") == 0;
}

int
cgroup_v1_freezer_dirfd (const struct cgroup *cg)
{
  return cg->v1 ? cgroup_v1_dirfd (cg->v1, "freezer") : -1;
}

/* A `unified` key the unified tracking cgroup (UNIFIED_FD, or -1) can take:
 * a core cgroup.* file, not a controller's; or memory.oom.group, which is
 * emulated. */
static bool
unified_ok (const struct util_kv *kv, int unified_fd)
{
  return oom_group_key (kv) || (unified_fd >= 0 && strncmp (kv->key, "cgroup.", 7) == 0);
}

int
v1_apply_resources (const struct cgroup_v1 *v, int unified_fd, const struct cgroup_resources *r,
                    bool allow_unenforced, char **why, shim_error_t *err)
{
  unsigned required = cgroup_required_controllers (r), missing = 0;
  const char *bad_key = NULL;
  char keys[512] = "";
  size_t i, n_bad = 0, len = 0;
  int fd;

  if (why)
    *why = NULL;
  for (i = 0; i < CGROUP_N_CTRL; i++)
    if ((required & (1u << i)) && cgroup_v1_dirfd (v, v1_name (1u << i)) < 0)
      missing |= 1u << i;
  /* Every key that cannot be written is named, not only the first:
   * "memory.high", "memory.high and cpu.weight", "a, b and c". */
  for (i = 0; i < r->n_unified; i++)
    if (!unified_ok (&r->unified[i], unified_fd))
      {
        size_t left = 0, j;
        for (j = i + 1; j < r->n_unified; j++)
          left += !unified_ok (&r->unified[j], unified_fd);
        if (n_bad++ == 0)
          bad_key = r->unified[i].key;
        len += (size_t) snprintf (keys + len, len < sizeof keys ? sizeof keys - len : 0, "%s%s",
                                  r->unified[i].key, left == 0 ? "" : left == 1 ? " and " : ", ");
        if (len >= sizeof keys)
          len = sizeof keys - 1;
      }
  /* A controller's unified key also made it "required": it is the key
   * that cannot be written, not the controller that is missing. */
  if (bad_key)
    missing = 0;
  if ((missing || bad_key) && !allow_unenforced)
    {
      if (n_bad == 1)
        return shim_error_plain (err, ENOTSUP,
                                 "invalid configuration: linux.resources.unified.%s: cannot enforce it: a cgroup v2 "
                                 "file, and this host's controllers are on cgroup v1; --allow-unenforced-limits "
                                 "runs without it",
                                 bad_key);
      if (n_bad > 1)
        return shim_error_plain (err, ENOTSUP,
                                 "invalid configuration: linux.resources.unified: cannot enforce %s: cgroup v2 files, "
                                 "and this host's controllers are on cgroup v1; --allow-unenforced-limits runs "
                                 "without them",
                                 keys);
      return shim_error_plain (err, ENOTSUP,
                               "invalid configuration: linux.resources: cannot enforce the %s limit: no cgroup v1 "
                               "hierarchy carries the `%s` controller; --allow-unenforced-limits runs without it",
                               cgroup_first_ctrl (missing), v1_name (missing & -missing));
    }
  if (missing || bad_key)
    {
      const char *what = bad_key ? keys : cgroup_first_ctrl (missing);
      char *msg = NULL;
      if (asprintf (&msg, "%s: not on this host's cgroup v1 hierarchies", what) < 0)
        msg = NULL;
      log_msg (LOG_WARNING, "linux.resources: the %s limit%s NOT enforced: %s", what, n_bad > 1 ? "s are" : " is",
               msg ? msg : "cgroup v1");
      if (why)
        *why = msg;
      else
        free (msg);
    }
  if ((fd = cgroup_v1_dirfd (v, "memory")) >= 0 && (required & CGROUP_CTRL_MEMORY) && apply_memory (fd, r, err) < 0)
    return -1;
  if ((fd = cgroup_v1_dirfd (v, "pids")) >= 0 && r->has_pids_limit && r->pids_limit != 0)
    {
      char buf[32];
      if (r->pids_limit < 0)
        snprintf (buf, sizeof buf, "max");
      else
        snprintf (buf, sizeof buf, "%" PRId64, r->pids_limit);
      if (write_knob (fd, "pids.max", buf, "linux.resources.pids.limit", err) < 0)
        return -1;
    }
  if ((fd = cgroup_v1_dirfd (v, "cpu")) >= 0 && (required & CGROUP_CTRL_CPU) && apply_cpu (fd, r, err) < 0)
    return -1;
  if ((fd = cgroup_v1_dirfd (v, "cpuset")) >= 0 && apply_cpuset (fd, r, err) < 0)
    return -1;
  if (apply_oom_control (cgroup_v1_dirfd (v, "memory"), r, err) < 0)
    return -1;
  if ((fd = cgroup_v1_dirfd (v, "blkio")) >= 0 && (required & CGROUP_CTRL_IO) && apply_blkio (fd, r, err) < 0)
    return -1;
  if ((fd = cgroup_v1_dirfd (v, "hugetlb")) >= 0 && apply_hugetlb (fd, r, err) < 0)
    return -1;
  if (r->has_devices)
    {
      fd = cgroup_v1_dirfd (v, "devices");
      if (fd < 0 && !allow_unenforced)
        return shim_error_plain (err, ENOTSUP,
                                 "invalid configuration: linux.resources.devices: cannot enforce the device rules: "
                                 "no devices hierarchy is mounted; --allow-unenforced-limits runs without them");
      if (fd >= 0 && apply_devices (fd, r, err) < 0)
        return -1;
    }
  /* unified last, as on v2. */
  for (i = 0; i < r->n_unified; i++)
    {
      cleanup_free char *jp = NULL;
      if (!unified_ok (&r->unified[i], unified_fd) || oom_group_key (&r->unified[i]))
        continue;
      if (asprintf (&jp, "linux.resources.unified.%s", r->unified[i].key) < 0)
        return shim_error_errno (err, "linux.resources.unified");
      if (write_knob (unified_fd, r->unified[i].key, r->unified[i].value, jp, err) < 0)
        return -1;
    }
  return 0;
}
