/* SPDX-License-Identifier: Apache-2.0 */
/* systemd's side of the systemd cgroup manager: the container's cgroup is a
 * transient scope unit that systemd makes, over D-Bus (libsystemd's sd-bus),
 * as runc and crun ask for it: StartTransientUnit with Delegate=yes, the
 * slice, the limits systemd has properties for, and init's pid; then wait
 * for the job.  Every call and every wait is bounded. */
#include "cgroup/cgroup_internal.h"
#include "common/log.h"
#include "common/sdlib.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
/* runc waits 30 s for systemd's job; so do we. */
#define JOB_TIMEOUT_USEC (30ULL * 1000000ULL)

/* libsystemd, loaded by bus_open: nothing below calls into it before.
 * (Not `sd`: that is a struct cgroup_systemd in the functions below.) */
static const struct sdlib *libsd;

static void
cleanup_bus_fn (sd_bus **b)
{
  if (*b)
    libsd->bus_flush_close_unref (*b);
}
#define cleanup_bus __attribute__ ((cleanup (cleanup_bus_fn)))

static void
cleanup_msg_fn (sd_bus_message **m)
{
  if (*m)
    libsd->bus_message_unref (*m);
}
#define cleanup_msg __attribute__ ((cleanup (cleanup_msg_fn)))

static void
cleanup_slot_fn (sd_bus_slot **s)
{
  if (*s)
    libsd->bus_slot_unref (*s);
}
#define cleanup_slot __attribute__ ((cleanup (cleanup_slot_fn)))

static void
cleanup_bus_error_fn (sd_bus_error *e)
{
  if (libsd)
    libsd->bus_error_free (e);
}
#define cleanup_bus_error __attribute__ ((cleanup (cleanup_bus_error_fn)))

/* sd-bus returns -errno; the error object wants errno set. */
static int
bus_fail (shim_error_t *err, int r, const sd_bus_error *e, const char *what, const char *unit)
{
  errno = -r;
  if (e && libsd->bus_error_is_set (e))
    return shim_error_plain (err, -r, "systemd: %s `%s`: %s", what, unit, e->message ? e->message : e->name);
  return shim_error_errno (err, "systemd: %s `%s`", what, unit);
}

bool
cgroup_systemd_running (void)
{
  struct stat st;
  /* What sd_booted() checks: systemd as PID 1 made this directory. */
  return lstat ("/run/systemd/system", &st) == 0 && S_ISDIR (st.st_mode);
}

/* PATH as an sd-bus connection: 0, or -1 (it may not be there). */
static int
bus_connect (sd_bus **out, const char *path)
{
  cleanup_free char *addr = NULL;
  sd_bus *b = NULL;

  if (asprintf (&addr, "unix:path=%s", path) < 0 || libsd->bus_new (&b) < 0)
    return -1;
  if (libsd->bus_set_address (b, addr) >= 0 && libsd->bus_start (b) >= 0)
    {
      *out = b;
      return 0;
    }
  libsd->bus_unref (b);
  return -1;
}

bool
cgroup_systemd_user_manager (void)
{
  return geteuid () != 0 || util_ns_initial ("user") == 0;
}

/* As root, systemd's private socket needs no dbus-daemon (systemctl does
 * the same); the system bus otherwise.  Rootless, the
 * user's own manager, user@UID.service, as runc and crun ask it: its
 * private socket in $XDG_RUNTIME_DIR/systemd (systemctl --user's), else
 * the user bus.  Connected from podman's user namespace, sd-bus sends no
 * uid of its own (AUTH EXTERNAL without data): the manager knows the
 * socket's peer as the user outside. */
static int
bus_open (sd_bus **out, shim_error_t *err)
{
  const char *xdg = getenv ("XDG_RUNTIME_DIR");
  cleanup_free char *priv = NULL;
  sd_bus *b = NULL;
  int r;

  if (libsd == NULL && (libsd = sdlib_load (err)) == NULL)
    return shim_error_prefix (err, "systemd");
  if (cgroup_systemd_user_manager ())
    {
      if (xdg && xdg[0] == '/' && asprintf (&priv, "%s/systemd/private", xdg) >= 0 && bus_connect (out, priv) == 0)
        return 0;
      r = libsd->bus_open_user (&b);
      if (r < 0)
        {
          errno = -r;
          return shim_error_errno (err, "systemd: connect to the user's manager (rootless: is user@%u.service "
                                        "running, and XDG_RUNTIME_DIR set?)",
                                   (unsigned) util_outside_uid ());
        }
      *out = b;
      return 0;
    }
  if (geteuid () == 0 && bus_connect (out, "/run/systemd/private") == 0)
    return 0;
  r = libsd->bus_open_system (&b);
  if (r < 0)
    {
      errno = -r;
      return shim_error_errno (err, "systemd: connect to the system bus (is systemd PID 1?)");
    }
  *out = b;
  return 0;
}

int
cgroup_systemd_manager_cgroup (char **out, shim_error_t *err)
{
  cleanup_bus sd_bus *bus = NULL;
  cleanup_bus_error sd_bus_error e = SD_BUS_ERROR_NULL;
  char *s = NULL;
  int r;

  *out = NULL;
  if (bus_open (&bus, err) < 0)
    return -1;
  r = libsd->bus_get_property_string (bus, SD_DEST, SD_PATH, SD_MANAGER, "ControlGroup", &e, &s);
  if (r < 0)
    return bus_fail (err, r, &e, "read the manager's property", "ControlGroup");
  if (s[0] != '/' && s[0] != '\0')
    {
      shim_error_plain (err, EINVAL, "systemd: the manager's ControlGroup `%s` is not a path", s);
      free (s);
      return -1;
    }
  /* "/" for the system manager: nothing to add. */
  if (strcmp (s, "/") == 0)
    s[0] = '\0';
  *out = s;
  return 0;
}

struct job_wait
{
  const char *path; /* the job we wait for */
  char result[32];  /* "done", "failed", ...; "" until it is removed */
};

static int
on_job_removed (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  struct job_wait *w = userdata;
  const char *path, *unit, *result;
  uint32_t id;

  (void) e;
  if (libsd->bus_message_read (m, "uoss", &id, &path, &unit, &result) < 0)
    return 0;
  if (w->path && strcmp (path, w->path) == 0)
    snprintf (w->result, sizeof w->result, "%s", result);
  return 0;
}

static uint64_t
now_usec (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) t.tv_sec * 1000000ULL + (uint64_t) t.tv_nsec / 1000ULL;
}

/* Call METHOD (its arguments appended by APPEND) and wait, bounded, for
 * the job it returns to be removed.  NO_UNIT_OK: a unit systemd does not
 * know is success (stopping what is already gone). */
static int
call_job (const char *method, const char *unit,
          int (*append) (sd_bus_message *m, const void *arg), const void *arg, bool no_unit_ok,
          shim_error_t *err)
{
  cleanup_bus sd_bus *bus = NULL;
  cleanup_msg sd_bus_message *m = NULL;
  cleanup_msg sd_bus_message *reply = NULL;
  cleanup_slot sd_bus_slot *slot = NULL;
  cleanup_bus_error sd_bus_error e = SD_BUS_ERROR_NULL;
  struct job_wait w = { 0 };
  const char *job;
  uint64_t deadline;
  int r;

  if (bus_open (&bus, err) < 0)
    return -1;
  /* The match before the call: the job may end before the reply is read
   * (queued signals are dispatched below, once the job's path is known). */
  r = libsd->bus_match_signal (bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, &w);
  if (r < 0)
    return bus_fail (err, r, NULL, "watch the jobs for", unit);
  r = libsd->bus_call_method (bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &e, NULL, "");
  if (r < 0)
    libsd->bus_error_free (&e); /* the private socket sends signals anyway */
  r = libsd->bus_message_new_method_call (bus, &m, SD_DEST, SD_PATH, SD_MANAGER, method);
  if (r < 0 || (r = append (m, arg)) < 0)
    return bus_fail (err, r, NULL, method, unit);
  r = libsd->bus_call (bus, m, JOB_TIMEOUT_USEC, &e, &reply);
  if (r < 0)
    {
      if (no_unit_ok && (libsd->bus_error_has_name (&e, "org.freedesktop.systemd1.NoSuchUnit")))
        return 0;
      return bus_fail (err, r, &e, method, unit);
    }
  r = libsd->bus_message_read (reply, "o", &job);
  if (r < 0)
    return bus_fail (err, r, NULL, method, unit);
  w.path = job;
  deadline = now_usec () + JOB_TIMEOUT_USEC;
  while (w.result[0] == '\0')
    {
      uint64_t now = now_usec ();
      r = libsd->bus_process (bus, NULL);
      if (r < 0)
        return bus_fail (err, r, NULL, "wait for the job of", unit);
      if (r > 0)
        continue;
      if (now >= deadline)
        return shim_error_plain (err, ETIMEDOUT, "systemd: %s `%s`: the job did not finish in 30 s",
                                 method, unit);
      r = libsd->bus_wait (bus, deadline - now);
      if (r < 0)
        return bus_fail (err, r, NULL, "wait for the job of", unit);
    }
  if (strcmp (w.result, "done") != 0)
    return shim_error_plain (err, EIO, "systemd: %s `%s`: the job ended `%s` (journalctl -u %s)", method,
                             unit, w.result, unit);
  return 0;
}

/* ---- properties ---------------------------------------------------------- */

#define UNLIMITED UINT64_MAX /* systemd's "infinity" */

static uint64_t
limit_of (int64_t v)
{
  return v < 0 ? UNLIMITED : (uint64_t) v;
}

/* memory.oom.group as systemd's own setting, OOMPolicy: on cgroup v2
 * systemd writes memory.oom.group = (OOMPolicy == kill) each time it
 * applies a unit's settings, so a value written behind its back goes back
 * to 0 at the next daemon-reload (seen with systemd 252).  kill also has
 * systemd stop the scope after any OOM kill in its tree, a nested
 * cgroup's too (seen with 252: a nested cgroup's kill left the scope
 * failed with result oom-kill); continue leaves the survivors alone.
 * NULL: an update that does not set the key leaves it as it is. */
static const char *
oom_policy (const struct cgroup_resources *r)
{
  if (cgroup_oom_group_given (r))
    return cgroup_oom_group_off (r) ? "continue" : "kill";
  return r->update ? NULL : "kill";
}

/* The limits systemd has properties for, as runc sets them; the rest is
 * written to the cgroup's files afterwards (cgroup_v2 update). */
static int
append_resources (sd_bus_message *m, const struct cgroup_resources *r)
{
  const char *policy;
  int ret = 0;

  if (r == NULL)
    return 0;
  if ((policy = oom_policy (r)) != NULL)
    ret = libsd->bus_message_append (m, "(sv)", "OOMPolicy", "s", policy);
  if (r->has_memory_limit)
    ret = ret < 0 ? ret : libsd->bus_message_append (m, "(sv)", "MemoryMax", "t", limit_of (r->memory_limit));
  if (r->has_memory_reservation)
    ret = ret < 0 ? ret
                  : libsd->bus_message_append (m, "(sv)", "MemoryLow", "t", limit_of (r->memory_reservation));
  /* OCI's swap is memory + swap; systemd's MemorySwapMax is swap alone. */
  if (r->has_memory_swap && r->has_memory_limit && r->memory_swap >= 0 && r->memory_limit >= 0
      && r->memory_swap >= r->memory_limit)
    ret = ret < 0 ? ret
                  : libsd->bus_message_append (m, "(sv)", "MemorySwapMax", "t",
                                           (uint64_t) (r->memory_swap - r->memory_limit));
  else if (r->has_memory_swap && r->memory_swap < 0)
    ret = ret < 0 ? ret : libsd->bus_message_append (m, "(sv)", "MemorySwapMax", "t", UNLIMITED);
  /* A limit without swap: none, as the v2 manager writes memory.swap.max
   * (else the kernel swaps instead of reaching the limit); said to systemd
   * too, so that it does not put `max` back when it applies its properties
   * again (daemon-reload). */
  else if (!r->has_memory_swap && r->has_memory_limit && r->memory_limit > 0)
    ret = ret < 0 ? ret : libsd->bus_message_append (m, "(sv)", "MemorySwapMax", "t", (uint64_t) 0);
  if (r->has_pids_limit)
    ret = ret < 0 ? ret
                  : libsd->bus_message_append (m, "(sv)", "TasksMax", "t",
                                           r->pids_limit <= 0 ? UNLIMITED : (uint64_t) r->pids_limit);
  if (r->has_cpu_shares && r->cpu_shares > 0)
    ret = ret < 0 ? ret
                  : libsd->bus_message_append (m, "(sv)", "CPUWeight", "t",
                                           (uint64_t) cgroup_cpu_shares_to_weight (r->cpu_shares));
  if (r->has_cpu_quota)
    {
      uint64_t period = r->has_cpu_period && r->cpu_period > 0 ? r->cpu_period : 100000;
      uint64_t per_sec = UNLIMITED;
      if (r->cpu_quota > 0)
        {
          /* systemd keeps CPUQuotaPerSecUSec in 10 ms steps: round up, as
           * runc does, so that the quota is never made smaller. */
          per_sec = (uint64_t) r->cpu_quota * 1000000ULL / period;
          if (per_sec % 10000)
            per_sec = (per_sec / 10000 + 1) * 10000;
        }
      ret = ret < 0 ? ret : libsd->bus_message_append (m, "(sv)", "CPUQuotaPerSecUSec", "t", per_sec);
      if (r->has_cpu_period && r->cpu_period > 0)
        ret = ret < 0 ? ret : libsd->bus_message_append (m, "(sv)", "CPUQuotaPeriodUSec", "t", period);
    }
  if (r->has_blkio_weight && r->blkio_weight > 0)
    {
      uint64_t w = cgroup_blkio_weight_to_io (r->blkio_weight);
      ret = ret < 0 ? ret : libsd->bus_message_append (m, "(sv)", "IOWeight", "t", w);
    }
  return ret;
}

struct scope_args
{
  const char *unit, *slice, *description;
  pid_t pid;
  const struct cgroup_resources *r;
};

static int
append_start (sd_bus_message *m, const void *arg)
{
  const struct scope_args *a = arg;
  int r;

  if ((r = libsd->bus_message_append (m, "ss", a->unit, "fail")) < 0
      || (r = libsd->bus_message_open_container (m, 'a', "(sv)")) < 0
      || (r = libsd->bus_message_append (m, "(sv)", "Description", "s", a->description)) < 0
      || (a->slice[0] && (r = libsd->bus_message_append (m, "(sv)", "Slice", "s", a->slice)) < 0)
      || (r = libsd->bus_message_append (m, "(sv)", "Delegate", "b", 1)) < 0
      /* A scope systemd stopped after an OOM kill (OOMPolicy=kill) ends
       * failed; unloaded all the same, as `systemd-run --collect`, so that
       * no unit outlives its container and the system is not degraded. */
      || (r = libsd->bus_message_append (m, "(sv)", "CollectMode", "s", "inactive-or-failed")) < 0
      || (r = libsd->bus_message_append (m, "(sv)", "DefaultDependencies", "b", 0)) < 0
      || (r = libsd->bus_message_append (m, "(sv)", "MemoryAccounting", "b", 1)) < 0
      || (r = libsd->bus_message_append (m, "(sv)", "TasksAccounting", "b", 1)) < 0
      || (r = libsd->bus_message_append (m, "(sv)", "PIDs", "au", 1, (uint32_t) a->pid)) < 0
      || (r = append_resources (m, a->r)) < 0 || (r = libsd->bus_message_close_container (m)) < 0)
    return r;
  return libsd->bus_message_append (m, "a(sa(sv))", 0);
}

int
cgroup_systemd_start_scope (const char *unit, const char *slice, pid_t pid,
                            const struct cgroup_resources *r, const char *description,
                            shim_error_t *err)
{
  struct scope_args a = { unit, slice ? slice : "", description, pid, r };
  return call_job ("StartTransientUnit", unit, append_start, &a, false, err);
}

static int
append_stop (sd_bus_message *m, const void *arg)
{
  return libsd->bus_message_append (m, "ss", (const char *) arg, "replace");
}

int
cgroup_systemd_stop_unit (const char *unit, shim_error_t *err)
{
  return call_job ("StopUnit", unit, append_stop, unit, true, err);
}

int
cgroup_systemd_set_properties (const char *unit, const struct cgroup_resources *r, shim_error_t *err)
{
  cleanup_bus sd_bus *bus = NULL;
  cleanup_msg sd_bus_message *m = NULL;
  cleanup_bus_error sd_bus_error e = SD_BUS_ERROR_NULL;
  int ret;

  if (bus_open (&bus, err) < 0)
    return -1;
  ret = libsd->bus_message_new_method_call (bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties");
  if (ret < 0 || (ret = libsd->bus_message_append (m, "sb", unit, 1)) < 0
      || (ret = libsd->bus_message_open_container (m, 'a', "(sv)")) < 0 || (ret = append_resources (m, r)) < 0
      || (ret = libsd->bus_message_close_container (m)) < 0)
    return bus_fail (err, ret, NULL, "SetUnitProperties", unit);
  ret = libsd->bus_call (bus, m, JOB_TIMEOUT_USEC, &e, NULL);
  if (ret < 0)
    return bus_fail (err, ret, &e, "SetUnitProperties", unit);
  return 0;
}

/* ---- the manager ----------------------------------------------------------- */

bool
cgroup_systemd_is_scope (const char *path)
{
  const char *base = path ? strrchr (path, '/') : NULL;
  size_t n = base ? strlen (base + 1) : 0;
  return n > 6 && strcmp (base + 1 + n - 6, ".scope") == 0;
}

void
cgroup_systemd_free (struct cgroup_systemd *sd)
{
  if (sd == NULL)
    return;
  free (sd->unit);
  free (sd->slice);
  free (sd);
}

/* The unit and its slice from the scope's path:
 * /system.slice/shimtest-ID.scope -> shimtest-ID.scope in system.slice. */
static int
sd_from_path (struct cgroup *cg, shim_error_t *err)
{
  const char *base = strrchr (cg->path, '/');
  struct cgroup_systemd *sd = calloc (1, sizeof *sd);

  if (sd == NULL)
    return shim_error_errno (err, "cgroup `%s`", cg->path);
  cg->sd = sd;
  sd->owner = CGROUP_NO_OWNER;
  sd->unit = strdup (base + 1);
  if (base == cg->path)
    sd->slice = strdup ("-.slice");
  else
    {
      const char *p = base;
      while (p > cg->path && p[-1] != '/')
        p--;
      sd->slice = strndup (p, (size_t) (base - p));
    }
  if (sd->unit == NULL || sd->slice == NULL)
    return shim_error_errno (err, "cgroup `%s`", cg->path);
  return 0;
}

/* Nothing is made yet: systemd makes the scope when it gets init's pid
 * (cgroup_systemd_enter).  A slice as the unit (slice:prefix:x.slice) is
 * refused: a container needs a scope of its own. */
static int
sd_create (const struct cgroup_spec *spec, const char *path, struct cgroup *out, shim_error_t *err)
{
  const struct cgroup_resources *r = spec->resources;

  if (!cgroup_systemd_is_scope (path))
    return shim_error_plain (err, EINVAL,
                             "linux.cgroupsPath: `%s` is a slice, not a scope: the systemd cgroup manager "
                             "runs a container in a scope of its own",
                             spec->cgroups_path ? spec->cgroups_path : "");
  out->path = strdup (path);
  if (out->path == NULL)
    return shim_error_errno (err, "cgroup path");
  if (cgroup_open_mount (out, err) < 0 || sd_from_path (out, err) < 0)
    return -1;
  out->sd->resources = r;
  out->sd->owner = spec->owner;
  /* systemd delegates every controller to the scope (Delegate=yes). */
  out->memory_limit_enforced = r->has_memory_limit && r->memory_limit > 0;
  return 0;
}

static int
sd_open (struct cgroup *cg, shim_error_t *err)
{
  if (sd_from_path (cg, err) < 0 || cgroup_v2_manager.open (cg, err) < 0)
    return -1;
  cg->sd->started = true;
  return 0;
}

int
cgroup_systemd_enter (struct cgroup *cg, pid_t pid, shim_error_t *err)
{
  struct cgroup_systemd *sd = cg->sd;
  const struct cgroup_resources *r = sd->resources;
  cleanup_free char *desc = NULL;
  shim_error_t tmp = NULL;
  int ret = 0;

  if (sd->started)
    return 0; /* exec: the process was cloned into the scope */
  if (asprintf (&desc, "shim container %s", sd->unit) < 0)
    return shim_error_errno (err, "systemd unit");
  if (cgroup_systemd_start_scope (sd->unit, sd->slice, pid, r, desc, err) < 0)
    return -1;
  sd->started = true;
  sd->resources = NULL;
  log_msg (LOG_DEBUG, "systemd: started %s in %s with pid %d", sd->unit, sd->slice, (int) pid);
  cg->dirfd = openat (cg->mountfd, cg->path + 1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cg->dirfd < 0)
    ret = shim_error_errno (err, "open the scope's cgroup `%s`", cg->path);
  /* What systemd has no property for, as the v2 manager writes it:
   * memory.oom.group, memory.swap.max, unified, the device rules. */
  if (ret == 0)
    ret = cgroup_v2_manager.update (cg, r, err);
  if (ret == 0 && sd->owner != CGROUP_NO_OWNER)
    ret = cgroup_delegate_to (cg->dirfd, cg->path, sd->owner, err);
  if (ret < 0 && cgroup_systemd_stop_unit (sd->unit, &tmp) < 0)
    log_error_release (&tmp);
  return ret;
}

static int
sd_update (struct cgroup *cg, const struct cgroup_resources *r, shim_error_t *err)
{
  if (cgroup_systemd_set_properties (cg->sd->unit, r, err) < 0)
    return -1;
  return cgroup_v2_manager.update (cg, r, err);
}

/* Everything in the scope killed (cgroup.kill: systemd's stop would send
 * SIGTERM and wait up to 90 s), then the unit stopped, which removes the
 * cgroup.  A scope systemd already removed (it stops a scope that
 * emptied, or someone ran `systemctl stop`) is no error. */
static int
sd_destroy (struct cgroup *cg, shim_error_t *err)
{
  shim_error_t tmp = NULL;

  if (faccessat (cg->dirfd, "cgroup.procs", F_OK, 0) == 0 && cgroup_v2_manager.destroy (cg, &tmp) < 0)
    {
      if (faccessat (cg->dirfd, "cgroup.procs", F_OK, 0) == 0)
        return shim_error_take (err, &tmp);
      shim_error_release (&tmp); /* removed meanwhile */
    }
  return cgroup_systemd_stop_unit (cg->sd->unit, err);
}

static int
sd_freeze (struct cgroup *cg, bool frozen, shim_error_t *err)
{
  return cgroup_v2_manager.freeze (cg, frozen, err);
}

static int
sd_signal_all (struct cgroup *cg, int sig, shim_error_t *err)
{
  return cgroup_v2_manager.signal_all (cg, sig, err);
}

static int
sd_snapshot (const struct cgroup *cg, struct cg_snapshot *out, shim_error_t *err)
{
  return cgroup_v2_manager.snapshot (cg, out, err);
}

const struct cgroup_manager cgroup_systemd_manager = {
  .name = "systemd",
  .create = sd_create,
  .open = sd_open,
  .update = sd_update,
  .freeze = sd_freeze,
  .signal_all = sd_signal_all,
  .destroy = sd_destroy,
  .snapshot = sd_snapshot,
};
